package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"partneradmin/apiclient/ethsig"

	"github.com/shopspring/decimal"
)

// ProposalType is a proposal's kind.
type ProposalType string

// Proposal types named by the spec ("card issuance and Nigerian offramp
// also create proposals"; their type names are not shown).
const (
	ProposalTransfer ProposalType = "TRANSFER"
	ProposalSwap     ProposalType = "SWAP"
)

// ProposalStatus is a proposal's state.
type ProposalStatus string

// Proposal states. The spec names PENDING_APPROVALS, PENDING_SIGNATURES,
// COMPLETED, FAILED, READY_TO_EXECUTE and EXECUTING; it describes "submitted
// on-chain", "rejected" and expiry without naming them, and the sandbox
// spells those SUBMITTED, REJECTED and EXPIRED.
const (
	ProposalPendingApprovals  ProposalStatus = "PENDING_APPROVALS"
	ProposalPendingSignatures ProposalStatus = "PENDING_SIGNATURES"
	ProposalSubmitted         ProposalStatus = "SUBMITTED"
	ProposalReadyToExecute    ProposalStatus = "READY_TO_EXECUTE"
	ProposalExecuting         ProposalStatus = "EXECUTING"
	ProposalCompleted         ProposalStatus = "COMPLETED"
	ProposalFailed            ProposalStatus = "FAILED"
	ProposalRejected          ProposalStatus = "REJECTED"
	ProposalExpired           ProposalStatus = "EXPIRED"
)

// IsOpen reports whether the proposal can still be approved, signed or
// rejected (spec: "any open state | POST .../reject").
func (s ProposalStatus) IsOpen() bool {
	switch s {
	case ProposalPendingApprovals, ProposalPendingSignatures, ProposalFailed:
		return true
	}
	return false
}

// Proposal is a value-moving wallet operation waiting for approvals and
// signatures.
type Proposal struct {
	ID       string          `json:"id"`
	WalletID string          `json:"walletId"`
	Type     ProposalType    `json:"type"`
	Status   ProposalStatus  `json:"status"`
	Currency Stablecoin      `json:"currency"`
	Amount   decimal.Decimal `json:"amount"`
	// ToUserID or ToAddress is the TRANSFER recipient.
	ToUserID  string `json:"toUserId,omitempty"`
	ToAddress string `json:"toAddress,omitempty"`
	// FromStablecoin, ToStablecoin, FromAmount and SlippageBps describe a
	// SWAP.
	FromStablecoin      Stablecoin       `json:"fromStablecoin,omitempty"`
	ToStablecoin        Stablecoin       `json:"toStablecoin,omitempty"`
	FromAmount          *decimal.Decimal `json:"fromAmount,omitempty"`
	SlippageBps         *int             `json:"slippageBps,omitempty"`
	Description         string           `json:"description,omitempty"`
	RequiredSignatures  int              `json:"requiredSignatures"`
	CollectedSignatures int              `json:"collectedSignatures"`
	// Approvals are the serviceUserIds that approved.
	Approvals         []string  `json:"approvals"`
	RequiredApprovals int       `json:"requiredApprovals"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
	RejectionReason   string    `json:"rejectionReason,omitempty"`
	// ApprovalMode, FailureReason and CardID are reported by the sandbox;
	// the spec does not name them.
	ApprovalMode  ApprovalMode `json:"approvalMode,omitempty"`
	FailureReason string       `json:"failureReason,omitempty"`
	CardID        string       `json:"cardId,omitempty"`
}

// UnmarshalJSON also accepts the id under "proposalId" (spec: "id /
// proposalId").
func (p *Proposal) UnmarshalJSON(b []byte) error {
	type plain Proposal
	var v struct {
		plain
		ProposalID string `json:"proposalId"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Proposal(v.plain)
	if p.ID == "" {
		p.ID = v.ProposalID
	}
	return nil
}

// decodeProposal reads { proposal: {...} } (create, send, fund) or a bare
// proposal (get, approve, sign) once { data } is unwrapped.
type proposalResult struct {
	Proposal *Proposal `json:"proposal"`
}

