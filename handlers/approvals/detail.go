package approvals

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// detailState is what the detail page is rendered from.
type detailState struct {
	status      int
	actionError string
	reject      views.RejectForm
	sign        *views.SignPanel // overrides the latest request (carries the link right after creation)
}

// Detail shows one proposal with its timeline and the actions the viewer
// may take.
func (h *Handler) Detail(w http.ResponseWriter, r *http.Request) {
	h.renderDetail(w, r, chi.URLParam(r, "id"), detailState{status: http.StatusOK})
}

// RenderDetail renders the detail page with a sign panel (the sign area
// uses it right after creating a request).
func (h *Handler) RenderDetail(w http.ResponseWriter, r *http.Request, id string, status int, actionError string, sign *views.SignPanel) {
	h.renderDetail(w, r, id, detailState{status: status, actionError: actionError, sign: sign})
}

func (h *Handler) renderDetail(w http.ResponseWriter, r *http.Request, id string, st detailState) {
	ctx := r.Context()
	p, err := h.Store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	view, err := h.detailView(ctx, p)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	view.ActionError = st.actionError
	if st.reject.Fields != nil {
		view.RejectForm = st.reject
	}
	if st.sign != nil {
		view.Sign = st.sign
	}
	h.Render(w, r, st.status, view.Row.Type+" proposal", views.ProposalDetailPage(view), views.ProposalSummary(view))
}

func (h *Handler) detailView(ctx context.Context, p store.Proposal) (views.ProposalDetailView, error) {
	viewer := handlers.ViewerFrom(ctx)
	linked, err := h.Store.ApproverLink(ctx, viewer.Staff.ID)
	if err != nil {
		return views.ProposalDetailView{}, err
	}
	names, err := LoadNames(ctx, h.Store, p)
	if err != nil {
		return views.ProposalDetailView{}, err
	}
	now := h.now()
	row := Row(p, names, now, linked, viewer.Staff.ID)
	v := views.ProposalDetailView{
		Row: row, WalletID: p.WalletID, OwnerUserID: p.OwnerUserID, ToAddress: p.ToAddress, ToStablecoin: p.ToStablecoin,
		SlippageBps: p.SlippageBps, Rejection: p.RejectionReason, Failure: p.FailureReason,
		RejectForm: views.RejectForm{Fields: views.FieldErrors{}},
	}
	staffBy, err := h.Store.ApprovalStaff(ctx, p.ID)
	if err != nil {
		return v, err
	}
	for _, a := range p.Approvals {
		label := names.Of(a)
		if e := staffBy[a]; e != "" {
			label += " (by " + e + ")"
		}
		v.ApprovedBy = append(v.ApprovedBy, label)
	}
	events, err := h.Store.ProposalEvents(ctx, p.ID)
	if err != nil {
		return v, err
	}
	for _, e := range events {
		v.Timeline = append(v.Timeline, views.TimelineEntry{At: e.At, Kind: e.Kind, Actor: e.Actor, Detail: e.Detail})
	}
	owner := ""
	if wlt, err := h.Store.WalletByID(ctx, p.WalletID); err == nil {
		owner = wlt.OwnerAddress
	} else if !errors.Is(err, store.ErrNotFound) {
		return v, err
	}
	v.Device = DeviceSummaryOf(p, names, owner)
	if sr, err := h.Store.LatestSignRequest(ctx, p.ID); err == nil {
		panel := SignPanelOf(sr, now)
		v.Sign = &panel
	} else if !errors.Is(err, store.ErrNotFound) {
		return v, err
	}

	canAct := viewer.Can(store.PermApprovalsAct)
	switch {
	case !canAct:
		v.BlockedReason = "Your role may read the queue but not decide."
	case p.CreatedByStaffID == viewer.Staff.ID && (p.Status == store.ProposalPendingApprovals || p.Status == store.ProposalFailed):
		v.BlockedReason = "You created this proposal, so someone else must approve it."
	case p.Status == store.ProposalPendingApprovals && needsLink(p) && linked == "":
		v.BlockedReason = "Link your account to a wallet admin before approving (Approval queue → link your account)."
	case p.Status == store.ProposalPendingApprovals && contains(p.Approvals, actingIdentity(p, linked)):
		v.BlockedReason = "You have approved this proposal; it waits for the other approvers."
	case p.Status == store.ProposalPendingApprovals:
		v.CanApprove = true
	case p.Status == store.ProposalFailed:
		v.CanApproveAgain = !needsLink(p) || linked != ""
		if !v.CanApproveAgain {
			v.BlockedReason = "Link your account to a wallet admin before approving again."
		}
	}
	if canAct && (p.Status == store.ProposalPendingApprovals || p.Status == store.ProposalPendingSignatures || p.Status == store.ProposalFailed) {
		v.CanReject = true
	}
	if canAct && p.Status == store.ProposalPendingSignatures {
		v.CanSign = true
	}
	return v, nil
}

