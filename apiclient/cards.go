package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// CardStatus is a card's status. Issuer-reported values are read
// case-insensitively and the set is open; compare with Is.
type CardStatus string

// Card statuses. Only CardBlocked and CardActive may be set by the partner,
// and they are upper case and case-sensitive.
const (
	CardBlocked CardStatus = "BLOCKED"
	CardActive  CardStatus = "ACTIVE"
	// CardReserved: requested, not yet issued (IsReserved is true).
	CardReserved CardStatus = "RESERVED"
	CardPending  CardStatus = "pending"
	CardInactive CardStatus = "inactive"
	CardFrozen   CardStatus = "frozen"
	CardLost     CardStatus = "lost"
	CardStolen   CardStatus = "stolen"
)

// Is compares statuses ignoring case. spec: issuer statuses are "read
// case-insensitively".
func (s CardStatus) Is(other CardStatus) bool { return strings.EqualFold(string(s), string(other)) }

// Card is a card of a wallet, or a reserved entry whose ID is the issuance
// proposal id.
type Card struct {
	ID     string     `json:"id"`
	Status CardStatus `json:"status"`
	// Currency is NGN or USD.
	Currency Fiat `json:"currency"`
	// Type is physical or virtual.
	Type string `json:"type"`
	// FundingPolicy is SAFE, PERSONAL or BOTH.
	FundingPolicy string `json:"fundingPolicy,omitempty"`
	// FundLifecycle is ONE_TIME or REPEATABLE.
	FundLifecycle string `json:"fundLifecycle,omitempty"`
	// FundedAt is nil until first funded.
	FundedAt *time.Time `json:"fundedAt,omitempty"`
	// The reserved-entry fields.
	IsReserved     bool           `json:"isReserved,omitempty"`
	ProposalID     string         `json:"proposalId,omitempty"`
	ProposalStatus ProposalStatus `json:"proposalStatus,omitempty"`
	CardName       string         `json:"cardName,omitempty"`
	CardColor      string         `json:"cardColor,omitempty"`
	// Last4, SmartWalletID, Activated and CreatedAt are reported by the
	// sandbox; the spec does not name them.
	Last4         string    `json:"last4,omitempty"`
	SmartWalletID string    `json:"smartWalletId,omitempty"`
	Activated     bool      `json:"activated,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
}

// CardLedgerEntry is an entry of a card's ledger. Only amount is named by
// the spec; the rest is README's decision.
type CardLedgerEntry struct {
	ID string `json:"id"`
	// Amount is in minor units (a string of digits, signed for debits).
	Amount      MinorUnits `json:"amount"`
	Currency    Fiat       `json:"currency,omitempty"`
	Type        string     `json:"type,omitempty"`
	Description string     `json:"description,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
}

// CardDetail is a card with its balance and ledger (most recent 100
// entries, newest first).
type CardDetail struct {
	Card
	BalanceMinor MinorUnits        `json:"balanceMinor"`
	Ledger       []CardLedgerEntry `json:"ledger"`
}

// CreateCardRequest requests a card.
type CreateCardRequest struct {
	// CardName is 1 to 50 characters.
	CardName string `json:"cardName"`
	// CardColor is #RGB or #RRGGBB.
	CardColor string `json:"cardColor"`
	// Currency is NGN or USD.
	Currency Fiat `json:"currency"`
	// Type is virtual or physical.
	Type          string `json:"type"`
	SmartWalletID string `json:"smartWalletId"`
	// NIN is the 11-digit Nigerian NIN, required the first time an owner is
	// issued a card (else 400 E101 "not enrolled for cards").
	NIN string `json:"nin,omitempty"`
	// State is the Nigerian state for delivery.
	State string `json:"state,omitempty"`
	// Physical delivery; the phone accepts a +234, 234 or 0 prefix.
	DeliveryAddress     string `json:"deliveryAddress,omitempty"`
	DeliveryState       string `json:"deliveryState,omitempty"`
	DeliveryPhoneNumber string `json:"deliveryPhoneNumber,omitempty"`
	// PAN of an existing physical card, 13 to 19 digits; skips delivery.
	PAN string `json:"pan,omitempty"`
	// OTPChannel is sms or email.
	OTPChannel string `json:"otpChannel,omitempty"`
	// NINIssueDate and NINExpiryDate are accepted but unused upstream.
	NINIssueDate  string `json:"ninIssueDate,omitempty"`
	NINExpiryDate string `json:"ninExpiryDate,omitempty"`
	// FundingPolicy (SAFE, PERSONAL or BOTH) and FundLifecycle (ONE_TIME or
	// REPEATABLE) are card fields of the spec that the create table does not
	// list; the sandbox accepts them and defaults to SAFE and REPEATABLE.
	FundingPolicy string `json:"fundingPolicy,omitempty"`
	FundLifecycle string `json:"fundLifecycle,omitempty"`
}

