package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// ApprovalMode is an account's approval mode.
type ApprovalMode string

// spec: "Approval mode of an account: ANY_ADMIN, ADMIN_THRESHOLD or
// OWNER_APPROVAL."
const (
	ApprovalAnyAdmin       ApprovalMode = "ANY_ADMIN"
	ApprovalAdminThreshold ApprovalMode = "ADMIN_THRESHOLD"
	ApprovalOwner          ApprovalMode = "OWNER_APPROVAL"
)

// Wallet is a smart wallet.
type Wallet struct {
	ID string `json:"id"`
	// Address is the wallet's on-chain address.
	Address string `json:"address"`
	Chain   string `json:"chain"`
	// Currency is the stablecoin code; DisplayCurrency the fiat code listings
	// report.
	Currency        Stablecoin `json:"currency"`
	DisplayCurrency Fiat       `json:"displayCurrency"`
	Status          string     `json:"status"`
	// Legacy is true for a pre-multi-signature wallet. spec: "Legacy wallets
	// cannot hold cards."
	Legacy           bool            `json:"legacy"`
	UserOwnerAddress string          `json:"userOwnerAddress"`
	Balance          decimal.Decimal `json:"balance"`
	CreatedAt        time.Time       `json:"createdAt"`
}

// WalletBalance is one entry of ListBalances.
type WalletBalance struct {
	SmartWalletID   string          `json:"smartWalletId"`
	Currency        Stablecoin      `json:"currency"`
	DisplayCurrency Fiat            `json:"displayCurrency"`
	Balance         decimal.Decimal `json:"balance"`
}

