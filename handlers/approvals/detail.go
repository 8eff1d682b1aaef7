package approvals

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// detailState is what the detail page is rendered from.
type detailState struct {
	status      int
	actionError string
	reject      views.RejectForm
	// A posted form that failed validation began nothing, so it keeps its
	// one-time token.
	approveToken, rejectToken string
}

// Detail shows one proposal with its timeline and what its state allows.
// The live part polls with the version it shows: while the proposal is
// unchanged the answer is 204 (nothing swapped, typed text kept).
func (h *Handler) Detail(w http.ResponseWriter, r *http.Request) {
	h.renderDetail(w, r, chi.URLParam(r, "id"), detailState{status: http.StatusOK})
}

func (h *Handler) renderDetail(w http.ResponseWriter, r *http.Request, id string, st detailState) {
	ctx := r.Context()
	p, sr, hasSign, err := h.store.ProposalHead(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	version := detailVersion(p, sr, hasSign)
	if h.Unchanged(w, r, handlers.IsFragmentRequest(r) && r.URL.Query().Get("v") == version) {
		return
	}
	view, err := h.detailView(ctx, p, sr, hasSign)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if view.Controls, err = handlers.PolicyCheck(ctx, h.store, p, handlers.ViewerFrom(ctx), h.clock()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	view.PollURL = "/approvals/" + url.PathEscape(p.ID) + "?v=" + version
	view.ActionError = st.actionError
	view.BackURL = handlers.BackTo(r, "/approvals")
	if st.reject.Fields != nil || st.reject.Reason != "" {
		view.RejectForm = st.reject
		if view.RejectForm.Fields == nil {
			view.RejectForm.Fields = views.FieldErrors{}
		}
	}
	if st.approveToken != "" && view.ApproveToken != "" {
		view.ApproveToken = st.approveToken
	}
	if st.rejectToken != "" && view.RejectToken != "" {
		view.RejectToken = st.rejectToken
	}
	h.Render(w, r, st.status, view.Row.Title(), views.ProposalDetailPage(view), views.ProposalLive(view))
}

// detailVersion names what the live part shows of a proposal.
func detailVersion(p store.Proposal, sr store.SignRequest, hasSign bool) string {
	f := fnv.New64a()
	fmt.Fprintf(f, "%s|%s|%d|%d|%d|%d|%s|%s|%v", p.Status, strings.Join(p.Approvals, ","), p.RequiredApprovals,
		p.CollectedSignatures, p.RequiredSignatures, p.Round, p.RejectionReason, p.FailureReason, p.SignDeadline)
	if hasSign {
		fmt.Fprintf(f, "|%d|%s", sr.ID, sr.State)
	}
	return strconv.FormatUint(f.Sum64(), 36)
}

// detailView reads what the page shows beside the proposal in one round
// trip of the store's.
func (h *Handler) detailView(ctx context.Context, p store.Proposal, sr store.SignRequest, hasSign bool) (views.ProposalDetailView, error) {
	viewer := handlers.ViewerFrom(ctx)
	// The viewer was read for this request: its link is current.
	linked := viewer.Staff.ServiceUserID
	d, err := h.store.ProposalDetailOf(ctx, p, proposal.NameIDs(p))
	if err != nil {
		return views.ProposalDetailView{}, err
	}
	names := proposal.Names(d.Employees)
	now := h.clock()
	v := views.ProposalDetailView{
		Row: row(p, names, now, linked, viewer.Staff.ID), WalletID: p.WalletID, OwnerUserID: p.OwnerUserID, ToAddress: p.ToAddress,
		ToStablecoin: p.ToStablecoin, SlippageBps: p.SlippageBps, Rejection: p.RejectionReason, Failure: p.FailureReason,
		RejectForm: views.RejectForm{Fields: views.FieldErrors{}},
	}
	for _, a := range p.Approvals {
		label := names.Of(a)
		if e := d.ApprovalStaff[a]; e != "" {
			label += " (by " + e + ")"
		}
		v.ApprovedBy = append(v.ApprovedBy, label)
	}
	v.Timeline = timeline(d.Events, d.Actions)
	v.Device = proposal.DeviceSummaryOf(p, names, d.OwnerAddress)
	if hasSign {
		panel := proposal.SignPanelOf(sr, now)
		v.Sign = &panel
		v.SignInFlight = p.Status == store.ProposalPendingSignatures &&
			(sr.State == store.SignRelaying || sr.State == store.SignRelayPending)
	}
	decideActions(&v, p, viewer.Can(store.PermApprovalsAct), viewer.Staff.ID, linked)
	return v, nil
}

// decideActions sets what the viewer may do now: exactly what the state
// allows (spec, proposal states: approve while PENDING_APPROVALS and again
// when FAILED, sign while PENDING_SIGNATURES, reject in any open state),
// narrowed by the viewer's role, link and part in the proposal.
func decideActions(v *views.ProposalDetailView, p store.Proposal, canAct bool, viewerID int64, linked string) {
	switch {
	case !p.Status.Open():
		return
	case !canAct:
		v.BlockedReason = "Your role may read the queue but not decide."
		return
	case p.CreatedByStaffID == viewerID && (p.Status == store.ProposalPendingApprovals || p.Status == store.ProposalFailed):
		v.BlockedReason = "You created this proposal, so someone else must approve it."
	case p.Status == store.ProposalPendingApprovals && needsLink(p) && linked == "":
		v.BlockedReason = "Link your account to a wallet admin before approving (Approval queue → link your account)."
	case p.Status == store.ProposalPendingApprovals && slices.Contains(p.Approvals, actingIdentity(p, linked)):
		v.BlockedReason = "You have approved this proposal; it waits for the other approvers."
	case p.Status == store.ProposalPendingApprovals:
		v.CanApprove = true
	case p.Status == store.ProposalFailed:
		v.CanApproveAgain = !needsLink(p) || linked != ""
		if !v.CanApproveAgain {
			v.BlockedReason = "Link your account to a wallet admin before approving again."
		}
	}
	v.CanReject = true
	v.CanSign = p.Status == store.ProposalPendingSignatures && !v.SignInFlight
	if v.CanApprove || v.CanApproveAgain {
		v.ApproveToken = handlers.NewFormToken()
	}
	v.RejectToken = handlers.NewFormToken()
	if v.CanSign {
		v.SignToken = handlers.NewFormToken()
	}
}

// timeline is the proposal's timeline: what the mirror recorded, and the
// writes about it that did not take effect (refused) or whose outcome is
// still open, from the action ledger.
func timeline(events []store.ProposalEvent, actions []store.Action) []views.TimelineEntry {
	var out []views.TimelineEntry
	for _, e := range events {
		out = append(out, views.TimelineEntry{At: e.At, Kind: e.Kind, Actor: e.Actor, Detail: e.Detail})
	}
	for _, a := range actions {
		if a.State == store.ActionDone {
			continue // the mirror's own entry says it
		}
		out = append(out, views.TimelineEntry{At: a.UpdatedAt, Kind: a.Kind + " " + string(a.State), Actor: a.Actor.Email, Detail: a.Message})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// needsLink reports whether approving needs an acting wallet admin.
func needsLink(p store.Proposal) bool { return proposal.NeedsLink(p) }

// partnerIdentity is the acting identity when the partner itself approves.
const partnerIdentity = proposal.PartnerIdentity

// actingIdentity is whom an approval is recorded against.
func actingIdentity(p store.Proposal, linked string) string {
	return proposal.ActingIdentity(p, linked)
}
