package apiclient

import (
	"context"
	"net/http"

	"github.com/shopspring/decimal"
)

// NigerianBank is a bank that NGN withdrawals can reach.
type NigerianBank struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

// ListNigerianBanks is step 1 of the Nigerian withdrawal
// (GET /v1/users/{userId}/bank-accounts/nigerian-banks).
func (c *Client) ListNigerianBanks(ctx context.Context, userID string) ([]NigerianBank, error) {
	var out []NigerianBank
	if err := c.do(ctx, request{op: "ListNigerianBanks", method: http.MethodGet, path: userPath(userID, "bank-accounts", "nigerian-banks")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// VerifyNigerianAccountRequest identifies a Nigerian account.
type VerifyNigerianAccountRequest struct {
	// AccountNumber is the 10-digit NUBAN.
	AccountNumber string `json:"accountNumber"`
	BankCode      string `json:"bankCode"`
}

// Validate checks the NUBAN and bank code.
func (r VerifyNigerianAccountRequest) Validate() error {
	c := newChecker()
	c.digits("accountNumber", r.AccountNumber, 10, "NUBAN")
	c.required("bankCode", r.BankCode)
	return c.err()
}

// NigerianAccountHolder is the registered holder of a Nigerian account.
type NigerianAccountHolder struct {
	AccountNumber string `json:"accountNumber"`
	BankCode      string `json:"bankCode"`
	// AccountHolderName is the exact name to send in step 3.
	AccountHolderName string `json:"accountHolderName"`
}

// VerifyNigerianAccount is step 2: it returns the registered holder name;
// IsNotFound when no account matches
// (POST /v1/users/{userId}/bank-accounts/verify-nigerian-account).
func (c *Client) VerifyNigerianAccount(ctx context.Context, userID string, req VerifyNigerianAccountRequest) (*NigerianAccountHolder, error) {
	req.AccountNumber = trim(req.AccountNumber)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out NigerianAccountHolder
	if err := c.do(ctx, request{op: "VerifyNigerianAccount", method: http.MethodPost, path: userPath(userID, "bank-accounts", "verify-nigerian-account"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// NigerianWithdrawalAccountRequest registers a withdrawal account.
type NigerianWithdrawalAccountRequest struct {
	// AccountNumber is the 10-digit NUBAN.
	AccountNumber string `json:"accountNumber"`
	BankCode      string `json:"bankCode"`
	BankName      string `json:"bankName"`
	// AccountHolderName must be the exact name VerifyNigerianAccount
	// returned.
	AccountHolderName string `json:"accountHolderName"`
}

// Validate checks every field.
func (r NigerianWithdrawalAccountRequest) Validate() error {
	c := newChecker()
	c.digits("accountNumber", r.AccountNumber, 10, "NUBAN")
	c.required("bankCode", r.BankCode)
	c.required("bankName", r.BankName)
	c.required("accountHolderName", r.AccountHolderName)
	return c.err()
}

// WithdrawalAccount is a registered withdrawal account.
type WithdrawalAccount struct {
	ID                string `json:"id"`
	AccountNumber     string `json:"accountNumber"`
	BankCode          string `json:"bankCode"`
	BankName          string `json:"bankName"`
	AccountHolderName string `json:"accountHolderName"`
}

// CreateNigerianWithdrawalAccount is step 3, get-or-create
// (POST /v1/users/{userId}/bank-accounts/withdrawal-accounts/nigeria).
func (c *Client) CreateNigerianWithdrawalAccount(ctx context.Context, userID string, req NigerianWithdrawalAccountRequest) (*WithdrawalAccount, error) {
	req.AccountNumber = trim(req.AccountNumber)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out WithdrawalAccount
	if err := c.do(ctx, request{op: "CreateNigerianWithdrawalAccount", method: http.MethodPost, path: userPath(userID, "bank-accounts", "withdrawal-accounts", "nigeria"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// NigerianOfframpRequest withdraws from a CNGN (direct) or USDB (swapped to
// NGN first) wallet to a registered account.
type NigerianOfframpRequest struct {
	// BankAccountID is the WithdrawalAccount id.
	BankAccountID string `json:"bankAccountId"`
	// FromAmount is a decimal amount of the wallet's stablecoin; not minor
	// units, unlike a payout's amount.
	FromAmount decimal.Decimal `json:"fromAmount"`
}

// Validate checks the account and amount.
func (r NigerianOfframpRequest) Validate() error {
	c := newChecker()
	c.required("bankAccountId", r.BankAccountID)
	c.positive("fromAmount", r.FromAmount)
	return c.err()
}

// NigerianOfframpQuote is the quote of an offramp (fields not shown in the
// spec; README).
type NigerianOfframpQuote struct {
	FromCurrency Stablecoin      `json:"fromCurrency"`
	FromAmount   decimal.Decimal `json:"fromAmount"`
	ToAmount     decimal.Decimal `json:"toAmount"`
	ExchangeRate decimal.Decimal `json:"exchangeRate"`
	FeeAmount    decimal.Decimal `json:"feeAmount"`
}

// NigerianOfframp is the proposal created by the offramp; approve and sign
// it through the proposal endpoints.
type NigerianOfframp struct {
	ProposalID string                `json:"proposalId"`
	Status     ProposalStatus        `json:"status"`
	Quote      *NigerianOfframpQuote `json:"quote"`
}

// CreateNigerianOfframp is step 4
// (POST /v1/users/{userId}/smart-wallets/{smartWalletId}/offramp/nigeria).
func (c *Client) CreateNigerianOfframp(ctx context.Context, userID, walletID string, req NigerianOfframpRequest) (*NigerianOfframp, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out NigerianOfframp
	if err := c.do(ctx, request{op: "CreateNigerianOfframp", method: http.MethodPost, path: userPath(userID, "smart-wallets", walletID, "offramp", "nigeria"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
