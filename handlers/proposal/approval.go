package proposal

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// Ledger kinds of the upstream writes on a proposal. Every area that
// approves or rejects uses these kinds and the keys below, so an approval
// sent from the queue and one sent for a whole payroll run are the same
// action and can never both be sent.
const (
	KindApprove      = "proposal.approve"
	KindApproveAgain = "proposal.approve_again"
	KindReject       = "proposal.reject"
)

// PartnerIdentity is the acting identity when the partner itself approves
// (wallets under OWNER_APPROVAL).
const PartnerIdentity = "partner"

// MaxApprovalAttempts bounds how often one admin's approval of one round
// may be sent after the API refused the earlier attempts.
const MaxApprovalAttempts = 20

// ErrTooManyAttempts: the API refused this approval MaxApprovalAttempts
// times.
var ErrTooManyAttempts = errors.New("proposal: too many approval attempts")

// NeedsLink reports whether approving needs an acting wallet admin: every
// mode but OWNER_APPROVAL names admins.
func NeedsLink(p store.Proposal) bool {
	return p.ApprovalMode != "" && p.ApprovalMode != "OWNER_APPROVAL"
}

// ActingIdentity is whom an approval is recorded against: the viewer's
// linked wallet admin, or the partner itself.
func ActingIdentity(p store.Proposal, linked string) string {
	if NeedsLink(p) {
		return linked
	}
	return PartnerIdentity
}

// ApproveRequest is what the ledger keeps of an approval: enough to read it
// back after a restart.
type ApproveRequest struct {
	ProposalID  string `json:"proposalId"`
	OwnerUserID string `json:"ownerUserId"`
	WalletID    string `json:"walletId"`
	Round       int    `json:"round"`
	// Identity is the wallet admin the approval is sent as
	// (PartnerIdentity: the partner itself).
	Identity        string `json:"identity"`
	Again           bool   `json:"again"`
	ApprovalsBefore int    `json:"approvalsBefore"`
	// Form is the key of the form that sent it (its one-time token).
	Form string `json:"form,omitempty"`
}

// ApprovalKey is the action key of an approval: the approval itself
// (proposal, round, wallet admin). An attempt the API refused settles
// nothing, so a new form gets the next attempt number; an attempt that is
// done, on its way or unknown, or the refused attempt of this very form, is
// the answer.
func ApprovalKey(ctx context.Context, st *store.Store, req ApproveRequest) (string, error) {
	base := "approve:" + req.ProposalID + ":" + strconv.Itoa(req.Round) + ":" + req.Identity
	for n := 1; n <= MaxApprovalAttempts; n++ {
		key := base
		if n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		a, err := st.ActionByKey(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			return key, nil
		}
		if err != nil {
			return "", err
		}
		if a.State != store.ActionRefused {
			return key, nil
		}
		var sent ApproveRequest
		if err := a.DecodeRequest(&sent); err != nil {
			return "", err
		}
		if sent.Form == req.Form {
			return key, nil
		}
	}
	return "", ErrTooManyAttempts
}

// ApprovalEffect is what an approval the API recorded changes here.
func ApprovalEffect(req ApproveRequest, by store.Actor, after apiclient.Proposal, now time.Time) handlers.Effect {
	p := FromAPI(after, req.OwnerUserID, now)
	a := store.Approval{ProposalID: req.ProposalID, Round: req.Round, ServiceUserID: req.Identity, By: by, Again: req.Again}
	return handlers.Effect{Target: "proposal:" + req.ProposalID, Detail: store.ApprovalDetail(a, p),
		Result: map[string]any{"status": p.Status, "approvals": len(p.Approvals)},
		Apply:  func(ctx context.Context, tx *store.Store) error { return tx.RecordApproval(ctx, a, p) }}
}

// ReadBackApproval reads the proposal to learn whether an approval was
// recorded: the admin is among its approvals (for the partner itself, there
// are more approvals than before or the proposal moved on); an approval
// again must also have taken the proposal out of FAILED.
func ReadBackApproval(api *apiclient.Client, clock func() time.Time) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req ApproveRequest
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		cur, err := api.GetProposal(ctx, req.OwnerUserID, req.ProposalID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		recorded := slices.Contains(cur.Approvals, req.Identity)
		if req.Identity == PartnerIdentity {
			recorded = len(cur.Approvals) > req.ApprovalsBefore || cur.Status != apiclient.ProposalPendingApprovals
		}
		if req.Again {
			recorded = recorded && cur.Status != apiclient.ProposalFailed
		}
		if !recorded {
			return handlers.Effect{}, false, nil
		}
		return ApprovalEffect(req, a.Actor, *cur, clock()), true, nil
	}
}

// RejectRequest is what the ledger keeps of a rejection.
type RejectRequest struct {
	ProposalID  string `json:"proposalId"`
	OwnerUserID string `json:"ownerUserId"`
	Reason      string `json:"reason"`
	// ActingAs is the wallet admin the rejection is sent as ("" when none).
	ActingAs string `json:"actingAs,omitempty"`
}

// RejectionEffect is what a rejection the API recorded changes here.
func RejectionEffect(req RejectRequest, by store.Actor, after apiclient.Proposal, now time.Time) handlers.Effect {
	p := FromAPI(after, req.OwnerUserID, now)
	return handlers.Effect{Target: "proposal:" + req.ProposalID, Detail: "reason: " + req.Reason,
		Result: map[string]any{"status": p.Status},
		Apply:  func(ctx context.Context, tx *store.Store) error { return tx.RecordRejection(ctx, p, by, req.Reason) }}
}

// ReadBackRejection reads the proposal: the rejection was recorded when it
// is REJECTED with this reason (another person's rejection is not this
// one).
func ReadBackRejection(api *apiclient.Client, clock func() time.Time) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req RejectRequest
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		cur, err := api.GetProposal(ctx, req.OwnerUserID, req.ProposalID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		if cur.Status != apiclient.ProposalRejected || cur.RejectionReason != req.Reason {
			return handlers.Effect{}, false, nil
		}
		return RejectionEffect(req, a.Actor, *cur, clock()), true, nil
	}
}
