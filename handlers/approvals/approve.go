package approvals

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Approve approves a proposal as the viewer's wallet admin, or approves a
// FAILED one again (spec: "FAILED | POST .../approve again | workflow
// restarts"). A claim row makes a double click, or two staff acting as the
// same admin, exactly one upstream call; the creator of a proposal in the
// app may not approve it.
func (h *Handler) Approve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	viewer := handlers.ViewerFrom(ctx)
	actor := viewer.Staff.Actor()
	p, err := h.Store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	refuse := func(status int, msg string) {
		if err := h.Store.Audit(ctx, store.AuditEntry{Actor: actor, Action: "proposal.approve", Target: "proposal:" + id,
			Outcome: store.OutcomeRefused, Detail: msg}); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderDetail(w, r, id, detailState{status: status, actionError: msg})
	}
	if r.PostFormValue("confirm") != "1" {
		h.renderDetail(w, r, id, detailState{status: http.StatusUnprocessableEntity,
			reject: views.RejectForm{Fields: views.FieldErrors{"approve_confirm": "Tick the box to confirm you checked the amount and recipient."}}})
		return
	}
	// Separation of duties: the initiator cannot approve their own request.
	if p.CreatedByStaffID == viewer.Staff.ID {
		refuse(http.StatusForbidden, "You created this proposal, so someone else must approve it.")
		return
	}
	again := p.Status == store.ProposalFailed
	if p.Status != store.ProposalPendingApprovals && !again {
		refuse(http.StatusConflict, "This proposal is "+p.Status+" and no longer waits for approvals.")
		return
	}
	linked, err := h.Store.ApproverLink(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	identity := actingIdentity(p, linked)
	if identity == "" {
		refuse(http.StatusConflict, "Link your account to a wallet admin of this wallet before approving (/approvals/link).")
		return
	}
	if !again && contains(p.Approvals, identity) {
		refuse(http.StatusConflict, "This wallet admin has already approved this proposal.")
		return
	}
	claim := store.ApprovalClaim{ProposalID: p.ID, Round: p.Round, ServiceUserID: identity, StaffID: viewer.Staff.ID}
	if again {
		claim.Round = p.Round + 1
	}
	if err := h.Store.ClaimApproval(ctx, claim); errors.Is(err, store.ErrConflict) {
		refuse(http.StatusConflict, "This approval was already sent (a second click, or a colleague acting as the same wallet admin). Nothing more was sent.")
		return
	} else if err != nil {
		h.ServerError(w, r, err)
		return
	}
	callCtx := ctx
	if identity != partnerIdentity {
		callCtx = apiclient.WithActingUser(ctx, identity)
	}
	after, err := h.API.ApproveProposal(callCtx, p.OwnerUserID, p.ID)
	if err != nil {
		h.approveFailed(w, r, p, claim, identity, again, err)
		return
	}
	if _, err := h.Store.FinishApproval(ctx, claim, FromAPI(*after, p.OwnerUserID), actor, again); err != nil {
		h.ServerError(w, r, err)
		return
	}
	msg := fmt.Sprintf("Approved: %d of %d approvals.", len(after.Approvals), after.RequiredApprovals)
	if after.Status == apiclient.ProposalPendingSignatures {
		msg += " The owner's signature is needed next: send it to their device."
	}
	h.totals.forget()
	h.Flash(r, "ok", msg)
	h.Redirect(w, r, "/approvals/"+p.ID)
}

// approveFailed resolves a failed approve call. When the API answered, it
// refused: the claim is released and the refusal shown in words. When it did
// not answer, the proposal is read back: an approval the API recorded is
// kept, otherwise the claim is released; never a blind second POST.
func (h *Handler) approveFailed(w http.ResponseWriter, r *http.Request, p store.Proposal, claim store.ApprovalClaim, identity string, again bool, callErr error) {
	ctx := r.Context()
	actor := handlers.ActorFrom(ctx)
	if apiclient.StatusCode(callErr) == 0 {
		if cur, err := h.API.GetProposal(ctx, p.OwnerUserID, p.ID); err == nil {
			recorded := contains(cur.Approvals, identity) || (identity == partnerIdentity && len(cur.Approvals) > len(p.Approvals))
			if recorded && (!again || cur.Status != apiclient.ProposalFailed) {
				if _, err := h.Store.FinishApproval(ctx, claim, FromAPI(*cur, p.OwnerUserID), actor, again); err != nil {
					h.ServerError(w, r, err)
					return
				}
				h.totals.forget()
				h.Flash(r, "ok", "Approved (confirmed by reading the proposal back after a slow answer).")
				h.Redirect(w, r, "/approvals/"+p.ID)
				return
			}
			if _, err := h.Store.UpsertProposal(ctx, FromAPI(*cur, p.OwnerUserID)); err != nil {
				h.ServerError(w, r, err)
				return
			}
		}
	}
	msg := upstreamWords(callErr)
	outcome := store.OutcomeRefused
	if apiclient.StatusCode(callErr) == 0 || apiclient.StatusCode(callErr) >= 500 {
		outcome = store.OutcomeFailed
	}
	if err := h.Store.ReleaseApproval(ctx, claim, actor, outcome, msg); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Logger.WarnContext(ctx, "approve proposal failed", "proposal", p.ID, "err", callErr)
	if apiclient.IsConflict(callErr) || apiclient.IsNotFound(callErr) {
		if err := h.Sync.SyncWallet(ctx, p.WalletID, p.OwnerUserID); err != nil {
			h.Logger.WarnContext(ctx, "re-read the wallet's proposals", "wallet", p.WalletID, "err", err)
		}
	}
	h.renderDetail(w, r, p.ID, detailState{status: http.StatusBadGateway, actionError: msg})
}

// upstreamWords says what an upstream failure means, for a person.
func upstreamWords(err error) string {
	var ae *apiclient.Error
	switch {
	case errors.As(err, &ae) && ae.StatusCode == http.StatusForbidden:
		return "The API refused: the wallet admin you act as is not an admin of this wallet (" + ae.Message() + ")."
	case errors.As(err, &ae) && ae.StatusCode == http.StatusConflict:
		return "The API refused: the proposal changed state meanwhile (" + ae.Message() + "). The page shows its current state."
	case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound:
		return "The API no longer knows this proposal."
	case errors.As(err, &ae) && ae.StatusCode < 500:
		return "The API refused the request: " + ae.Message()
	case errors.As(err, &ae):
		return "The API failed (" + ae.Message() + "). Nothing was recorded; try again in a moment."
	}
	return "The API did not answer. Nothing is known to have been recorded; check the proposal's state before trying again."
}
