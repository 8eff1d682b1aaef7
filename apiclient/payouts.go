package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// PayoutCountry is a country the bank payout rail reaches.
type PayoutCountry struct {
	// Code is ISO 3166-1 alpha-3.
	Code       string   `json:"code"`
	Name       string   `json:"name"`
	Currencies []string `json:"currencies"`
}

// ListPayoutCountries lists payout countries
// (GET /v1/users/{userId}/payouts/countries).
func (c *Client) ListPayoutCountries(ctx context.Context, userID string) ([]PayoutCountry, error) {
	var out []PayoutCountry
	if err := c.do(ctx, request{op: "ListPayoutCountries", method: http.MethodGet, path: userPath(userID, "payouts", "countries")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// PayoutBank is a bank of a payout country.
type PayoutBank struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ListPayoutBanks lists the banks of a country (ISO alpha-3)
// (GET /v1/users/{userId}/payouts/banks?country=...).
func (c *Client) ListPayoutBanks(ctx context.Context, userID, country string) ([]PayoutBank, error) {
	if !isAlpha(country, 3) {
		return nil, FieldErrors{"country": "must be an ISO 3166-1 alpha-3 code"}
	}
	var out []PayoutBank
	if err := c.do(ctx, request{op: "ListPayoutBanks", method: http.MethodGet, path: userPath(userID, "payouts", "banks"),
		query: url.Values{"country": {strings.ToUpper(country)}}}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// PayoutBankBranch is a branch of a payout bank.
type PayoutBankBranch struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ListPayoutBankBranches lists a bank's branches; an empty list means no
// branch is needed (GET /v1/users/{userId}/payouts/bank-branches?bankId=...).
func (c *Client) ListPayoutBankBranches(ctx context.Context, userID, bankID string) ([]PayoutBankBranch, error) {
	var out []PayoutBankBranch
	if err := c.do(ctx, request{op: "ListPayoutBankBranches", method: http.MethodGet, path: userPath(userID, "payouts", "bank-branches"),
		query: url.Values{"bankId": {bankID}}}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ValidatePayoutAccountRequest checks a destination account.
type ValidatePayoutAccountRequest struct {
	Country       string `json:"country"`
	Currency      string `json:"currency"`
	BankID        string `json:"bankId"`
	AccountNumber string `json:"accountNumber"`
	RoutingNumber string `json:"routingNumber,omitempty"`
}

// Validate checks the required fields.
func (r ValidatePayoutAccountRequest) Validate() error {
	c := newChecker()
	if !isAlpha(r.Country, 3) {
		c.fail("country", "must be an ISO 3166-1 alpha-3 code")
	}
	if !isAlpha(r.Currency, 3) {
		c.fail("currency", "must be an ISO 4217 code")
	}
	c.required("bankId", r.BankID)
	c.required("accountNumber", r.AccountNumber)
	return c.err()
}

// PayoutAccountValidation is the result of ValidatePayoutAccount (not shown
// in the spec; README).
type PayoutAccountValidation struct {
	Valid             bool   `json:"valid"`
	AccountHolderName string `json:"accountHolderName,omitempty"`
	Message           string `json:"message,omitempty"`
}

// ValidatePayoutAccount checks an account before a payout
// (POST /v1/users/{userId}/payouts/validate-account).
func (c *Client) ValidatePayoutAccount(ctx context.Context, userID string, req ValidatePayoutAccountRequest) (*PayoutAccountValidation, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out PayoutAccountValidation
	if err := c.do(ctx, request{op: "ValidatePayoutAccount", method: http.MethodPost, path: userPath(userID, "payouts", "validate-account"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PayoutBankDetails is the destination of a payout.
type PayoutBankDetails struct {
	BankID            string `json:"bankId"`
	AccountNumber     string `json:"accountNumber"`
	AccountHolderName string `json:"accountHolderName"`
	BranchID          string `json:"branchId,omitempty"`
	// AccountType such as savings or checking.
	AccountType   string `json:"accountType,omitempty"`
	RoutingNumber string `json:"routingNumber,omitempty"`
	SwiftCode     string `json:"swiftCode,omitempty"`
}

// PayoutRequest pays out from a USDB wallet to a bank account.
type PayoutRequest struct {
	SourceSmartWalletID string `json:"sourceSmartWalletId"`
	// Amount is in USDB minor units. spec: "string in USDB minor units (not
	// a decimal amount)"; MinorUnits keeps it from being mixed up with a
	// decimal amount.
	Amount MinorUnits `json:"amount"`
	// Country is ISO alpha-3, Currency ISO 4217.
	Country     string            `json:"country"`
	Currency    string            `json:"currency"`
	BankDetails PayoutBankDetails `json:"bankDetails"`
	// Note is at most 500 characters.
	Note string `json:"note,omitempty"`
}

// Validate checks every field.
func (r PayoutRequest) Validate() error {
	c := newChecker()
	c.required("sourceSmartWalletId", r.SourceSmartWalletID)
	if !r.Amount.IsPositive() {
		c.fail("amount", "must be a positive number of minor units")
	}
	if !isAlpha(r.Country, 3) {
		c.fail("country", "must be an ISO 3166-1 alpha-3 code")
	}
	if !isAlpha(r.Currency, 3) {
		c.fail("currency", "must be an ISO 4217 code")
	}
	c.required("bankDetails.bankId", r.BankDetails.BankID)
	c.required("bankDetails.accountNumber", r.BankDetails.AccountNumber)
	c.required("bankDetails.accountHolderName", r.BankDetails.AccountHolderName)
	c.maxLen("note", r.Note, MaxNoteLength)
	return c.err()
}

// PayoutQuote prices a payout (fields not shown in the spec; README).
type PayoutQuote struct {
	SourceCurrency      Stablecoin      `json:"sourceCurrency"`
	SourceAmount        decimal.Decimal `json:"sourceAmount"`
	DestinationCurrency string          `json:"destinationCurrency"`
	DestinationAmount   decimal.Decimal `json:"destinationAmount"`
	ExchangeRate        decimal.Decimal `json:"exchangeRate"`
	FeeAmount           decimal.Decimal `json:"feeAmount"`
	ExpiresAt           time.Time       `json:"expiresAt"`
}

// Payout is the answer to CreatePayout: sign SignatureRequest and complete
// it with SubmitSignature.
type Payout struct {
	ID               string            `json:"id,omitempty"`
	SignatureRequest *SignatureRequest `json:"signatureRequest"`
	Quote            *PayoutQuote      `json:"quote"`
}

// CreatePayout starts a bank payout (POST /v1/users/{userId}/payouts).
func (c *Client) CreatePayout(ctx context.Context, userID string, req PayoutRequest) (*Payout, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out Payout
	if err := c.do(ctx, request{op: "CreatePayout", method: http.MethodPost, path: userPath(userID, "payouts"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
