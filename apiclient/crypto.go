package apiclient

import (
	"context"
	"net/http"
)

// CryptoRoute is a chain and token pair.
type CryptoRoute struct {
	Chain    string `json:"chain"`
	Currency string `json:"currency"`
}

// ListDepositAssets lists the enabled deposit chains and tokens
// (GET /v1/deposit/supported-assets; not user-scoped).
func (c *Client) ListDepositAssets(ctx context.Context) ([]CryptoRoute, error) {
	var out []CryptoRoute
	if err := c.do(ctx, request{op: "ListDepositAssets", method: http.MethodGet, path: pathOf("deposit", "supported-assets")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// DepositWalletRequest asks for a deposit address (body not shown in the
// spec; README).
type DepositWalletRequest struct {
	Chain    string `json:"chain"`
	Currency string `json:"currency"`
}

// Validate checks both fields are set.
func (r DepositWalletRequest) Validate() error {
	c := newChecker()
	c.required("chain", r.Chain)
	c.required("currency", r.Currency)
	return c.err()
}

// DepositWallet is an address that receives crypto deposits.
type DepositWallet struct {
	Address  string `json:"address"`
	Chain    string `json:"chain"`
	Currency string `json:"currency"`
}

// CreateDepositWallet returns a crypto deposit address
// (POST /v1/users/{userId}/deposit/wallet).
func (c *Client) CreateDepositWallet(ctx context.Context, userID string, req DepositWalletRequest) (*DepositWallet, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out DepositWallet
	if err := c.do(ctx, request{op: "CreateDepositWallet", method: http.MethodPost, path: userPath(userID, "deposit", "wallet"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CryptoWithdrawalSupport lists the destination routes for a source
// currency (shape not shown in the spec; README).
type CryptoWithdrawalSupport struct {
	Currency string        `json:"currency"`
	Routes   []CryptoRoute `json:"routes"`
}

// Supports reports whether chain and currency are a supported destination.
func (s *CryptoWithdrawalSupport) Supports(chain, currency string) bool {
	for _, r := range s.Routes {
		if r.Chain == chain && r.Currency == currency {
			return true
		}
	}
	return false
}

// GetCryptoWithdrawalSupport checks chain and token pairs for a currency
// (GET /v1/users/{userId}/withdrawal/smart-wallet/crypto/supported/{currency}).
func (c *Client) GetCryptoWithdrawalSupport(ctx context.Context, userID, currency string) (*CryptoWithdrawalSupport, error) {
	var out CryptoWithdrawalSupport
	if err := c.do(ctx, request{op: "GetCryptoWithdrawalSupport", method: http.MethodGet, path: userPath(userID, "withdrawal", "smart-wallet", "crypto", "supported", currency)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CryptoWithdrawalRequest sends a wallet's value to an external address.
type CryptoWithdrawalRequest struct {
	SourceSmartWalletID string `json:"sourceSmartWalletId"`
	DestinationChain    string `json:"destinationChain"`
	DestinationCurrency string `json:"destinationCurrency"`
	DestinationAddress  string `json:"destinationAddress"`
}

// Validate checks every field; the destination must be an EVM address.
func (r CryptoWithdrawalRequest) Validate() error {
	c := newChecker()
	c.required("sourceSmartWalletId", r.SourceSmartWalletID)
	c.required("destinationChain", r.DestinationChain)
	c.required("destinationCurrency", r.DestinationCurrency)
	c.address("destinationAddress", r.DestinationAddress)
	return c.err()
}

// CryptoWithdrawal is the answer to a crypto withdrawal or offramp: sign
// SignatureRequest and complete it with SubmitSignature.
type CryptoWithdrawal struct {
	ID               string            `json:"id,omitempty"`
	Status           string            `json:"status,omitempty"`
	SignatureRequest *SignatureRequest `json:"signatureRequest"`
}

// CreateCryptoWithdrawal starts a crypto withdrawal
// (POST /v1/users/{userId}/withdrawal/smart-wallet/crypto).
func (c *Client) CreateCryptoWithdrawal(ctx context.Context, userID string, req CryptoWithdrawalRequest) (*CryptoWithdrawal, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CryptoWithdrawal
	if err := c.do(ctx, request{op: "CreateCryptoWithdrawal", method: http.MethodPost, path: userPath(userID, "withdrawal", "smart-wallet", "crypto"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetCryptoOfframpSupport is the alternative offramp's check
// (GET /v1/users/{userId}/wallets/crypto-offramp/supported/{currency}).
func (c *Client) GetCryptoOfframpSupport(ctx context.Context, userID, currency string) (*CryptoWithdrawalSupport, error) {
	var out CryptoWithdrawalSupport
	if err := c.do(ctx, request{op: "GetCryptoOfframpSupport", method: http.MethodGet, path: userPath(userID, "wallets", "crypto-offramp", "supported", currency)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateCryptoOfframp is the alternative offramp
// (POST /v1/users/{userId}/wallets/crypto-offramp). Its body is not shown
// in the spec; it takes the crypto withdrawal body (README).
func (c *Client) CreateCryptoOfframp(ctx context.Context, userID string, req CryptoWithdrawalRequest) (*CryptoWithdrawal, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CryptoWithdrawal
	if err := c.do(ctx, request{op: "CreateCryptoOfframp", method: http.MethodPost, path: userPath(userID, "wallets", "crypto-offramp"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
