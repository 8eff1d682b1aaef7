package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/shopspring/decimal"
)

// CashOrderType is FUND (pay-in) or SEND (pay-out).
type CashOrderType string

// Cash order types.
const (
	CashFund CashOrderType = "FUND"
	CashSend CashOrderType = "SEND"
)

// CashOrderRequest is the body of both cash order creates.
type CashOrderRequest struct {
	SmartWalletID string `json:"smartWalletId"`
	// Country is ISO 3166-1 alpha-2.
	Country string          `json:"country"`
	Price   decimal.Decimal `json:"price"`
	// PriceCurrency is the fiat code of the wallet's stablecoin. spec: it
	// "must match the wallet's currency".
	PriceCurrency Fiat   `json:"priceCurrency"`
	Description   string `json:"description"`
}

// Validate checks every field.
func (r CashOrderRequest) Validate() error {
	c := newChecker()
	c.required("smartWalletId", r.SmartWalletID)
	if !isAlpha(r.Country, 2) {
		c.fail("country", "must be an ISO 3166-1 alpha-2 code")
	}
	c.positive("price", r.Price)
	if _, ok := StablecoinFor(r.PriceCurrency); !ok {
		c.fail("priceCurrency", "must be one of MXN, USD, NGN, CAD, EUR, GBP")
	}
	c.required("description", r.Description)
	c.maxLen("description", r.Description, MaxDescriptionLength)
	return c.err()
}

// CashProviderOrder is the provider's live order (fetch by id, and the
// answer to a FUND create). The field names are the provider's.
type CashProviderOrder struct {
	ID              string          `json:"id"`
	Price           decimal.Decimal `json:"price"`
	PriceCurrency   string          `json:"price_currency"`
	Description     string          `json:"description"`
	MerchantOrderID string          `json:"merchant_order_id"`
	Status          string          `json:"status"`
	// RedirectURL is where the user pays.
	RedirectURL string `json:"redirect_url"`
	ReturnURL   string `json:"return_url"`
}

// CreateCashFundOrder creates a pay-in; send the user to RedirectURL
// (POST /v1/users/{userId}/latam/cash/orders/fund).
func (c *Client) CreateCashFundOrder(ctx context.Context, userID string, req CashOrderRequest) (*CashProviderOrder, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CashProviderOrder
	if err := c.do(ctx, request{op: "CreateCashFundOrder", method: http.MethodPost, path: userPath(userID, "latam", "cash", "orders", "fund"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CashSendOrder is the answer to a SEND create: sign SignatureRequest and
// complete it with SubmitSignature.
type CashSendOrder struct {
	ID               string            `json:"id,omitempty"`
	OrderID          string            `json:"orderId,omitempty"`
	Status           string            `json:"status,omitempty"`
	SignatureRequest *SignatureRequest `json:"signatureRequest"`
}

// CreateCashSendOrder creates a pay-out
// (POST /v1/users/{userId}/latam/cash/orders/send).
func (c *Client) CreateCashSendOrder(ctx context.Context, userID string, req CashOrderRequest) (*CashSendOrder, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CashSendOrder
	if err := c.do(ctx, request{op: "CreateCashSendOrder", method: http.MethodPost, path: userPath(userID, "latam", "cash", "orders", "send"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CashOrder is an entry of ListCashOrders.
type CashOrder struct {
	ID      string        `json:"id"`
	OrderID string        `json:"orderId"`
	Type    CashOrderType `json:"type"`
	// Status is upper case, e.g. CREATED, READY, PAYMENT_STARTED; the set is
	// open.
	Status    string          `json:"status"`
	Price     decimal.Decimal `json:"price"`
	Expiry    time.Time       `json:"expiry"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
}

// ListCashOrders lists active orders of a type; completed, cancelled and
// expired orders are excluded
// (GET /v1/users/{userId}/latam/cash/orders?type=FUND|SEND).
func (c *Client) ListCashOrders(ctx context.Context, userID string, typ CashOrderType) ([]CashOrder, error) {
	if typ != CashFund && typ != CashSend {
		return nil, FieldErrors{"type": "must be FUND or SEND"}
	}
	var out []CashOrder
	if err := c.do(ctx, request{op: "ListCashOrders", method: http.MethodGet, path: userPath(userID, "latam", "cash", "orders"),
		query: url.Values{"type": {string(typ)}}}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetCashOrder returns the live provider order
// (GET /v1/users/{userId}/latam/cash/orders/{orderId}).
func (c *Client) GetCashOrder(ctx context.Context, userID, orderID string) (*CashProviderOrder, error) {
	var out CashProviderOrder
	if err := c.do(ctx, request{op: "GetCashOrder", method: http.MethodGet, path: userPath(userID, "latam", "cash", "orders", orderID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
