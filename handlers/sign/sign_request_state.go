package sign

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// State is the live state of a sign request, the fragment the approver's
// page polls. A submitted request follows its proposal to COMPLETED (or
// FAILED) by reading the proposal from the API; a workflow request shows
// its crypto withdrawal's outcome once a withdrawal webhook recorded it.
func (h *Handler) State(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := strconv.ParseInt(chi.URLParam(r, "rid"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return
	}
	sr, err := h.store.SignRequestByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && sr.ProposalID != chi.URLParam(r, "id")) {
		// /sign-requests/{rid} (no proposal id) serves the requests of no
		// proposal: owner proofs and workflows.
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if sr.State == store.SignSubmitted && sr.ProposalID != "" {
		if err := h.follow(r, sr); err != nil {
			h.Logger.WarnContext(ctx, "follow submitted proposal", "proposal", sr.ProposalID, "err", err)
		}
		if sr, err = h.store.SignRequestByID(ctx, id); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	panel := proposal.SignPanelOf(sr, h.clock())
	if sr.Kind == store.SignKindWorkflow {
		// A withdrawal's request ends with the withdrawal's outcome on the
		// rail, which its webhook records.
		if panel, err = h.workflowPanel(ctx, sr); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	h.RenderFragment(w, r, http.StatusOK, views.SignStateView(panel))
}

// follow reads a submitted proposal and moves the request to completed, or
// to refused with the failure reason.
func (h *Handler) follow(r *http.Request, sr store.SignRequest) error {
	ctx := r.Context()
	p, err := h.api.GetProposal(ctx, sr.UserID, sr.ProposalID)
	if err != nil {
		return err
	}
	if _, err := h.store.UpsertProposal(ctx, proposal.FromAPI(*p, sr.UserID, h.clock())); err != nil {
		return err
	}
	switch p.Status {
	case apiclient.ProposalCompleted:
		_, err = h.store.SetSignState(ctx, sr.ID, store.SignSubmitted, store.SignCompleted, "")
	case apiclient.ProposalFailed:
		_, err = h.store.SetSignState(ctx, sr.ID, store.SignSubmitted, store.SignRefused, "The proposal failed after submission: "+p.FailureReason)
	}
	return err
}
