// Package proposal is what the areas that act on proposals share (the
// approvals queue, payroll, money-out, sign, treasury): the mirror's row of
// a proposal read from the API, the ledger keys, effects and read-backs of
// approving and rejecting (so one approval is one action whichever page
// sent it), recipients' names, and the sign panels. It serves no route.
package proposal

import (
	"context"
	"strconv"
	"time"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// FromAPI turns a proposal read from the API into the mirror's row.
// ownerUserID is the serviceUserId the proposal was read for; now stands
// in for times the API did not give.
func FromAPI(p apiclient.Proposal, ownerUserID string, now time.Time) store.Proposal {
	out := store.Proposal{
		ID: p.ID, WalletID: p.WalletID, OwnerUserID: ownerUserID, Type: string(p.Type), Status: store.ProposalStatus(p.Status),
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
		out.CreatedAt = now
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

// NameIDs are the serviceUserIds the proposals mention (owner, recipient,
// approvers), each once.
func NameIDs(ps ...store.Proposal) []string {
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
	return ids
}

// LoadNames loads the names of the users the proposals mention.
func LoadNames(ctx context.Context, st interface {
	EmployeesByServiceUserIDs(ctx context.Context, ids []string) (map[string]store.Employee, error)
}, ps ...store.Proposal) (Names, error) {
	m, err := st.EmployeesByServiceUserIDs(ctx, NameIDs(ps...))
	if err != nil {
		return nil, err
	}
	return Names(m), nil
}

// TypeLabel names a proposal's type in words ("transfer").
func TypeLabel(p store.Proposal) string { return views.ProposalTypeLabel(p.Type) }

// DeviceSummaryOf is what the owner's device shows for a proposal.
func DeviceSummaryOf(p store.Proposal, names Names, ownerAddress string) views.DeviceSummary {
	return views.DeviceSummary{
		Title: "Approve the " + TypeLabel(p) + " " + views.Shorten(p.ID), Amount: Money(p).String(), From: names.Of(p.OwnerUserID),
		To: names.Recipient(p), Description: p.Description, OwnerAddress: ownerAddress,
	}
}

// SignPanelOf is the approver's view of a sign request (without its link,
// which only exists in the answer that created it).
func SignPanelOf(sr store.SignRequest, now time.Time) views.SignPanel {
	state := sr.State
	p := views.SignPanel{ID: sr.ID, ExpiresAt: sr.ExpiresAt, Error: sr.Error, Final: sr.Final()}
	if sr.Open(time.Time{}) && !now.Before(sr.ExpiresAt) {
		state, p.Final, p.Error = store.SignExpired, true, "the link expired before it was used"
	}
	p.State, p.Label = string(state), views.StatusLabel(views.StatusSign, string(state))
	p.PollURL = "/approvals/" + sr.ProposalID + "/sign-requests/" + strconv.FormatInt(sr.ID, 10)
	if sr.ProposalID == "" {
		p.PollURL = "/sign-requests/" + strconv.FormatInt(sr.ID, 10)
	}
	order := map[store.SignState]int{store.SignWaiting: 0, store.SignOpened: 1, store.SignRelaying: 2,
		store.SignRelayPending: 2, store.SignSubmitted: 3, store.SignCompleted: 4}
	reached, ok := order[state]
	if !ok {
		reached = -1
		if sr.OpenedAt != nil {
			reached = 1
		}
	}
	for i, label := range []string{"Waiting for the device", "Opened on the device", "Signature checked", "Submitted to the API", "Completed"} {
		p.Steps = append(p.Steps, views.SignStep{Label: label, Done: i <= reached && (i > 0 || reached >= 0)})
	}
	return p
}
