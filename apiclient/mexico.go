package apiclient

import (
	"context"
	"net/http"
	"time"

	"github.com/shopspring/decimal"
)

// MexicoKYCActivation is the answer to ActivateMexicoKYC. spec: "If
// uploaded.selfie or uploaded.document is false, upload the missing file and
// activate again."
type MexicoKYCActivation struct {
	Status   string `json:"status"`
	Uploaded struct {
		Selfie   bool `json:"selfie"`
		Document bool `json:"document"`
	} `json:"uploaded"`
}

// ActivateMexicoKYC activates MXN KYC; no body in the current flow
// (POST /v1/users/{userId}/latam/mx/kyc/activate). spec: 400 when the
// profile is not approved or the RFC is missing.
func (c *Client) ActivateMexicoKYC(ctx context.Context, userID string) (*MexicoKYCActivation, error) {
	var out MexicoKYCActivation
	if err := c.do(ctx, request{op: "ActivateMexicoKYC", method: http.MethodPost, path: userPath(userID, "latam", "mx", "kyc", "activate")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// LaunchPayload is a browser form POST to the provider's hosted flow. spec:
// its assertion "expires about 5 minutes after fetching and expiresAt is a
// hard deadline": fetch it at the moment of use, never store it.
type LaunchPayload struct {
	URL    string `json:"url"`
	Method string `json:"method"`
	Fields struct {
		GrantType string `json:"grant_type"`
		Assertion string `json:"assertion"`
		Target    string `json:"target"`
	} `json:"fields"`
	// HTML auto-submits the form.
	HTML      string    `json:"html"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// GetMexicoAgreementsLaunch returns the hosted agreements and verification
// launch payload (GET /v1/users/{userId}/latam/mx/kyc/launch/agreements).
func (c *Client) GetMexicoAgreementsLaunch(ctx context.Context, userID string) (*LaunchPayload, error) {
	return c.mexicoLaunch(ctx, "GetMexicoAgreementsLaunch", userID, "agreements")
}

// GetMexicoIDVLaunch calls the deprecated alias
// (GET /v1/users/{userId}/latam/mx/kyc/launch/idv).
//
// Deprecated: spec: "launch/idv is a deprecated alias of launch/agreements;
// use launch/agreements". Use GetMexicoAgreementsLaunch.
func (c *Client) GetMexicoIDVLaunch(ctx context.Context, userID string) (*LaunchPayload, error) {
	return c.mexicoLaunch(ctx, "GetMexicoIDVLaunch", userID, "idv")
}

func (c *Client) mexicoLaunch(ctx context.Context, op, userID, which string) (*LaunchPayload, error) {
	var out LaunchPayload
	if err := c.do(ctx, request{op: op, method: http.MethodGet, path: userPath(userID, "latam", "mx", "kyc", "launch", which)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MXN KYC states of the spec.
const (
	MexicoKYCProposed                 = "proposed"
	MexicoKYCBankVerificationRequired = "bank_verification_required"
	MexicoKYCApproved                 = "approved"
	MexicoKYCApprovedChainDeploying   = "approved_chain_deploying"
	MexicoKYCRejected                 = "rejected"
)

// MexicoKYCStatus is the MXN KYC state.
type MexicoKYCStatus struct {
	Status string `json:"status"`
}

// GetMexicoKYCStatus returns the MXN KYC state
// (GET /v1/users/{userId}/latam/mx/kyc/status).
func (c *Client) GetMexicoKYCStatus(ctx context.Context, userID string) (*MexicoKYCStatus, error) {
	var out MexicoKYCStatus
	if err := c.do(ctx, request{op: "GetMexicoKYCStatus", method: http.MethodGet, path: userPath(userID, "latam", "mx", "kyc", "status")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MexicoQuoteRequest quotes an MXN offramp.
type MexicoQuoteRequest struct {
	// Type is "offramp", the only value; Validate fills it when empty.
	Type         string          `json:"type"`
	SourceAmount decimal.Decimal `json:"sourceAmount"`
	Note         string          `json:"note,omitempty"`
}

// Validate checks the type, amount and note.
func (r MexicoQuoteRequest) Validate() error {
	c := newChecker()
	if r.Type != "" {
		c.oneOf("type", r.Type, "offramp")
	}
	c.positive("sourceAmount", r.SourceAmount)
	c.maxLen("note", r.Note, MaxNoteLength)
	return c.err()
}

// MexicoQuoteAssets describes the assets of a quote.
type MexicoQuoteAssets struct {
	Type        string `json:"type"`
	SourceAsset string `json:"sourceAsset"`
	TargetAsset string `json:"targetAsset"`
}

// MexicoQuote is an MXN offramp quote, valid until ExpiresAt.
type MexicoQuote struct {
	QuoteID           string            `json:"quoteId"`
	OrderID           string            `json:"orderId"`
	Blockchain        string            `json:"blockchain"`
	QuoteAssets       MexicoQuoteAssets `json:"quoteAssets"`
	SourceAmount      decimal.Decimal   `json:"sourceAmount"`
	DestinationAmount decimal.Decimal   `json:"destinationAmount"`
	FeeBps            decimal.Decimal   `json:"feeBps"`
	FeeAmount         decimal.Decimal   `json:"feeAmount"`
	ExchangeRate      decimal.Decimal   `json:"exchangeRate"`
	ExpiresAt         time.Time         `json:"expiresAt"`
	// SignatureRequest is absent when the wallet already has enough
	// allowance. spec: then poll the order for BurnSignatureRequest, which
	// is needed "whether or not the first was present".
	SignatureRequest *SignatureRequest `json:"signatureRequest,omitempty"`
}

// CreateMexicoQuote quotes an offramp (POST /v1/users/{userId}/latam/mx/quote).
func (c *Client) CreateMexicoQuote(ctx context.Context, userID string, req MexicoQuoteRequest) (*MexicoQuote, error) {
	if req.Type == "" {
		req.Type = "offramp"
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out MexicoQuote
	if err := c.do(ctx, request{op: "CreateMexicoQuote", method: http.MethodPost, path: userPath(userID, "latam", "mx", "quote"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MXN order states of the spec.
const (
	MexicoOrderCreated   = "created"
	MexicoOrderFunded    = "funded"
	MexicoOrderCompleted = "completed"
	MexicoOrderFailed    = "failed"
	MexicoOrderRefunded  = "refunded"
	MexicoOrderCanceled  = "canceled"
)

// MexicoOrder is an MXN onramp or offramp order.
type MexicoOrder struct {
	Status string `json:"status"`
	// OrderType is onramp or offramp.
	OrderType        string          `json:"orderType"`
	DepositClabe     string          `json:"depositClabe"`
	DepositClabeName string          `json:"depositClabeName"`
	Memo             string          `json:"memo,omitempty"`
	StatusPage       string          `json:"statusPage"`
	AmountInFiat     decimal.Decimal `json:"amountInFiat"`
	AmountInTokens   decimal.Decimal `json:"amountInTokens"`
	// BurnSignatureRequest appears on an offramp when the burn must be
	// signed.
	BurnSignatureRequest *SignatureRequest `json:"burnSignatureRequest,omitempty"`
}

// GetMexicoOrder returns an order (GET /v1/users/{userId}/latam/mx/orders/{orderId}).
func (c *Client) GetMexicoOrder(ctx context.Context, userID, orderID string) (*MexicoOrder, error) {
	var out MexicoOrder
	if err := c.do(ctx, request{op: "GetMexicoOrder", method: http.MethodGet, path: userPath(userID, "latam", "mx", "orders", orderID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