// Validate applies the create-card rules and limits.
func (r CreateCardRequest) Validate() error {
	c := newChecker()
	if n := utf8.RuneCountInString(strings.TrimSpace(r.CardName)); n < 1 || n > MaxCardNameLength {
		c.fail("cardName", "must be 1 to %d characters", MaxCardNameLength)
	}
	if !IsCardColor(r.CardColor) {
		c.fail("cardColor", "must be a hex colour, #RGB or #RRGGBB")
	}
	c.oneOf("currency", string(r.Currency), string(NGN), string(USD))
	c.oneOf("type", r.Type, "virtual", "physical")
	c.required("smartWalletId", r.SmartWalletID)
	if r.NIN != "" {
		c.nin("nin", r.NIN)
	}
	if r.PAN != "" {
		if p := strings.TrimSpace(r.PAN); len(p) < 13 || len(p) > 19 || !isDigits(p) {
			c.fail("pan", "must be 13 to 19 digits")
		}
		if r.Type == "virtual" {
			c.fail("pan", "applies only to an existing physical card")
		}
	}
	if r.DeliveryPhoneNumber != "" && !isNigerianPhone(r.DeliveryPhoneNumber) {
		c.fail("deliveryPhoneNumber", "must be a Nigerian number starting +234, 234 or 0")
	}
	if r.OTPChannel != "" {
		c.oneOf("otpChannel", r.OTPChannel, "sms", "email")
	}
	if r.FundingPolicy != "" {
		c.oneOf("fundingPolicy", r.FundingPolicy, "SAFE", "PERSONAL", "BOTH")
	}
	if r.FundLifecycle != "" {
		c.oneOf("fundLifecycle", r.FundLifecycle, "ONE_TIME", "REPEATABLE")
	}
	return c.err()
}

// isNigerianPhone accepts +234, 234 or 0 followed by a 10-digit number.
func isNigerianPhone(s string) bool {
	s = strings.NewReplacer(" ", "", "-", "").Replace(s)
	for _, p := range []string{"+234", "234", "0"} {
		if rest, ok := strings.CutPrefix(s, p); ok && len(rest) == 10 && isDigits(rest) {
			return true
		}
	}
	return false
}

// CardIssuance is the answer to CreateCard: the issuance proposal and,
// when ready, its sign payload. spec: "when signPayloadPending is true, poll
// the sign-payload endpoint first."
type CardIssuance struct {
	// Flow is "group" for partners.
	Flow string `json:"flow"`
	// FeeAmount in FeeCurrency is the creation fee charged to the wallet.
	FeeAmount          decimal.Decimal `json:"feeAmount"`
	FeeCurrency        string          `json:"feeCurrency"`
	ProposalID         string          `json:"proposalId"`
	ProposalStatus     ProposalStatus  `json:"proposalStatus"`
	SignPayload        *SignPayload    `json:"signPayload,omitempty"`
	SignPayloadPending bool            `json:"signPayloadPending,omitempty"`
	SignPayloadHint    string          `json:"signPayloadHint,omitempty"`
	SignPayloadError   string          `json:"signPayloadError,omitempty"`
	// MigrationRequired is set for legacy wallets, with a hint to follow.
	MigrationRequired bool   `json:"migrationRequired,omitempty"`
	MigrationHint     string `json:"migrationHint,omitempty"`
}

