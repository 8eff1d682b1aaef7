// Package apiclient is the typed client of the Partner Embedded Wallet and
// Payments API (../shared/spec/partner-api.md, "the spec"). The app talks to
// the API only through this package.
//
// # Client
//
// New takes the API origin (never ending in /v1: every path already starts
// with /v1/) and the API key, sent as x-api-key on every call and never
// logged. Options set the HTTP client, per-attempt timeout, logger, user
// agent and retry policy. Every method takes a context first.
//
// User-scoped endpoints take the user's serviceUserId as their first
// argument after ctx; their path is /v1/users/{userId}/... A context made
// with WithActingUser names the admin on whose behalf the partner acts.
//
// # Errors
//
// A non-2xx answer is an *Error with the status, every message (string or
// array), the upstream code and the operation. Use IsNotFound, IsForbidden,
// IsConflict and IsNotReady, or errors.Is with the Err* sentinels. Requests are checked before sending by their Validate
// method, which returns FieldErrors (field → message) for every invalid
// field at once.
//
// # Retries
//
// GETs, and POST start-usa (idempotent by spec), are retried on network
// errors, 5xx, 408 and 429 with capped exponential backoff and jitter,
// honouring Retry-After and the context. Other writes are never retried
// because the API has no idempotency keys; CreateUser recovers a lost or
// conflicting attempt through the spec's 409 rule instead.
//
// # Money
//
// Decimal strings are decimal.Decimal; minor-unit amounts are MinorUnits;
// amounts sent as JSON numbers are DecimalNumber. No float64 holds money.
// Fiat and Stablecoin codes map both ways through StablecoinFor and
// Stablecoin.Fiat, with the legacy MXNe recognised.
//
// # Signatures
//
// SignPayload.CheckSignature, SignatureRequest.CheckSignature and
// OwnerProofChallenge.CheckSignature check a device's signature (format,
// deadline, signer) before it is relayed, naming the message-prefix mistake.
//
// # Webhooks
//
// VerifySignature checks X-Webhook-Signature on the raw body in constant
// time; ParseEvent decodes the envelope and Event.Decode its typed payload.
package apiclient
