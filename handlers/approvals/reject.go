package approvals

import (
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// MaxReasonLength is the longest rejection reason (spec: 500 characters).
const MaxReasonLength = 500

// Reject abandons an open proposal with a required reason.
func (h *Handler) Reject(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	actor := handlers.ActorFrom(ctx)
	p, err := h.Store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	form := views.RejectForm{Reason: r.PostFormValue("reason"), Fields: views.FieldErrors{}}
	reason := strings.TrimSpace(form.Reason)
	switch {
	case reason == "":
		form.Fields["reason"] = "Say why the proposal is rejected; approvers and the requester see it."
	case len([]rune(reason)) > MaxReasonLength:
		form.Fields["reason"] = "Keep the reason to 500 characters (it has " + itoa(int64(len([]rune(reason)))) + ")."
	}
	if r.PostFormValue("confirm") != "1" {
		form.Fields["confirm"] = "Tick the box to confirm the proposal is abandoned."
	}
	if form.Fields.Any() {
		h.renderDetail(w, r, id, detailState{status: http.StatusUnprocessableEntity, reject: form})
		return
	}
	if !apiclient.ProposalStatus(p.Status).IsOpen() {
		msg := "This proposal is " + p.Status + " and can no longer be rejected."
		if err := h.Store.Audit(ctx, store.AuditEntry{Actor: actor, Action: "proposal.reject", Target: "proposal:" + id, Outcome: store.OutcomeRefused, Detail: msg}); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderDetail(w, r, id, detailState{status: http.StatusConflict, actionError: msg, reject: form})
		return
	}
	callCtx := ctx
	if linked, err := h.Store.ApproverLink(ctx, actor.StaffID); err == nil && linked != "" && needsLink(p) {
		callCtx = apiclient.WithActingUser(ctx, linked)
	}
	after, err := h.API.RejectProposal(callCtx, p.OwnerUserID, p.ID, apiclient.RejectProposalRequest{Reason: reason})
	if err != nil {
		msg := upstreamWords(err)
		outcome := store.OutcomeRefused
		if apiclient.StatusCode(err) == 0 || apiclient.StatusCode(err) >= 500 {
			outcome = store.OutcomeFailed
		}
		if aerr := h.Store.Audit(ctx, store.AuditEntry{Actor: actor, Action: "proposal.reject", Target: "proposal:" + id, Outcome: outcome, Detail: msg}); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		h.Logger.WarnContext(ctx, "reject proposal failed", "proposal", id, "err", err)
		if err := h.Sync.SyncWallet(ctx, p.WalletID, p.OwnerUserID); err != nil {
			h.Logger.WarnContext(ctx, "re-read the wallet's proposals", "wallet", p.WalletID, "err", err)
		}
		h.renderDetail(w, r, id, detailState{status: http.StatusBadGateway, actionError: msg, reject: form})
		return
	}
	if err := h.Store.RecordRejection(ctx, FromAPI(*after, p.OwnerUserID), actor, reason); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.totals.forget()
	h.Flash(r, "ok", "Proposal rejected.")
	h.Redirect(w, r, "/approvals/"+id)
}
