package apiclient

import (
	"context"
	"net/http"
)

// VirtualAccountStatus is the state of a virtual bank account.
type VirtualAccountStatus string

// USD virtual account states of the spec.
const (
	VirtualAccountNone         VirtualAccountStatus = "none"
	VirtualAccountProvisioning VirtualAccountStatus = "provisioning"
	VirtualAccountPending      VirtualAccountStatus = "pending"
	VirtualAccountActive       VirtualAccountStatus = "active"
	VirtualAccountFailed       VirtualAccountStatus = "failed"
	// VirtualAccountRejected is terminal: do not retry; Reason is set.
	VirtualAccountRejected VirtualAccountStatus = "rejected"
)

// VirtualAccount is a virtual bank account and its state. Account is set
// only when Status is active.
type VirtualAccount struct {
	Status  VirtualAccountStatus   `json:"status"`
	Account *VirtualAccountDetails `json:"account"`
	Reason  *string                `json:"reason"`
}

// VirtualAccountDetails are the bank details to show the user.
type VirtualAccountDetails struct {
	ID            string `json:"id"`
	AccountName   string `json:"accountName"`
	AccountNumber string `json:"accountNumber"`
	RoutingNumber string `json:"routingNumber"`
	BankName      string `json:"bankName"`
	BankAddress   string `json:"bankAddress"`
	SwiftCode     string `json:"swiftCode"`
	Currency      string `json:"currency"`
	AccountType   string `json:"accountType"`
	// DepositMessage, when set, is the reference that must accompany
	// incoming transfers.
	DepositMessage *string `json:"depositMessage"`
}

// GetUSDVirtualAccount returns the USD account (deposit only)
// (GET /v1/users/{userId}/vba/usd).
func (c *Client) GetUSDVirtualAccount(ctx context.Context, userID string) (*VirtualAccount, error) {
	var out VirtualAccount
	if err := c.do(ctx, request{op: "GetUSDVirtualAccount", method: http.MethodGet, path: userPath(userID, "vba", "usd")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ProvisionEURVirtualAccount provisions the EUR account
// (POST /v1/users/{userId}/vba/eu; no body, answer shaped like the USD
// account: README).
func (c *Client) ProvisionEURVirtualAccount(ctx context.Context, userID string) (*VirtualAccount, error) {
	var out VirtualAccount
	if err := c.do(ctx, request{op: "ProvisionEURVirtualAccount", method: http.MethodPost, path: userPath(userID, "vba", "eu")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ProvisionNGNVirtualAccount provisions the NGN account
// (POST /v1/users/{userId}/vba/ngn; no body, answer shaped like the USD
// account: README).
func (c *Client) ProvisionNGNVirtualAccount(ctx context.Context, userID string) (*VirtualAccount, error) {
	var out VirtualAccount
	if err := c.do(ctx, request{op: "ProvisionNGNVirtualAccount", method: http.MethodPost, path: userPath(userID, "vba", "ngn")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// routeDeposits posts or deletes an onramp route. spec: "the account must
// belong to the caller, who must be an active admin of the wallet".
func (c *Client) routeDeposits(ctx context.Context, op, method, userID, walletID, rail string) (*StatusMessage, error) {
	var out StatusMessage
	if err := c.do(ctx, request{op: op, method: method, path: userPath(userID, "smart-wallets", walletID, "onramp", "vba", rail)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RouteUSDDeposits routes deposits of the USD account to a wallet
// (POST /v1/users/{userId}/smart-wallets/{smartWalletId}/onramp/vba/usd).
func (c *Client) RouteUSDDeposits(ctx context.Context, userID, walletID string) (*StatusMessage, error) {
	return c.routeDeposits(ctx, "RouteUSDDeposits", http.MethodPost, userID, walletID, "usd")
}

// UnrouteUSDDeposits removes that route
// (DELETE /v1/users/{userId}/smart-wallets/{smartWalletId}/onramp/vba/usd).
func (c *Client) UnrouteUSDDeposits(ctx context.Context, userID, walletID string) (*StatusMessage, error) {
	return c.routeDeposits(ctx, "UnrouteUSDDeposits", http.MethodDelete, userID, walletID, "usd")
}

// RouteNGNDeposits routes deposits of the NGN account to a wallet
// (POST /v1/users/{userId}/smart-wallets/{smartWalletId}/onramp/vba/nigeria).
func (c *Client) RouteNGNDeposits(ctx context.Context, userID, walletID string) (*StatusMessage, error) {
	return c.routeDeposits(ctx, "RouteNGNDeposits", http.MethodPost, userID, walletID, "nigeria")
}

// UnrouteNGNDeposits removes that route
// (DELETE /v1/users/{userId}/smart-wallets/{smartWalletId}/onramp/vba/nigeria).
func (c *Client) UnrouteNGNDeposits(ctx context.Context, userID, walletID string) (*StatusMessage, error) {
	return c.routeDeposits(ctx, "UnrouteNGNDeposits", http.MethodDelete, userID, walletID, "nigeria")
}

// DepositAccount is a bank account that receives deposits. The MXN fields
// are those the spec names; others are set by other currencies.
type DepositAccount struct {
	ID          string `json:"id"`
	AccountName string `json:"accountName"`
	BankName    string `json:"bankName"`
	Currency    string `json:"currency"`
	// Clabe is the 18-digit MXN account number.
	Clabe         string `json:"clabe,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
	BankCode      string `json:"bankCode,omitempty"`
	// TargetCurrency is the stablecoin credited (MEXe for MXN).
	TargetCurrency Stablecoin `json:"targetCurrency,omitempty"`
	// Status: only active accounts receive deposits.
	Status string `json:"status"`
}

// IsActive reports whether the account receives deposits.
func (a DepositAccount) IsActive() bool { return a.Status == "active" }

// DepositAccounts is every deposit account of the user; the Mexican ones
// are under MexicanAccounts.
type DepositAccounts struct {
	Accounts        []DepositAccount `json:"accounts"`
	MexicanAccounts []DepositAccount `json:"mexicanAccounts"`
}

// ListDepositAccounts returns all deposit accounts
// (GET /v1/users/{userId}/bank-accounts/deposit-accounts).
func (c *Client) ListDepositAccounts(ctx context.Context, userID string) (*DepositAccounts, error) {
	var out DepositAccounts
	if err := c.do(ctx, request{op: "ListDepositAccounts", method: http.MethodGet, path: userPath(userID, "bank-accounts", "deposit-accounts")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetDepositAccounts returns the deposit accounts of one fiat currency
// (GET /v1/users/{userId}/bank-accounts/deposit-accounts/{currency}); MXN
// accounts appear only once Mexico KYC is approved.
func (c *Client) GetDepositAccounts(ctx context.Context, userID string, currency Fiat) ([]DepositAccount, error) {
	var out struct {
		Accounts []DepositAccount `json:"accounts"`
	}
	if err := c.do(ctx, request{op: "GetDepositAccounts", method: http.MethodGet, path: userPath(userID, "bank-accounts", "deposit-accounts", string(currency))}, &out); err != nil {
		return nil, err
	}
	return out.Accounts, nil
}