func (c *Client) proposalCall(ctx context.Context, req request) (*Proposal, error) {
	var raw json.RawMessage
	if err := c.do(ctx, req, &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("apiclient: %s %s: empty response, want a proposal", req.method, req.path.logged)
	}
	var wrapped proposalResult
	if err := json.Unmarshal(raw, &wrapped); err == nil && wrapped.Proposal != nil {
		return wrapped.Proposal, nil
	}
	var p Proposal
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("apiclient: %s %s: decode proposal: %w", req.method, req.path.logged, err)
	}
	return &p, nil
}

// TransferProposal moves value to another user or an address.
type TransferProposal struct {
	// ToUserID (a serviceUserId of the same partner) or ToAddress, not both.
	ToUserID  string
	ToAddress string
	Amount    decimal.Decimal
	// Currency is required on multi-token wallets.
	Currency    Stablecoin
	Description string
}

// Validate applies the TRANSFER rules.
func (r TransferProposal) Validate() error {
	c := newChecker()
	switch {
	case r.ToUserID == "" && r.ToAddress == "":
		// spec: "Neither toUserId nor toAddress gives 400."
		c.fail("toUserId", "either toUserId or toAddress is required")
	case r.ToUserID != "" && r.ToAddress != "":
		c.fail("toAddress", "give toUserId or toAddress, not both")
	case r.ToAddress != "":
		c.address("toAddress", r.ToAddress)
	}
	c.positive("amount", r.Amount)
	if r.Currency != "" {
		c.stablecoin("currency", r.Currency)
	}
	c.maxLen("description", r.Description, MaxDescriptionLength)
	return c.err()
}

// MarshalJSON encodes the proposal body fields with type TRANSFER.
func (r TransferProposal) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        ProposalType    `json:"type"`
		ToUserID    string          `json:"toUserId,omitempty"`
		ToAddress   string          `json:"toAddress,omitempty"`
		Amount      decimal.Decimal `json:"amount"`
		Currency    Stablecoin      `json:"currency,omitempty"`
		Description string          `json:"description,omitempty"`
	}{ProposalTransfer, r.ToUserID, r.ToAddress, r.Amount, r.Currency, r.Description})
}

// SwapProposal exchanges one stablecoin for another.
type SwapProposal struct {
	FromStablecoin Stablecoin
	ToStablecoin   Stablecoin
	FromAmount     decimal.Decimal
	// SlippageBps is optional, 1 to 500.
	SlippageBps *int
	Description string
}

// Validate applies the SWAP rules.
func (r SwapProposal) Validate() error {
	c := newChecker()
	// spec: "Allowed stablecoins: USDB, CNGN, CADC, EURe, GBPe, MEXe."
	allowed := make([]string, 0, 6)
	for _, s := range Stablecoins() {
		allowed = append(allowed, string(s))
	}
	c.oneOf("fromStablecoin", string(r.FromStablecoin), allowed...)
	c.oneOf("toStablecoin", string(r.ToStablecoin), allowed...)
	if r.FromStablecoin != "" && r.FromStablecoin == r.ToStablecoin {
		c.fail("toStablecoin", "must differ from fromStablecoin")
	}
	c.positive("fromAmount", r.FromAmount)
	if r.SlippageBps != nil && (*r.SlippageBps < MinSlippageBps || *r.SlippageBps > MaxSlippageBps) {
		c.fail("slippageBps", "must be between %d and %d", MinSlippageBps, MaxSlippageBps)
	}
	c.maxLen("description", r.Description, MaxDescriptionLength)
	return c.err()
}

// MarshalJSON encodes the proposal body fields with type SWAP.
func (r SwapProposal) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type           ProposalType    `json:"type"`
		FromStablecoin Stablecoin      `json:"fromStablecoin"`
		ToStablecoin   Stablecoin      `json:"toStablecoin"`
		FromAmount     decimal.Decimal `json:"fromAmount"`
		SlippageBps    *int            `json:"slippageBps,omitempty"`
		Description    string          `json:"description,omitempty"`
	}{ProposalSwap, r.FromStablecoin, r.ToStablecoin, r.FromAmount, r.SlippageBps, r.Description})
}

