package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// MaxBodyBytes caps a delivery's body.
const MaxBodyBytes = 1 << 20

// How long after a rotation a failed signature may still be the rotation's
// doing: then the receiver answers 503 so the sender retries (signed with
// the new secret) instead of 401, a permanent failure.
const (
	rotationWindow = 2 * time.Minute
	previousGrace  = 5 * time.Minute
)

var errNoQueue = errors.New("webhooks: job queue not set")

// deliveryHeaders are the delivery's headers, checked.
type deliveryHeaders struct {
	Signature string
	// WebhookID is for logs and for the check against the body's id: the
	// signature does not cover it, so it never keys a delivery.
	WebhookID     string // "" when absent or unusable
	HasWebhookID  bool   // the header was sent, usable or not
	SourceEventID string
}

// maxIDLen bounds ids taken from headers or bodies.
const maxIDLen = 200

// validID reports whether s can serve as a key: 1 to 200 printable ASCII
// characters without spaces.
func validID(s string) bool {
	if s == "" || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// parseHeaders reads the delivery headers. Unusable ids are dropped;
// nothing here rejects.
func parseHeaders(h http.Header) deliveryHeaders {
	d := deliveryHeaders{Signature: h.Get(apiclient.HeaderWebhookSignature)}
	if id := strings.TrimSpace(h.Get(apiclient.HeaderWebhookID)); id != "" {
		d.HasWebhookID = true
		if validID(id) {
			d.WebhookID = id
		}
	}
	if id := strings.TrimSpace(h.Get(apiclient.HeaderSourceEventID)); validID(id) {
		d.SourceEventID = id
	}
	return d
}

// Why a verified delivery is refused (400: the sender does not retry).
var (
	errNoBodyID     = errors.New("the body has no usable id")
	errIDMismatched = errors.New(apiclient.HeaderWebhookID + " does not match the body's id")
)

// deliveryKey is the key a verified delivery is stored under: the signed
// body's id. spec: "X-Webhook-Id: same value as the body id; use for
// deduplication". The header is not covered by the signature, so a sender
// of a captured body could choose it: a header that disagrees with the
// body is refused rather than trusted or ignored.
func deliveryKey(body []byte, hd deliveryHeaders) (string, error) {
	// encoding/json, as apiclient.ParseEvent reads the id processing sees.
	var idOnly struct {
		ID *string `json:"id"`
	}
	if json.Unmarshal(body, &idOnly) != nil || idOnly.ID == nil || !validID(*idOnly.ID) {
		return "", errNoBodyID
	}
	if hd.HasWebhookID && hd.WebhookID != *idOnly.ID {
		return "", errIDMismatched
	}
	return *idOnly.ID, nil
}

// envelope turns a verified body into the delivery to store under key. A
// body that is not an event envelope is kept as unparseable.
func envelope(body []byte, key string, hd deliveryHeaders) store.NewDelivery {
	d := store.NewDelivery{WebhookID: key, SourceEventID: hd.SourceEventID, Body: body}
	ev, err := apiclient.ParseEvent(body)
	if err != nil {
		d.Unparseable = true
		d.Reason = unparseableReason(err)
	} else {
		d.EventType = ev.EventType
		if len(d.EventType) > maxIDLen {
			d.EventType = d.EventType[:maxIDLen]
		}
		d.EventTimestamp = ev.Timestamp
	}
	return d
}

func unparseableReason(err error) string {
	msg := apiclient.EventReason(err)
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return "not a webhook event: " + msg
}

// Receive is POST /webhooks/partner-api: verify, store and enqueue, answer.
// It makes no upstream call.
func (h *Handler) Receive(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.delivered(DeliveryRefused)
			answer(w, http.StatusRequestEntityTooLarge, "Body larger than 1 MiB")
			return
		}
		h.delivered(DeliveryRefused)
		answer(w, http.StatusBadRequest, "Could not read the body")
		return
	}
	hd := parseHeaders(r.Header)
	var inserted bool
	// The insert only happens while the secret that verified the delivery
	// is still the current one (store.ErrStaleSecret otherwise): a
	// rotation in between makes the loop read and verify again.
	for attempt := 0; ; attempt++ {
		sub, err := h.subscription(ctx)
		if err != nil {
			h.Logger.ErrorContext(ctx, "webhook: load subscription", "err", err)
			h.delivered(DeliveryUnavailable)
			answer(w, http.StatusServiceUnavailable, "Storage unavailable, retry later")
			return
		}
		if status, reason := h.verify(sub, body, hd.Signature); h.refusedUnverified(w, r, status, reason, hd.WebhookID) {
			return
		}

		key, err := deliveryKey(body, hd)
		if err != nil {
			h.Logger.WarnContext(ctx, "webhook: verified delivery refused", "webhook_id", hd.WebhookID, "reason", err)
			// err is one of the refusals above, written for the sender.
			h.delivered(DeliveryRefused)
			answer(w, http.StatusBadRequest, "Delivery refused: "+err.Error())
			return
		}
		d := envelope(body, key, hd)
		d.SecretVersion = sub.SecretVersion
		_, inserted, err = h.storeDelivery(ctx, d)
		if errors.Is(err, store.ErrStaleSecret) && attempt < 2 {
			continue
		}
		if err != nil {
			h.Logger.ErrorContext(ctx, "webhook: store delivery", "webhook_id", d.WebhookID, "err", err)
			h.delivered(DeliveryUnavailable)
			answer(w, http.StatusServiceUnavailable, "Storage unavailable, retry later")
			return
		}
		if h.afterStore != nil {
			h.afterStore()
		}
		h.answerStored(w, r, d, inserted)
		return
	}
}

