// Package approvals is the finance approver's queue: every open proposal of
// every wallet the partner administers, read from the local mirror that a
// river job keeps fresh, with approve, approve again and reject.
//
// Approval mapping: the API records each approval against a wallet admin
// (spec: the caller must be "an active admin of the wallet"; the sandbox
// names the admin with x-acting-user-id). Each finance approver or owner
// links their staff account to one admin's serviceUserId (/approvals/link);
// their approvals are sent as that admin, and the app records which staff
// member acted. Wallets under OWNER_APPROVAL (employees' own wallets) are
// approved by the partner itself, with no acting admin.
package approvals

import (
	"context"
	"fmt"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// API is what the approvals area calls.
type API interface {
	ListProposals(ctx context.Context, userID, walletID string) ([]apiclient.Proposal, error)
	GetProposal(ctx context.Context, userID, proposalID string) (*apiclient.Proposal, error)
	ApproveProposal(ctx context.Context, userID, proposalID string) (*apiclient.Proposal, error)
	RejectProposal(ctx context.Context, userID, proposalID string, req apiclient.RejectProposalRequest) (*apiclient.Proposal, error)
	GetApprovalPolicy(ctx context.Context, userID string) (*apiclient.ApprovalPolicy, error)
}

// Store is what the approvals area reads and writes.
type Store interface {
	UpsertProposal(ctx context.Context, p store.Proposal) (store.ProposalChange, error)
	ProposalByID(ctx context.Context, id string) (store.Proposal, error)
	ListQueue(ctx context.Context, f store.QueueFilter) ([]store.Proposal, error)
	ListQueuePage(ctx context.Context, f store.QueueFilter) (store.QueuePage, error)
	ProposalEvents(ctx context.Context, proposalID string) ([]store.ProposalEvent, error)
	WalletOwners(ctx context.Context) (map[string]string, error)
	WalletByID(ctx context.Context, id string) (store.Wallet, error)
	EmployeesByServiceUserIDs(ctx context.Context, ids []string) (map[string]store.Employee, error)
	TreasuryUsers(ctx context.Context) ([]store.Employee, error)
	ApproverLink(ctx context.Context, staffID int64) (string, error)
	SetApproverLink(ctx context.Context, staffID int64, serviceUserID string, by store.Actor) error
	ClaimApproval(ctx context.Context, c store.ApprovalClaim) error
	FinishApproval(ctx context.Context, c store.ApprovalClaim, after store.Proposal, by store.Actor, again bool) (store.ProposalChange, error)
	ReleaseApproval(ctx context.Context, c store.ApprovalClaim, by store.Actor, outcome, detail string) error
	ApprovalStaff(ctx context.Context, proposalID string) (map[string]string, error)
	RecordRejection(ctx context.Context, after store.Proposal, by store.Actor, reason string) error
	LatestSignRequest(ctx context.Context, proposalID string) (store.SignRequest, error)
	Audit(ctx context.Context, e store.AuditEntry) error
}

// Handler serves the approval routes.
type Handler struct {
	*handlers.Base
	Store Store
	API   API
	Sync  *Syncer
	Now   func() time.Time

	totals queueTotals
}

// New returns the approvals handler.
func New(base *handlers.Base, st Store, api API, concurrency int) *Handler {
	h := &Handler{Base: base, Store: st, API: api, Now: time.Now}
	h.Sync = &Syncer{API: api, Store: st, Concurrency: concurrency, Logger: base.Logger}
	return h
}

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

// FromAPI turns a proposal read from the API into the mirror's row.
// ownerUserID is the serviceUserId the proposal was read for.
func FromAPI(p apiclient.Proposal, ownerUserID string) store.Proposal {
	out := store.Proposal{
		ID: p.ID, WalletID: p.WalletID, OwnerUserID: ownerUserID, Type: string(p.Type), Status: string(p.Status),
		Currency: string(p.Currency), Amount: p.Amount, ToUserID: p.ToUserID, ToAddress: p.ToAddress,
		ToStablecoin: string(p.ToStablecoin), Description: p.Description, RequiredSignatures: p.RequiredSignatures,
		CollectedSignatures: p.CollectedSignatures, Approvals: p.Approvals, RequiredApprovals: p.RequiredApprovals,
		ApprovalMode: string(p.ApprovalMode), RejectionReason: p.RejectionReason, FailureReason: p.FailureReason,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	if p.FromAmount != nil && out.Amount.IsZero() {
		out.Amount = *p.FromAmount
	}
	if p.SlippageBps != nil {
		out.SlippageBps = *p.SlippageBps
	}
	if out.CreatedAt.IsZero() {
		out.CreatedAt = time.Now()
	}
	if out.UpdatedAt.IsZero() {
		out.UpdatedAt = out.CreatedAt
	}
	return out
}

// Money shows a token amount with its fiat code first (USD beside USDB).
func Money(amount store.Proposal) views.Amount {
	fiat, ok := apiclient.Stablecoin(amount.Currency).Fiat()
	if !ok {
		return views.Amount{Value: amount.Amount, Currency: amount.Currency}
	}
	return views.Amount{Value: amount.Amount, Currency: string(fiat), Token: amount.Currency}
}

// Names resolves serviceUserIds to names from the mirror.
type Names map[string]store.Employee

// Of is the user's name, or a shortened id when the mirror does not know it.
func (n Names) Of(id string) string {
	if id == "" {
		return ""
	}
	if e, ok := n[id]; ok {
		return e.Name()
	}
	return "user " + short(id)
}

func short(s string) string {
	if len(s) > 10 {
		return s[:8] + "…"
	}
	return s
}

// Recipient names where a proposal sends value.
func (n Names) Recipient(p store.Proposal) string {
	switch {
	case p.Type == "CARD_ISSUANCE":
		return "a new card (issuance fee)"
	case p.Type == "NIGERIAN_OFFRAMP":
		return "a Nigerian bank account"
	case p.Type == string(apiclient.ProposalSwap) || p.ToStablecoin != "":
		return n.Of(p.OwnerUserID) + " (" + p.ToStablecoin + ")"
	case p.ToUserID != "":
		return n.Of(p.ToUserID)
	case p.ToAddress != "":
		return "address " + short(p.ToAddress)
	}
	return "—"
}

// LoadNames loads the names of the users the proposals mention.
func LoadNames(ctx context.Context, st interface {
	EmployeesByServiceUserIDs(ctx context.Context, ids []string) (map[string]store.Employee, error)
}, ps ...store.Proposal) (Names, error) {
	seen := map[string]bool{}
	var ids []string
	for _, p := range ps {
		for _, id := range append([]string{p.OwnerUserID, p.ToUserID}, p.Approvals...) {
			if id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	m, err := st.EmployeesByServiceUserIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	return Names(m), nil
}

// StatusClass is the badge class of a state.
func StatusClass(status string) string {
	switch status {
	case store.ProposalCompleted:
		return "badge-completed"
	case store.ProposalFailed, store.ProposalRejected, store.ProposalExpired:
		return "badge-failed"
	}
	return "badge-pending"
}

// Age says how long ago t was, in words.
func Age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// Row builds a queue row.
func Row(p store.Proposal, names Names, now time.Time, linkedAs string, viewerID int64) views.ProposalRow {
	r := views.ProposalRow{
		ID: p.ID, Type: typeLabel(p), Amount: Money(p), From: names.Of(p.OwnerUserID), To: names.Recipient(p),
		Description: p.Description, Status: p.Status, StatusClass: StatusClass(p.Status),
		Approvals:  fmt.Sprintf("%d of %d", len(p.Approvals), p.RequiredApprovals),
		Signatures: fmt.Sprintf("%d of %d", p.CollectedSignatures, p.RequiredSignatures),
		Age:        Age(now, p.CreatedAt),
	}
	if p.Status == store.ProposalPendingSignatures {
		r.Deadline = p.SignDeadline
	}
	r.NeedsMe = p.Status == store.ProposalPendingApprovals && linkedAs != "" && !contains(p.Approvals, linkedAs) &&
		p.CreatedByStaffID != viewerID
	return r
}

func typeLabel(p store.Proposal) string {
	if p.Type == "" {
		return "PROPOSAL"
	}
	return strings.ReplaceAll(p.Type, "_", " ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