// CreateTransferProposal proposes a transfer
// (POST /v1/users/{userId}/smart-wallets/{smartWalletId}/proposals).
func (c *Client) CreateTransferProposal(ctx context.Context, userID, walletID string, p TransferProposal) (*Proposal, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return c.proposalCall(ctx, request{op: "CreateTransferProposal", method: http.MethodPost,
		path: userPath(userID, "smart-wallets", walletID, "proposals"), body: map[string]any{"proposal": p}})
}

// CreateSwapProposal proposes a swap
// (POST /v1/users/{userId}/smart-wallets/{smartWalletId}/proposals).
func (c *Client) CreateSwapProposal(ctx context.Context, userID, walletID string, p SwapProposal) (*Proposal, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return c.proposalCall(ctx, request{op: "CreateSwapProposal", method: http.MethodPost,
		path: userPath(userID, "smart-wallets", walletID, "proposals"), body: map[string]any{"proposal": p}})
}

// ListProposals lists a wallet's proposals
// (GET /v1/users/{userId}/smart-wallets/{smartWalletId}/proposals).
func (c *Client) ListProposals(ctx context.Context, userID, walletID string) ([]Proposal, error) {
	var out []Proposal
	if err := c.do(ctx, request{op: "ListProposals", method: http.MethodGet, path: userPath(userID, "smart-wallets", walletID, "proposals")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetProposal returns a proposal with its status
// (GET /v1/users/{userId}/smart-wallets/proposals/{proposalId}).
func (c *Client) GetProposal(ctx context.Context, userID, proposalID string) (*Proposal, error) {
	return c.proposalCall(ctx, request{op: "GetProposal", method: http.MethodGet, path: userPath(userID, "smart-wallets", "proposals", proposalID)})
}

// ApproveProposal approves a proposal, or restarts a FAILED one
// (POST /v1/users/{userId}/smart-wallets/proposals/{proposalId}/approve).
func (c *Client) ApproveProposal(ctx context.Context, userID, proposalID string) (*Proposal, error) {
	return c.proposalCall(ctx, request{op: "ApproveProposal", method: http.MethodPost, path: userPath(userID, "smart-wallets", "proposals", proposalID, "approve")})
}

// SignPayload is what the owner key must sign for a proposal.
type SignPayload struct {
	// Method is "evm" or "solana"; only evm is specified.
	Method string `json:"method"`
	// WalletIndex is the index of the key that must sign.
	WalletIndex int    `json:"walletIndex"`
	WorkflowID  string `json:"workflowId"`
	// HashToSign is the 0x-prefixed 32-byte digest to sign raw, with no
	// message prefix (ethsig.Sign).
	HashToSign string `json:"hashToSign"`
	Payload    string `json:"payload"`
	// Deadline is when the signature stops being accepted.
	Deadline   time.Time `json:"deadline"`
	ProposalID string    `json:"proposalId"`
	// Exactly one of UserOpHash and SafeTxHash is set.
	UserOpHash *string `json:"userOpHash"`
	SafeTxHash *string `json:"safeTxHash"`
	// TypedData is the EIP-712 object when upstream supplies it;
	// informational only.
	TypedData json.RawMessage `json:"typedData,omitempty"`
}

// Hash parses HashToSign.
func (p *SignPayload) Hash() (ethsig.Hash, error) { return ethsig.ParseHash(p.HashToSign) }

// GetSignPayload returns the payload to sign
// (GET /v1/users/{userId}/smart-wallets/proposals/{proposalId}/sign-payload).
// Before PENDING_SIGNATURES it fails with an error for which IsNotReady is
// true; poll. spec: "Fetch a fresh sign payload right before signing and do
// not cache it."
func (c *Client) GetSignPayload(ctx context.Context, userID, proposalID string) (*SignPayload, error) {
	var out SignPayload
	if err := c.do(ctx, request{op: opGetSignPayload, method: http.MethodGet, path: userPath(userID, "smart-wallets", "proposals", proposalID, "sign-payload")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SignProposalRequest carries the owner's signature of HashToSign.
type SignProposalRequest struct {
	// Signature is 0x plus 130 hex characters, r‖s‖v. A v of 0 or 1 is
	// normalised to 27 or 28 before sending.
	Signature string `json:"signature"`
}

// Validate checks the signature format.
func (r SignProposalRequest) Validate() error {
	c := newChecker()
	c.signature("signature", r.Signature)
	return c.err()
}

// SignProposal submits the owner signature
// (POST /v1/users/{userId}/smart-wallets/proposals/{proposalId}/sign).
// Execution is irreversible once enough signatures are collected.
func (c *Client) SignProposal(ctx context.Context, userID, proposalID string, req SignProposalRequest) (*Proposal, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req.Signature = normaliseSignature(req.Signature)
	return c.proposalCall(ctx, request{op: "SignProposal", method: http.MethodPost, path: userPath(userID, "smart-wallets", "proposals", proposalID, "sign"), body: req})
}

// RejectProposalRequest abandons a proposal, with an optional reason.
type RejectProposalRequest struct {
	Reason string `json:"reason,omitempty"`
}

// RejectProposal rejects an open proposal
// (POST /v1/users/{userId}/smart-wallets/proposals/{proposalId}/reject).
func (c *Client) RejectProposal(ctx context.Context, userID, proposalID string, req RejectProposalRequest) (*Proposal, error) {
	return c.proposalCall(ctx, request{op: "RejectProposal", method: http.MethodPost, path: userPath(userID, "smart-wallets", "proposals", proposalID, "reject"), body: req})
}

// SendRequest sends value to another user of the same partner from the
// user's account.
type SendRequest struct {
	ToUserID string          `json:"toUserId"`
	Amount   decimal.Decimal `json:"amount"`
	// Currency is required when the account has more than one wallet.
	Currency Stablecoin `json:"currency,omitempty"`
	// Note becomes the proposal's description.
	Note string `json:"note,omitempty"`
}

// Validate checks the recipient, amount and note.
func (r SendRequest) Validate() error {
	c := newChecker()
	c.required("toUserId", r.ToUserID)
	c.positive("amount", r.Amount)
	if r.Currency != "" {
		c.stablecoin("currency", r.Currency)
	}
	c.maxLen("note", r.Note, MaxDescriptionLength)
	return c.err()
}

// Send proposes a transfer from the account
// (POST /v1/users/{userId}/smart-wallets/account/send).
func (c *Client) Send(ctx context.Context, userID string, req SendRequest) (*Proposal, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return c.proposalCall(ctx, request{op: "Send", method: http.MethodPost, path: userPath(userID, "smart-wallets", "account", "send"), body: req})
}

// FundRequest funds a recipient from one of the user's wallets. The spec
// shows only fromWalletId and "a recipient"; the recipient is a user or a
// wallet of the same partner, as the sandbox decided (README).
type FundRequest struct {
	FromWalletID string          `json:"fromWalletId"`
	ToUserID     string          `json:"toUserId,omitempty"`
	ToWalletID   string          `json:"toWalletId,omitempty"`
	Amount       decimal.Decimal `json:"amount"`
	Currency     Stablecoin      `json:"currency,omitempty"`
	Description  string          `json:"description,omitempty"`
}

// Validate checks the source, recipient and amount.
func (r FundRequest) Validate() error {
	c := newChecker()
	c.required("fromWalletId", r.FromWalletID)
	switch {
	case r.ToUserID == "" && r.ToWalletID == "":
		c.fail("toUserId", "either toUserId or toWalletId is required")
	case r.ToUserID != "" && r.ToWalletID != "":
		c.fail("toWalletId", "give toUserId or toWalletId, not both")
	}
	c.positive("amount", r.Amount)
	if r.Currency != "" {
		c.stablecoin("currency", r.Currency)
	}
	c.maxLen("description", r.Description, MaxDescriptionLength)
	return c.err()
}

// Fund proposes funding from a wallet
// (POST /v1/users/{userId}/smart-wallets/fund).
func (c *Client) Fund(ctx context.Context, userID string, req FundRequest) (*Proposal, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return c.proposalCall(ctx, request{op: "Fund", method: http.MethodPost, path: userPath(userID, "smart-wallets", "fund"), body: req})
}