// SupportedCurrencies returns the live list of stablecoin codes
// (GET /v1/smart-wallets/supported-currencies, not user-scoped).
func (c *Client) SupportedCurrencies(ctx context.Context) ([]Stablecoin, error) {
	var out []Stablecoin
	if err := c.do(ctx, request{op: "SupportedCurrencies", method: http.MethodGet, path: pathOf("smart-wallets", "supported-currencies")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// OwnerProofChallengeRequest asks for a challenge that proves control of the
// owner key before wallet creation.
type OwnerProofChallengeRequest struct {
	Currency         Stablecoin `json:"currency"`
	UserOwnerAddress string     `json:"userOwnerAddress"`
}

// Validate checks the currency and the owner address.
func (r OwnerProofChallengeRequest) Validate() error {
	c := newChecker()
	c.stablecoin("currency", r.Currency)
	c.address("userOwnerAddress", r.UserOwnerAddress)
	return c.err()
}

// OwnerProofChallenge is a text to sign with the Ethereum signed-message
// scheme (ethsig.SignMessage), not as a raw hash.
type OwnerProofChallenge struct {
	ChallengeID string `json:"challengeId"`
	// Message is the text to sign. spec: the field is "message in one usage
	// and eip191Message in another"; the client fills Message from whichever
	// is set.
	Message       string    `json:"message"`
	EIP191Message string    `json:"eip191Message,omitempty"`
	ExpiresAt     time.Time `json:"expiresAt"`
}

// CreateOwnerProofChallenge starts wallet creation
// (POST /v1/users/{userId}/smart-wallets/owner-proof-challenges).
func (c *Client) CreateOwnerProofChallenge(ctx context.Context, userID string, req OwnerProofChallengeRequest) (*OwnerProofChallenge, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out OwnerProofChallenge
	if err := c.do(ctx, request{op: "CreateOwnerProofChallenge", method: http.MethodPost, path: userPath(userID, "smart-wallets", "owner-proof-challenges"), body: req}, &out); err != nil {
		return nil, err
	}
	if out.Message == "" {
		out.Message = out.EIP191Message
	}
	return &out, nil
}

// CreateManagedWalletRequest creates a wallet once the challenge is signed.
type CreateManagedWalletRequest struct {
	Currency              Stablecoin `json:"currency"`
	UserOwnerAddress      string     `json:"userOwnerAddress"`
	OwnerProofChallengeID string     `json:"ownerProofChallengeId"`
	// OwnerProofSignature is the signed-message signature of the challenge.
	OwnerProofSignature string `json:"ownerProofSignature"`
}

// Validate checks every field.
func (r CreateManagedWalletRequest) Validate() error {
	c := newChecker()
	c.stablecoin("currency", r.Currency)
	c.address("userOwnerAddress", r.UserOwnerAddress)
	c.required("ownerProofChallengeId", r.OwnerProofChallengeID)
	c.signature("ownerProofSignature", r.OwnerProofSignature)
	return c.err()
}

// CreateManagedWallet creates a smart wallet
// (POST /v1/users/{userId}/smart-wallets/create-managed). spec: it "rejects
// when the owner-proof signature does not come from the address in
// userOwnerAddress".
func (c *Client) CreateManagedWallet(ctx context.Context, userID string, req CreateManagedWalletRequest) (*Wallet, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req.OwnerProofSignature = normaliseSignature(req.OwnerProofSignature)
	var out Wallet
	if err := c.do(ctx, request{op: "CreateManagedWallet", method: http.MethodPost, path: userPath(userID, "smart-wallets", "create-managed"), body: req}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListWallets lists the user's wallets
// (GET /v1/users/{userId}/smart-wallets/account/wallets).
func (c *Client) ListWallets(ctx context.Context, userID string) ([]Wallet, error) {
	var out []Wallet
	if err := c.do(ctx, request{op: "ListWallets", method: http.MethodGet, path: userPath(userID, "smart-wallets", "account", "wallets")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ListBalances lists the balance of each wallet
// (GET /v1/users/{userId}/smart-wallets/account/balances).
func (c *Client) ListBalances(ctx context.Context, userID string) ([]WalletBalance, error) {
	var out []WalletBalance
	if err := c.do(ctx, request{op: "ListBalances", method: http.MethodGet, path: userPath(userID, "smart-wallets", "account", "balances")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetWallet returns one wallet
// (GET /v1/users/{userId}/smart-wallets/{smartWalletId}).
func (c *Client) GetWallet(ctx context.Context, userID, walletID string) (*Wallet, error) {
	var out Wallet
	if err := c.do(ctx, request{op: "GetWallet", method: http.MethodGet, path: userPath(userID, "smart-wallets", walletID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ApprovalPolicy is an account's approval policy. The spec names only the
// modes; the body is the sandbox's { mode, admins, threshold } (README).
type ApprovalPolicy struct {
	Mode ApprovalMode `json:"mode"`
	// Admins are the serviceUserIds (of the same partner) who may approve.
	Admins []string `json:"admins"`
	// Threshold is the number of approvals ADMIN_THRESHOLD needs; 0
	// otherwise.
	Threshold int `json:"threshold,omitempty"`
	// RequiredApprovals is reported by the API (read only).
	RequiredApprovals int `json:"requiredApprovals,omitempty"`
}

// Validate checks the mode, admins and threshold.
func (p ApprovalPolicy) Validate() error {
	c := newChecker()
	c.oneOf("mode", string(p.Mode), string(ApprovalAnyAdmin), string(ApprovalAdminThreshold), string(ApprovalOwner))
	for i, a := range p.Admins {
		if trim(a) == "" {
			c.fail(fmt.Sprintf("admins[%d]", i), "must be a serviceUserId")
		}
	}
	switch {
	case p.Mode == ApprovalAdminThreshold && p.Threshold < 1:
		c.fail("threshold", "must be at least 1 for %s", ApprovalAdminThreshold)
	case p.Mode != ApprovalAdminThreshold && p.Threshold != 0:
		c.fail("threshold", "applies only to %s", ApprovalAdminThreshold)
	}
	return c.err()
}

// GetApprovalPolicy returns the account's approval policy
// (GET /v1/users/{userId}/smart-wallets/account/approval-policy; a sandbox
// route, the spec lists only the PATCH).
func (c *Client) GetApprovalPolicy(ctx context.Context, userID string) (*ApprovalPolicy, error) {
	var out ApprovalPolicy
	if err := c.do(ctx, request{op: "GetApprovalPolicy", method: http.MethodGet, path: userPath(userID, "smart-wallets", "account", "approval-policy")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetApprovalPolicy sets the account's approval mode
// (PATCH /v1/users/{userId}/smart-wallets/account/approval-policy).
func (c *Client) SetApprovalPolicy(ctx context.Context, userID string, policy ApprovalPolicy) (*ApprovalPolicy, error) {
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	policy.RequiredApprovals = 0
	if policy.Admins == nil {
		policy.Admins = []string{}
	}
	var out ApprovalPolicy
	if err := c.do(ctx, request{op: "SetApprovalPolicy", method: http.MethodPatch, path: userPath(userID, "smart-wallets", "account", "approval-policy"), body: policy}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// trim is strings.TrimSpace, short for request normalisation.
func trim(s string) string { return strings.TrimSpace(s) }