// needsLink reports whether approving needs an acting wallet admin: every
// mode but OWNER_APPROVAL names admins.
func needsLink(p store.Proposal) bool {
	return p.ApprovalMode != "" && p.ApprovalMode != "OWNER_APPROVAL"
}

// partnerIdentity is the claim key when the partner itself approves.
const partnerIdentity = "partner"

// actingIdentity is whom an approval is recorded against.
func actingIdentity(p store.Proposal, linked string) string {
	if needsLink(p) {
		return linked
	}
	return partnerIdentity
}

// DeviceSummaryOf is what the owner's device shows for a proposal.
func DeviceSummaryOf(p store.Proposal, names Names, ownerAddress string) views.DeviceSummary {
	return views.DeviceSummary{
		Title: "Approve " + typeLabel(p) + " " + p.ID, Amount: Money(p).String(), From: names.Of(p.OwnerUserID),
		To: names.Recipient(p), Description: p.Description, OwnerAddress: ownerAddress,
	}
}

// SignPanelOf is the approver's view of a sign request (without its link,
// which only exists in the answer that created it).
func SignPanelOf(sr store.SignRequest, now time.Time) views.SignPanel {
	p := views.SignPanel{ID: sr.ID, ExpiresAt: sr.ExpiresAt, State: sr.State, Error: sr.Error, Final: sr.Final()}
	if sr.Open(time.Time{}) && !now.Before(sr.ExpiresAt) {
		p.State, p.Final, p.Error = store.SignExpired, true, "the link expired before it was used"
	}
	p.PollURL = "/approvals/" + sr.ProposalID + "/sign-requests/" + itoa(sr.ID)
	if sr.ProposalID == "" {
		p.PollURL = "/sign-requests/" + itoa(sr.ID)
	}
	p.Label, p.Class = signLabel(p.State)
	order := map[string]int{store.SignWaiting: 0, store.SignOpened: 1, store.SignChecking: 1, store.SignRelaying: 2,
		store.SignRelayPending: 2, store.SignSubmitted: 3, store.SignCompleted: 4}
	reached, ok := order[p.State]
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

func signLabel(state string) (string, string) {
	switch state {
	case store.SignWaiting:
		return "waiting for the device", "badge-pending"
	case store.SignOpened:
		return "opened on the device", "badge-pending"
	case store.SignChecking, store.SignRelaying:
		return "signature checked, sending", "badge-pending"
	case store.SignRelayPending:
		return "the API did not answer: the signature is kept and will be resolved", "badge-warn"
	case store.SignSubmitted:
		return "submitted", "badge-ok"
	case store.SignCompleted:
		return "completed", "badge-completed"
	case store.SignExpired:
		return "expired", "badge-failed"
	case store.SignRefused:
		return "refused", "badge-refused"
	case store.SignSuperseded:
		return "replaced by a newer link", "badge-failed"
	}
	return state, "badge-pending"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
