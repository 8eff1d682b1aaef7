package apiclient

import (
	"context"
	"net/http"
	"strings"

	"github.com/shopspring/decimal"
)

// EUROrderRequest prepares a SEPA payout to an IBAN from an EURe wallet.
// The spec shows only the path POST /eu/orders/prepare; the body is the
// simplest that can work (README).
type EUROrderRequest struct {
	SmartWalletID   string          `json:"smartWalletId"`
	Amount          decimal.Decimal `json:"amount"`
	IBAN            string          `json:"iban"`
	BeneficiaryName string          `json:"beneficiaryName"`
	Reference       string          `json:"reference,omitempty"`
}

// Validate checks every field; the IBAN is checked by its mod-97 checksum.
func (r EUROrderRequest) Validate() error {
	c := newChecker()
	c.required("smartWalletId", r.SmartWalletID)
	c.positive("amount", r.Amount)
	if !IsIBAN(r.IBAN) {
		c.fail("iban", "must be a valid IBAN")
	}
	c.required("beneficiaryName", r.BeneficiaryName)
	c.maxLen("reference", r.Reference, 140) // SEPA remittance information limit
	return c.err()
}

// IsIBAN reports whether s (spaces allowed) is an IBAN with a valid
// ISO 13616 mod-97 checksum.
func IsIBAN(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 15 || len(s) > 34 || !isAlpha(s[:2], 2) || !isDigits(s[2:4]) {
		return false
	}
	rearranged := s[4:] + s[:4]
	rem := 0
	for i := 0; i < len(rearranged); i++ {
		ch := rearranged[i]
		switch {
		case ch >= '0' && ch <= '9':
			rem = (rem*10 + int(ch-'0')) % 97
		case ch >= 'A' && ch <= 'Z':
			rem = (rem*100 + int(ch-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// EUROrder is a prepared SEPA order: sign SignatureRequest, then
// CompleteEUROrder.
type EUROrder struct {
	OrderID          string            `json:"orderId"`
	Status           string            `json:"status"`
	Amount           decimal.Decimal   `json:"amount"`
	SignatureRequest *SignatureRequest `json:"signatureRequest"`
}

// PrepareEUROrder prepares a SEPA payout
// (POST /v1/users/{userId}/eu/orders/prepare).
func (c *Client) PrepareEUROrder(ctx context.Context, userID string, req EUROrderRequest) (*EUROrder, error) {
	req.IBAN = strings.ToUpper(strings.ReplaceAll(req.IBAN, " ", ""))
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out EUROrder
	if err := c.do(ctx, request{op: "PrepareEUROrder", method: http.MethodPost, path: userPath(userID, "eu", "orders", "prepare"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CompleteEUROrderRequest carries the owner signature of the prepared
// order's hash.
type CompleteEUROrderRequest struct {
	Signature string `json:"signature"`
}

// Validate checks the signature.
func (r CompleteEUROrderRequest) Validate() error {
	c := newChecker()
	c.signature("signature", r.Signature)
	return c.err()
}

// CompleteEUROrder completes a prepared SEPA payout
// (POST /v1/users/{userId}/eu/orders/{orderId}/complete; the path is not
// shown in the spec: README).
func (c *Client) CompleteEUROrder(ctx context.Context, userID, orderID string, req CompleteEUROrderRequest) (*EUROrder, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req.Signature = normaliseSignature(req.Signature)
	var out EUROrder
	if err := c.do(ctx, request{op: "CompleteEUROrder", method: http.MethodPost, path: userPath(userID, "eu", "orders", orderID, "complete"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetEUROrder reads a SEPA order
// (GET /v1/users/{userId}/eu/orders/{orderId}). The spec shows no read of an
// EUR order; the sandbox offers this one (README), and an API without it
// answers 404, which a caller shows as "not readable".
func (c *Client) GetEUROrder(ctx context.Context, userID, orderID string) (*EUROrder, error) {
	var out EUROrder
	if err := c.do(ctx, request{op: "GetEUROrder", method: http.MethodGet, path: userPath(userID, "eu", "orders", orderID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
