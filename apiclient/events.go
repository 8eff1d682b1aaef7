package apiclient

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Webhook delivery headers.
const (
	// HeaderWebhookSignature is the hex HMAC-SHA256 of the raw body.
	HeaderWebhookSignature = "X-Webhook-Signature"
	// HeaderWebhookID equals the body id; deduplicate on it.
	HeaderWebhookID = "X-Webhook-Id"
	// HeaderSourceEventID is the upstream event id; empty for legacy rows.
	HeaderSourceEventID = "X-Source-Event-Id"
)

// Event types of the spec. Partner-scoped subscriptions receive the
// employee.* money-movement names; legacy global ones the wallet.* names.
const (
	EventEmployeeDepositCompleted     = "employee.deposit.completed"
	EventEmployeeDepositFailed        = "employee.deposit.failed"
	EventEmployeeDepositRefunded      = "employee.deposit.refunded"
	EventEmployeeWithdrawalProcessing = "employee.withdrawal.processing"
	EventEmployeeWithdrawalCompleted  = "employee.withdrawal.completed"
	EventEmployeeWithdrawalFailed     = "employee.withdrawal.failed"
	EventWalletDepositCompleted       = "wallet.deposit.completed"
	EventWalletDepositFailed          = "wallet.deposit.failed"
	EventWalletDepositRefunded        = "wallet.deposit.refunded"
	EventWalletWithdrawalProcessing   = "wallet.withdrawal.processing"
	EventWalletWithdrawalCompleted    = "wallet.withdrawal.completed"
	EventWalletWithdrawalFailed       = "wallet.withdrawal.failed"
	EventOnboardingCompleted          = "onboarding.completed"
	EventOnboardingFailed             = "onboarding.failed"
	EventKYCActionRequired            = "kyc.action_required"
	EventEmployeeLinked               = "employee.linked"
	EventEmployeeVBARegistered        = "employee.vba.registered"
	EventEmployeeUnlinked             = "employee.unlinked"
	EventCardFulfillmentUpdated       = "card.fulfillment.updated"
	EventCardTransactionCreated       = "card.transaction.created"
)

// ErrWebhookSignature is returned by VerifySignature for a missing or wrong
// signature; answer 401 ("Invalid webhook signature").
var ErrWebhookSignature = errors.New("apiclient: invalid webhook signature")

// ErrEvent is returned by ParseEvent for a body that is not an event.
var ErrEvent = errors.New("apiclient: invalid webhook event")

// EventError is a delivery ParseEvent or Decode refuses, with the reason
// in words; errors.Is(err, ErrEvent) holds for it.
type EventError struct{ Reason string }

func (e *EventError) Error() string { return ErrEvent.Error() + ": " + e.Reason }

// Is makes errors.Is(err, ErrEvent) true.
func (e *EventError) Is(target error) bool { return target == ErrEvent }

// EventReason is the reason an EventError in err gives, or err's text.
func EventReason(err error) string {
	var ee *EventError
	if errors.As(err, &ee) {
		return ee.Reason
	}
	return err.Error()
}

// SignBody returns the hex HMAC-SHA256 of body keyed with secret, the value
// of X-Webhook-Signature. The key is the secretKey string's bytes as given.
func SignBody(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// VerifySignature checks the X-Webhook-Signature header against the raw
// request body. spec: "Compare in constant time, using the raw bytes before
// any JSON parsing." Hex letter case and surrounding spaces are ignored.
func VerifySignature(secret string, rawBody []byte, header string) error {
	if secret == "" {
		return fmt.Errorf("%w: no secret configured", ErrWebhookSignature)
	}
	got, err := hex.DecodeString(strings.TrimSpace(header))
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: header is not a hex HMAC-SHA256", ErrWebhookSignature)
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(rawBody)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrWebhookSignature
	}
	return nil
}

// Event is a webhook delivery body. Retries redeliver the same ID:
// deduplicate on it.
type Event struct {
	ID        string          `json:"id"`
	EventType string          `json:"eventType"`
	Payload   json.RawMessage `json:"payload"`
	Timestamp time.Time       `json:"timestamp"`
}

// ParseEvent decodes a delivery body (after VerifySignature). The payload is
// kept raw; Decode types it.
func ParseEvent(raw []byte) (*Event, error) {
	var e Event
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, &EventError{Reason: err.Error()}
	}
	if e.ID == "" || e.EventType == "" {
		return nil, &EventError{Reason: "id and eventType are required"}
	}
	if p := bytes.TrimSpace(e.Payload); len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		return nil, &EventError{Reason: "payload must be an object"}
	}
	return &e, nil
}

// EmployeeLinkedPayload is the payload of employee.linked.
type EmployeeLinkedPayload struct {
	InvitationID  string    `json:"invitationId"`
	ServiceUserID string    `json:"serviceUserId"`
	CompanyEmail  string    `json:"companyEmail"`
	PartnerName   string    `json:"partnerName"`
	LinkedAt      time.Time `json:"linkedAt"`
	KYCSubmitted  bool      `json:"kycSubmitted"`
}

// MoneyMovementPayload is the payload of the deposit and withdrawal events
// (employee.* and wallet.*). The spec names only userId and amount; the
// rest of the payload stays in Event.Payload.
type MoneyMovementPayload struct {
	UserID string          `json:"userId"`
	Amount decimal.Decimal `json:"amount"`
}

// CardTransactionPayload is the payload of card.transaction.created; spec:
// "amount and fee as decimal strings (parse with a decimal type, never a
// float)". Other fields stay in Event.Payload.
type CardTransactionPayload struct {
	Amount decimal.Decimal `json:"amount"`
	Fee    decimal.Decimal `json:"fee"`
}

// RawPayload is the payload of an event whose fields the spec does not
// name, or of an unknown event type, kept as JSON.
type RawPayload json.RawMessage

// Decode returns the typed payload: *EmployeeLinkedPayload,
// *MoneyMovementPayload, *CardTransactionPayload, or RawPayload for every
// other event type (unknown types included).
func (e *Event) Decode() (any, error) {
	var target any
	switch e.EventType {
	case EventEmployeeLinked:
		target = &EmployeeLinkedPayload{}
	case EventEmployeeDepositCompleted, EventEmployeeDepositFailed, EventEmployeeDepositRefunded,
		EventEmployeeWithdrawalProcessing, EventEmployeeWithdrawalCompleted, EventEmployeeWithdrawalFailed,
		EventWalletDepositCompleted, EventWalletDepositFailed, EventWalletDepositRefunded,
		EventWalletWithdrawalProcessing, EventWalletWithdrawalCompleted, EventWalletWithdrawalFailed:
		target = &MoneyMovementPayload{}
	case EventCardTransactionCreated:
		target = &CardTransactionPayload{}
	default:
		return RawPayload(bytes.Clone(e.Payload)), nil
	}
	if len(bytes.TrimSpace(e.Payload)) == 0 {
		return nil, &EventError{Reason: e.EventType + " has no payload"}
	}
	if err := json.Unmarshal(e.Payload, target); err != nil {
		return nil, &EventError{Reason: e.EventType + " payload: " + err.Error()}
	}
	return target, nil
}
