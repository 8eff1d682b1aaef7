package approvals

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// MaxReasonLength is the longest rejection reason (spec: 500 characters).
const MaxReasonLength = 500

// rejectRequest is what the ledger keeps of a rejection (handlers/proposal's).
type rejectRequest = proposal.RejectRequest

// Reject abandons an open proposal with a required reason. The form's
// one-time token is the action's key.
func (h *Handler) Reject(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	actor := handlers.ActorFrom(ctx)
	p, err := h.store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	form := views.RejectForm{Reason: r.PostFormValue("reason"), Fields: views.FieldErrors{}}
	reason := strings.TrimSpace(form.Reason)
	switch msg := handlers.CheckText(reason, MaxReasonLength, true); {
	case msg != "":
		form.Fields["reason"] = msg
	case reason == "":
		form.Fields["reason"] = "Say why the proposal is rejected; approvers and the requester see it."
	}
	if r.PostFormValue("confirm") != "1" {
		form.Fields["confirm"] = "Tick the box to confirm the proposal is abandoned."
	}
	if form.Fields.Any() {
		h.renderDetail(w, r, id, detailState{status: http.StatusUnprocessableEntity, reject: form,
			rejectToken: r.PostFormValue(handlers.FormTokenField)})
		return
	}
	if !p.Status.Open() {
		msg := "This proposal is " + views.StatusLabel(views.StatusProposal, string(p.Status)) + ": it can no longer be rejected."
		if err := h.actions.Refused(ctx, kindReject, "proposal:"+id, actor, msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderDetail(w, r, id, detailState{status: http.StatusConflict, actionError: msg, reject: form})
		return
	}
	req := rejectRequest{ProposalID: p.ID, OwnerUserID: p.OwnerUserID, Reason: reason}
	if needsLink(p) {
		linked, err := h.store.ApproverLink(ctx, actor.StaffID)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		req.ActingAs = linked
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindReject, Target: "proposal:" + p.ID, Actor: actor, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if req.ActingAs != "" {
				ctx = apiclient.WithActingUser(ctx, req.ActingAs)
			}
			after, err := h.api.RejectProposal(ctx, p.OwnerUserID, p.ID, apiclient.RejectProposalRequest{Reason: reason})
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.rejectionEffect(req, actor, *after), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	h.finished(w, r, p, done, form, "", func(store.Proposal) string { return "Proposal rejected." })
}

// rejectionEffect is what a rejection the API recorded changes here.
func (h *Handler) rejectionEffect(req rejectRequest, by store.Actor, after apiclient.Proposal) handlers.Effect {
	return proposal.RejectionEffect(req, by, after, h.clock())
}