// CreateCard requests a card (POST /v1/users/{userId}/cards). Sign the
// SignPayload with the owner key and submit it with SignProposal. A 409 from
// this route means the sign payload is not ready (IsNotReady).
func (c *Client) CreateCard(ctx context.Context, userID string, req CreateCardRequest) (*CardIssuance, error) {
	req.NIN, req.PAN = trim(req.NIN), trim(req.PAN)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CardIssuance
	if err := c.do(ctx, request{op: opCreateCard, method: http.MethodPost, path: userPath(userID, "cards"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetCardSignPayload polls the card issuance route of the sign payload
// (GET /v1/users/{userId}/cards/{proposalId}/sign-payload, the sandbox's
// reading of the spec's "409 on the card issuance route"). While the payload
// is not ready it fails with an error for which IsNotReady is true. Sign the
// payload and submit it with SignProposal.
func (c *Client) GetCardSignPayload(ctx context.Context, userID, proposalID string) (*SignPayload, error) {
	var out SignPayload
	if err := c.do(ctx, request{op: opGetCardSignPayload, method: http.MethodGet, path: userPath(userID, "cards", proposalID, "sign-payload")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListCards lists a wallet's cards, reserved entries included
// (GET /v1/users/{userId}/smart-wallets/{smartWalletId}/cards).
func (c *Client) ListCards(ctx context.Context, userID, walletID string) ([]Card, error) {
	var out []Card
	if err := c.do(ctx, request{op: "ListCards", method: http.MethodGet, path: userPath(userID, "smart-wallets", walletID, "cards")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetWalletCard returns a card with its balance and ledger
// (GET /v1/users/{userId}/smart-wallets/{smartWalletId}/cards/{cardId}).
func (c *Client) GetWalletCard(ctx context.Context, userID, walletID, cardID string) (*CardDetail, error) {
	var out CardDetail
	if err := c.do(ctx, request{op: "GetWalletCard", method: http.MethodGet, path: userPath(userID, "smart-wallets", walletID, "cards", cardID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CardIdentity is the provider's identity of a card, the input of
// GetCardSensitiveData (shape not shown in the spec; README).
type CardIdentity struct {
	IdentityID string `json:"identityId"`
	CardID     string `json:"cardId"`
}

// GetCardIdentity returns the provider card identity
// (GET /v1/users/{userId}/smart-wallets/{smartWalletId}/cards/{cardId}/sensitive).
func (c *Client) GetCardIdentity(ctx context.Context, userID, walletID, cardID string) (*CardIdentity, error) {
	var out CardIdentity
	if err := c.do(ctx, request{op: "GetCardIdentity", method: http.MethodGet, path: userPath(userID, "smart-wallets", walletID, "cards", cardID, "sensitive")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CardBillingAddress is the billing address of card sensitive data.
type CardBillingAddress struct {
	Line1      string `json:"line1"`
	City       string `json:"city"`
	State      string `json:"state"`
	PostalCode string `json:"postalCode"`
	Country    string `json:"country"`
}

// CardSensitiveData is the unmasked card. spec: "never log or cache".
// Its String, GoString and LogValue print nothing sensitive, so an
// accidental log line or %v does not leak it.
type CardSensitiveData struct {
	PAN            string             `json:"pan"`
	CVV            string             `json:"cvv"`
	Expiry         string             `json:"expiry"`
	BillingAddress CardBillingAddress `json:"billingAddress"`
}

// String redacts everything.
func (CardSensitiveData) String() string { return "apiclient.CardSensitiveData{[redacted]}" }

// GoString redacts everything.
func (d CardSensitiveData) GoString() string { return d.String() }

// Format redacts everything for every verb.
func (d CardSensitiveData) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(d.String())) }

// LogValue redacts everything.
func (CardSensitiveData) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// CardSensitiveDataRequest identifies the card.
type CardSensitiveDataRequest struct {
	IdentityID string `json:"identityId"`
	CardID     string `json:"cardId"`
}

// GetCardSensitiveData returns PAN, CVV, expiry and billing address
// (POST /v1/users/{userId}/cards/sensitive-data). Never log or cache it.
func (c *Client) GetCardSensitiveData(ctx context.Context, userID string, req CardSensitiveDataRequest) (*CardSensitiveData, error) {
	ch := newChecker()
	ch.required("identityId", req.IdentityID)
	ch.required("cardId", req.CardID)
	if err := ch.err(); err != nil {
		return nil, err
	}
	var out CardSensitiveData
	if err := c.do(ctx, request{op: "GetCardSensitiveData", method: http.MethodPost, path: userPath(userID, "cards", "sensitive-data"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetCard returns a card; spec: "the only call that reports a live card's
// status" (GET /v1/users/{userId}/cards/{cardId}).
func (c *Client) GetCard(ctx context.Context, userID, cardID string) (*Card, error) {
	var out Card
	if err := c.do(ctx, request{op: "GetCard", method: http.MethodGet, path: userPath(userID, "cards", cardID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CardActivationRequest asks for an activation one-time code for a physical
// card.
type CardActivationRequest struct {
	// Channel is sms or email.
	Channel string `json:"channel"`
	PAN     string `json:"pan,omitempty"`
}

// Validate checks the channel and PAN.
func (r CardActivationRequest) Validate() error {
	c := newChecker()
	c.oneOf("channel", r.Channel, "sms", "email")
	if p := strings.TrimSpace(r.PAN); p != "" && (len(p) < 13 || len(p) > 19 || !isDigits(p)) {
		c.fail("pan", "must be 13 to 19 digits")
	}
	return c.err()
}

// CardActivationChallenge identifies the code sent to the user.
type CardActivationChallenge struct {
	OTPID            string `json:"otpId"`
	ExpiresInMinutes int    `json:"expiresInMinutes"`
}

// RequestCardActivation sends an activation code
// (POST /v1/users/{userId}/cards/{cardId}/activate/request). Virtual cards
// need no activation.
func (c *Client) RequestCardActivation(ctx context.Context, userID, cardID string, req CardActivationRequest) (*CardActivationChallenge, error) {
	req.PAN = trim(req.PAN)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CardActivationChallenge
	if err := c.do(ctx, request{op: "RequestCardActivation", method: http.MethodPost, path: userPath(userID, "cards", cardID, "activate", "request"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ConfirmCardActivationRequest carries the code the user received.
type ConfirmCardActivationRequest struct {
	OTPID string `json:"otpId"`
	// Code is exactly 6 digits.
	Code string `json:"code"`
}

// Validate checks the id and code.
func (r ConfirmCardActivationRequest) Validate() error {
	c := newChecker()
	c.required("otpId", r.OTPID)
	c.digits("code", r.Code, 6, "activation code")
	return c.err()
}

// ConfirmCardActivation activates a physical card
// (POST /v1/users/{userId}/cards/{cardId}/activate/confirm).
func (c *Client) ConfirmCardActivation(ctx context.Context, userID, cardID string, req ConfirmCardActivationRequest) error {
	req.Code = trim(req.Code)
	if err := req.Validate(); err != nil {
		return err
	}
	return c.do(ctx, request{op: "ConfirmCardActivation", method: http.MethodPost, path: userPath(userID, "cards", cardID, "activate", "confirm"), body: req}, nil)
}

// SetCardStatusRequest freezes or unfreezes a card.
type SetCardStatusRequest struct {
	// Status is BLOCKED (freeze) or ACTIVE (unfreeze a frozen card; it does
	// not activate a never-activated card). Case-sensitive.
	Status CardStatus `json:"status"`
}

// Validate allows only BLOCKED and ACTIVE. spec: "Any other value gets 400
// before it leaves the service."
func (r SetCardStatusRequest) Validate() error {
	c := newChecker()
	c.oneOf("status", string(r.Status), string(CardBlocked), string(CardActive))
	return c.err()
}

// SetCardStatus freezes or unfreezes a card
// (PUT /v1/users/{userId}/cards/{cardId}/status). A transition the issuer
// refuses is a 500 "The current status does not allow it": read the status
// with GetCard rather than retrying.
func (c *Client) SetCardStatus(ctx context.Context, userID, cardID string, req SetCardStatusRequest) error {
	if err := req.Validate(); err != nil {
		return err
	}
	return c.do(ctx, request{op: "SetCardStatus", method: http.MethodPut, path: userPath(userID, "cards", cardID, "status"), body: req}, nil)
}

// CardPINRequest sets or resets a PIN.
type CardPINRequest struct {
	// PIN is exactly 4 digits.
	PIN string `json:"pin"`
}

// Validate checks the PIN.
func (r CardPINRequest) Validate() error {
	c := newChecker()
	if len(r.PIN) != 4 || !isDigits(r.PIN) {
		c.fail("pin", "PIN must be exactly 4 digits")
	}
	return c.err()
}

// SetCardPIN sets the PIN (PUT /v1/users/{userId}/cards/{cardId}/pin).
func (c *Client) SetCardPIN(ctx context.Context, userID, cardID string, req CardPINRequest) error {
	if err := req.Validate(); err != nil {
		return err
	}
	return c.do(ctx, request{op: "SetCardPIN", method: http.MethodPut, path: userPath(userID, "cards", cardID, "pin"), body: req}, nil)
}

// ResetCardPIN resets the PIN (POST /v1/users/{userId}/cards/{cardId}/reset).
func (c *Client) ResetCardPIN(ctx context.Context, userID, cardID string, req CardPINRequest) error {
	if err := req.Validate(); err != nil {
		return err
	}
	return c.do(ctx, request{op: "ResetCardPIN", method: http.MethodPost, path: userPath(userID, "cards", cardID, "reset"), body: req}, nil)
}

// CardLimits are a card's spending limits and the provider caps, in major
// units of the card currency (JSON numbers).
type CardLimits struct {
	TotalDailyLimit            DecimalNumber `json:"totalDailyLimit"`
	MaxSingleTransactionAmount DecimalNumber `json:"maxSingleTransactionAmount"`
	AvailableDailyLimit        DecimalNumber `json:"availableDailyLimit"`
	// MaxTotalDailyLimit and MaxSingleTransactionLimitCap are the provider
	// caps; spec: "read before setting limits".
	MaxTotalDailyLimit           DecimalNumber `json:"maxTotalDailyLimit"`
	MaxSingleTransactionLimitCap DecimalNumber `json:"maxSingleTransactionLimitCap"`
	Currency                     Fiat          `json:"currency,omitempty"`
}

// GetCardLimits returns limits and caps
// (GET /v1/users/{userId}/cards/{cardId}/limits).
func (c *Client) GetCardLimits(ctx context.Context, userID, cardID string) (*CardLimits, error) {
	var out CardLimits
	if err := c.do(ctx, request{op: "GetCardLimits", method: http.MethodGet, path: userPath(userID, "cards", cardID, "limits")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetCardLimitsRequest sets the limits, sent as JSON numbers.
type SetCardLimitsRequest struct {
	TotalDailyLimit            DecimalNumber `json:"totalDailyLimit"`
	MaxSingleTransactionAmount DecimalNumber `json:"maxSingleTransactionAmount"`
	// Caps, when set (from GetCardLimits), lets Validate check the provider
	// caps before sending. It is not sent.
	Caps *CardLimits `json:"-"`
}

// Validate checks the limits are positive, consistent and within the caps.
func (r SetCardLimitsRequest) Validate() error {
	c := newChecker()
	c.positive("totalDailyLimit", r.TotalDailyLimit.Decimal)
	c.positive("maxSingleTransactionAmount", r.MaxSingleTransactionAmount.Decimal)
	if r.MaxSingleTransactionAmount.GreaterThan(r.TotalDailyLimit.Decimal) {
		c.fail("maxSingleTransactionAmount", "must not exceed totalDailyLimit")
	}
	if r.Caps != nil {
		if capTotal := r.Caps.MaxTotalDailyLimit.Decimal; capTotal.IsPositive() && r.TotalDailyLimit.GreaterThan(capTotal) {
			c.fail("totalDailyLimit", "must not exceed the provider cap of %s", capTotal)
		}
		if capSingle := r.Caps.MaxSingleTransactionLimitCap.Decimal; capSingle.IsPositive() && r.MaxSingleTransactionAmount.GreaterThan(capSingle) {
			c.fail("maxSingleTransactionAmount", "must not exceed the provider cap of %s", capSingle)
		}
	}
	return c.err()
}

// SetCardLimits sets the limits (PUT /v1/users/{userId}/cards/{cardId}/set-limit).
func (c *Client) SetCardLimits(ctx context.Context, userID, cardID string, req SetCardLimitsRequest) error {
	if err := req.Validate(); err != nil {
		return err
	}
	return c.do(ctx, request{op: "SetCardLimits", method: http.MethodPut, path: userPath(userID, "cards", cardID, "set-limit"), body: req}, nil)
}

// CardTransaction is a card spend. Amount is in major units, decoded from a
// JSON number without float64; spec: it and ledger minor units "must not be
// mixed".
type CardTransaction struct {
	ID           string        `json:"id"`
	Amount       DecimalNumber `json:"amount"`
	Fee          DecimalNumber `json:"fee"`
	Currency     Fiat          `json:"currency"`
	Status       string        `json:"status"`
	MerchantName string        `json:"merchantName"`
	CreatedAt    time.Time     `json:"createdAt"`
}

// CardTransactionQuery filters ListCardTransactions; zero fields are not
// sent.
type CardTransactionQuery struct {
	Size int
	// Status such as COMPLETED.
	Status string
	// From and To are sent as dates (YYYY-MM-DD).
	From, To time.Time
}

func (q CardTransactionQuery) values() url.Values {
	v := url.Values{}
	if q.Size > 0 {
		v.Set("size", strconv.Itoa(q.Size))
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if !q.From.IsZero() {
		v.Set("from", q.From.Format(time.DateOnly))
	}
	if !q.To.IsZero() {
		v.Set("to", q.To.Format(time.DateOnly))
	}
	return v
}

// CardTransactions is a page of transactions.
type CardTransactions struct {
	Transactions []CardTransaction `json:"data"`
	Size         int               `json:"size"`
}

// ListCardTransactions lists transactions
// (GET /v1/users/{userId}/cards/{cardId}/transactions?size=&status=&from=&to=).
func (c *Client) ListCardTransactions(ctx context.Context, userID, cardID string, q CardTransactionQuery) (*CardTransactions, error) {
	if !q.From.IsZero() && !q.To.IsZero() && q.To.Before(q.From) {
		return nil, FieldErrors{"to": "must not be before from"}
	}
	req := request{op: "ListCardTransactions", method: http.MethodGet, path: userPath(userID, "cards", cardID, "transactions"), query: q.values()}
	// Not unwrapped: the page's size sits beside data.
	raw, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	var out CardTransactions
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
		// A bare list (no envelope) carries no size; report its length.
		err = json.Unmarshal(trimmed, &out.Transactions)
		out.Size = len(out.Transactions)
	} else {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		return nil, fmt.Errorf("apiclient: %s %s: decode response: %w", req.method, req.path.logged, err)
	}
	return &out, nil
}

// DeactivateCard cancels a card permanently
// (PUT /v1/users/{userId}/cards/{cardId}/deactivate).
func (c *Client) DeactivateCard(ctx context.Context, userID, cardID string) error {
	return c.do(ctx, request{op: "DeactivateCard", method: http.MethodPut, path: userPath(userID, "cards", cardID, "deactivate")}, nil)
}