// How a delivery was answered, as Handler.Delivered is told.
const (
	DeliveryReceived    = "received"    // stored and queued (200)
	DeliveryDuplicate   = "duplicate"   // already stored (200)
	DeliveryUnparseable = "unparseable" // verified but not an event, kept (200)
	DeliveryRefused     = "refused"     // bad signature, body or id (4xx)
	DeliveryUnavailable = "unavailable" // storage down or secret changing (503)
)

func (h *Handler) delivered(outcome string) {
	if h.Delivered != nil {
		h.Delivered(outcome)
	}
}

// subscription reads the subscription; no subscription is an empty one
// (no secret). It is read for each delivery, never kept: the insert checks
// the secret's version, so a rotation between the read and the insert
// makes the receiver read and verify again.
func (h *Handler) subscription(ctx context.Context) (store.WebhookSubscription, error) {
	sub, err := h.Store.WebhookSubscription(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return store.WebhookSubscription{}, nil
	}
	return sub, err
}

// verify checks the signature against the current secret and decides the
// answer when it fails: 401, or 503 while a rotation may explain it.
func (h *Handler) verify(sub store.WebhookSubscription, body []byte, header string) (int, string) {
	if !sub.HasSecret() {
		return http.StatusUnauthorized, "this app holds no webhook secret: create the subscription or rotate its secret"
	}
	secret, err := h.Box.Open(sub.SecretSealed)
	if err != nil {
		// The key changed under us; a retry after the fix succeeds.
		return http.StatusServiceUnavailable, "stored secret cannot be opened with the configured ENCRYPTION_KEY"
	}
	err = apiclient.VerifySignature(secret, body, header)
	if err == nil {
		return http.StatusOK, ""
	}
	now := h.now()
	if !sub.RotatingSince.IsZero() && now.Sub(sub.RotatingSince) < rotationWindow {
		return http.StatusServiceUnavailable, "secret rotation under way"
	}
	if len(sub.PreviousSecretSealed) > 0 && now.Sub(sub.RotatedAt) < previousGrace {
		if prev, err := h.Box.Open(sub.PreviousSecretSealed); err == nil && apiclient.VerifySignature(prev, body, header) == nil {
			// Never accepted: the old secret stopped verifying at rotation.
			return http.StatusServiceUnavailable, "signed with the secret replaced at the last rotation"
		}
	}
	if strings.TrimSpace(header) == "" {
		return http.StatusUnauthorized, "no " + apiclient.HeaderWebhookSignature + " header"
	}
	return http.StatusUnauthorized, fmt.Sprint(err)
}

func answer(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "{\"statusCode\":%d,\"message\":%q}\n", status, msg)
}

// refusedUnverified answers a delivery whose signature was not verified
// (true): a retry while the secret is changing, else a refusal.
func (h *Handler) refusedUnverified(w http.ResponseWriter, r *http.Request, status int, reason, webhookID string) bool {
	ctx := r.Context()
	switch status {
	case http.StatusServiceUnavailable:
		h.Logger.WarnContext(ctx, "webhook: signature not verified, asking for a retry", "webhook_id", webhookID, "reason", reason)
		w.Header().Set("Retry-After", "10")
		h.delivered(DeliveryUnavailable)
		answer(w, status, "Webhook secret changing, retry later")
		return true
	case http.StatusUnauthorized:
		// A misconfigured secret loses real events (a 401 is never
		// retried): say so loudly, in the log and on the settings page.
		h.Logger.WarnContext(ctx, "webhook: invalid signature; deliveries are being refused, check the subscription's secret on /settings/webhooks",
			"webhook_id", webhookID, "reason", reason)
		if err := h.Store.RecordSignatureFailure(ctx, store.SignatureFailure{WebhookID: webhookID, Reason: reason}); err != nil {
			h.Logger.ErrorContext(ctx, "webhook: record signature failure", "err", err)
		}
		h.delivered(DeliveryRefused)
		answer(w, http.StatusUnauthorized, "Invalid webhook signature")
		return true
	}
	return false
}

// answerStored answers a delivery kept (or found kept already).
func (h *Handler) answerStored(w http.ResponseWriter, r *http.Request, d store.NewDelivery, inserted bool) {
	switch {
	case !inserted:
		h.delivered(DeliveryDuplicate)
		answer(w, http.StatusOK, "duplicate")
	case d.Unparseable:
		// A 4xx would be a permanent failure and a 5xx a retry of
		// something that can never succeed: keep it for the event log.
		h.Logger.WarnContext(r.Context(), "webhook: unparseable delivery kept", "webhook_id", d.WebhookID, "reason", d.Reason)
		h.delivered(DeliveryUnparseable)
		answer(w, http.StatusOK, "unparseable, kept")
	default:
		h.delivered(DeliveryReceived)
		answer(w, http.StatusOK, "received")
	}
}
