package views

import (
	"time"

	"github.com/shopspring/decimal"
)

// CashView is the LATAM cash page: a pay-in form, a pay-out form and the
// active orders.
type CashView struct {
	Wallets     []Choice
	Countries   []string
	Fund, Send  CashForm
	Orders      []CashOrderRow
	OrdersError string
	Error       string // the API's refusal or an unknown outcome
}

// CashForm is one cash order form as typed, with its one-time token.
type CashForm struct {
	Type          string // "fund" or "send"
	Token         string
	WalletID      string
	Country       string
	Price         string
	PriceCurrency string
	Description   string
	Fields        FieldErrors
}

// CashOrderRow is an active order.
type CashOrderRow struct {
	ID, Type, Status, Price string
	// OrderID is the provider's id of the order.
	OrderID string
	// Currency is the fiat code of the price, as the app recorded it when
	// it created the order; "" for an order created outside the app.
	Currency string
	// PriceValue is the price as the API gave it, for the CSV (Price is
	// it as shown, grouped in thousands).
	PriceValue        decimal.Decimal
	Expiry, CreatedAt time.Time
}

// CashResult is a created order: where the payer pays (fund) or the owner's
// signing panel (send).
type CashResult struct {
	Type, OrderID, Status, Price string
	RedirectURL                  string
	Sign                         *SignPanel
	Note                         string
}

// CashOrderView is one order as the provider has it now.
type CashOrderView struct {
	// Back is the way back to the LATAM cash page.
	Back                           string
	ID, Status, Price, Description string
	RedirectURL                    string
	Live                           bool
	Error                          string
}
