package apiclient

import (
	"context"
	"net/http"
	"time"

	"partneradmin/apiclient/ethsig"

	"github.com/shopspring/decimal"
)

// SignatureRequest is what a rail (payout, crypto withdrawal, MXN and cash
// orders) returns when the owner key must sign before it proceeds. Sign
// HashToSign raw (ethsig.Sign) and complete it with SubmitSignature.
type SignatureRequest struct {
	WorkflowID  string    `json:"workflowId"`
	HashToSign  string    `json:"hashToSign"`
	Deadline    time.Time `json:"deadline"`
	WalletIndex int       `json:"walletIndex"`
}

// Hash parses HashToSign.
func (s *SignatureRequest) Hash() (ethsig.Hash, error) { return ethsig.ParseHash(s.HashToSign) }

// SubmitSignatureRequest completes a workflow that returned a
// SignatureRequest.
type SubmitSignatureRequest struct {
	WorkflowID string `json:"workflowId"`
	// Signature is 0x plus 130 hex characters; v of 0/1 is normalised.
	Signature string `json:"signature"`
}

// Validate checks the workflow id and signature.
func (r SubmitSignatureRequest) Validate() error {
	c := newChecker()
	c.required("workflowId", r.WorkflowID)
	c.signature("signature", r.Signature)
	return c.err()
}

// SubmitSignatureResult is the answer to SubmitSignature (not shown in the
// spec; README).
type SubmitSignatureResult struct {
	WorkflowID string `json:"workflowId"`
	Status     string `json:"status"`
}

// SubmitSignature completes payouts, orders and withdrawals that returned a
// signatureRequest (POST /v1/users/{userId}/wallets/submit-signature).
func (c *Client) SubmitSignature(ctx context.Context, userID string, req SubmitSignatureRequest) (*SubmitSignatureResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req.Signature = normaliseSignature(req.Signature)
	var out SubmitSignatureResult
	if err := c.do(ctx, request{op: "SubmitSignature", method: http.MethodPost, path: userPath(userID, "wallets", "submit-signature"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ExchangeQuoteRequest asks for a firm, time-boxed quote between wallet
// currencies (body not shown in the spec; README).
type ExchangeQuoteRequest struct {
	FromCurrency Stablecoin      `json:"fromCurrency"`
	ToCurrency   Stablecoin      `json:"toCurrency"`
	Amount       decimal.Decimal `json:"amount"`
}

// Validate checks the currencies and amount.
func (r ExchangeQuoteRequest) Validate() error {
	c := newChecker()
	c.stablecoin("fromCurrency", r.FromCurrency)
	c.stablecoin("toCurrency", r.ToCurrency)
	if r.FromCurrency != "" && r.FromCurrency == r.ToCurrency {
		c.fail("toCurrency", "must differ from fromCurrency")
	}
	c.positive("amount", r.Amount)
	return c.err()
}

// ExchangeQuote is a firm quote valid until ExpiresAt.
type ExchangeQuote struct {
	QuoteID      string          `json:"quoteId"`
	FromCurrency Stablecoin      `json:"fromCurrency"`
	ToCurrency   Stablecoin      `json:"toCurrency"`
	FromAmount   decimal.Decimal `json:"fromAmount"`
	ToAmount     decimal.Decimal `json:"toAmount"`
	ExchangeRate decimal.Decimal `json:"exchangeRate"`
	ExpiresAt    time.Time       `json:"expiresAt"`
}

// CreateExchangeQuote asks for a quote (POST /v1/users/{userId}/exchange/quote).
func (c *Client) CreateExchangeQuote(ctx context.Context, userID string, req ExchangeQuoteRequest) (*ExchangeQuote, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out ExchangeQuote
	if err := c.do(ctx, request{op: "CreateExchangeQuote", method: http.MethodPost, path: userPath(userID, "exchange", "quote"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ConvertRequest converts between wallet currencies outside the proposal
// flow, or previews the conversion when Preview is set (body not shown in
// the spec; README).
type ConvertRequest struct {
	FromCurrency Stablecoin      `json:"fromCurrency"`
	ToCurrency   Stablecoin      `json:"toCurrency"`
	Amount       decimal.Decimal `json:"amount"`
	// QuoteID executes at a quote from CreateExchangeQuote.
	QuoteID string `json:"quoteId,omitempty"`
	Preview bool   `json:"preview,omitempty"`
}

// Validate checks the currencies and amount.
func (r ConvertRequest) Validate() error {
	return ExchangeQuoteRequest{FromCurrency: r.FromCurrency, ToCurrency: r.ToCurrency, Amount: r.Amount}.Validate()
}

// Conversion is the result (or preview) of Convert.
type Conversion struct {
	FromCurrency Stablecoin      `json:"fromCurrency"`
	ToCurrency   Stablecoin      `json:"toCurrency"`
	FromAmount   decimal.Decimal `json:"fromAmount"`
	ToAmount     decimal.Decimal `json:"toAmount"`
	ExchangeRate decimal.Decimal `json:"exchangeRate"`
	Preview      bool            `json:"preview"`
	Status       string          `json:"status,omitempty"`
	// SignatureRequest is set when the conversion needs the owner key.
	SignatureRequest *SignatureRequest `json:"signatureRequest,omitempty"`
}

// Convert converts or previews (POST /v1/users/{userId}/exchange/convert).
func (c *Client) Convert(ctx context.Context, userID string, req ConvertRequest) (*Conversion, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out Conversion
	if err := c.do(ctx, request{op: "Convert", method: http.MethodPost, path: userPath(userID, "exchange", "convert"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
