package approvals

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// Action kinds of this area: the same kinds (and keys) as every other
// area that approves or rejects (handlers/proposal).
const (
	kindApprove      = proposal.KindApprove
	kindApproveAgain = proposal.KindApproveAgain
	kindReject       = proposal.KindReject
)

// approveRequest is what the ledger keeps of an approval (handlers/proposal's, shared
// with payroll runs).
type approveRequest = proposal.ApproveRequest

// Approve approves a proposal as the viewer's wallet admin, or approves a
// FAILED one again (spec: "FAILED | POST .../approve again | workflow
// restarts"). The action's key is the approval itself — proposal, round and
// wallet admin — so a double click, a second tab or a colleague acting as
// the same admin makes one upstream call. The creator of a proposal in the
// app may not approve it.
func (h *Handler) Approve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	viewer := handlers.ViewerFrom(ctx)
	actor := viewer.Staff.Actor()
	p, err := h.store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	form, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	if r.PostFormValue("confirm") != "1" {
		h.renderDetail(w, r, id, detailState{status: http.StatusUnprocessableEntity, approveToken: r.PostFormValue(handlers.FormTokenField),
			reject: views.RejectForm{Fields: views.FieldErrors{"approve_confirm": "Tick the box to confirm you checked the amount and recipient."}}})
		return
	}
	refuse := func(status int, msg string) {
		if err := h.actions.Refused(ctx, kindApprove, "proposal:"+id, actor, msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderDetail(w, r, id, detailState{status: status, actionError: msg})
	}
	identity, status, msg, err := h.mayApprove(ctx, p, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if msg != "" {
		refuse(status, msg)
		return
	}
	req := approveRequest{ProposalID: p.ID, OwnerUserID: p.OwnerUserID, WalletID: p.WalletID, Round: p.Round,
		Identity: identity, Again: p.Status == store.ProposalFailed, ApprovalsBefore: len(p.Approvals), Form: form}
	kind := kindApprove
	if req.Again {
		req.Round, kind = p.Round+1, kindApproveAgain
	}
	key, err := h.approvalKey(ctx, req)
	if errors.Is(err, errTooManyAttempts) {
		refuse(http.StatusConflict, "The API refused this approval too many times; check the wallet admin you are linked to.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// Shared: a colleague acting as the same wallet admin may have sent
	// this approval.
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kind, Target: "proposal:" + p.ID, Actor: actor, Request: req,
		Shared: true, Call: func(ctx context.Context) (handlers.Effect, error) {
			if identity != partnerIdentity {
				ctx = apiclient.WithActingUser(ctx, identity)
			}
			after, err := h.api.ApproveProposal(ctx, p.OwnerUserID, p.ID)
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.approvalEffect(req, actor, *after), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	h.finished(w, r, p, done, views.RejectForm{}, "(A second click, another tab, or a colleague acting as the same wallet admin.)",
		func(after store.Proposal) string {
			msg := fmt.Sprintf("Approved: %d of %d approvals.", len(after.Approvals), after.RequiredApprovals)
			if after.Status == store.ProposalPendingSignatures {
				msg += " The owner's signature is needed next: send it to their device."
			}
			return msg
		})
}

// mayApprove is the wallet admin the viewer approves p as, or why they
// may not (a status and the words, identity ""), by the proposal's state
// and the separation of duties.
func (h *Handler) mayApprove(ctx context.Context, p store.Proposal, staffID int64) (identity string, status int, msg string, err error) {
	// Separation of duties: the initiator cannot approve their own request.
	if p.CreatedByStaffID == staffID {
		return "", http.StatusForbidden, "You created this proposal, so someone else must approve it.", nil
	}
	again := p.Status == store.ProposalFailed
	if p.Status != store.ProposalPendingApprovals && !again {
		return "", http.StatusConflict, "This proposal is " + views.StatusLabel(views.StatusProposal, string(p.Status)) + ": it no longer waits for approvals.", nil
	}
	linked, err := h.store.ApproverLink(ctx, staffID)
	if err != nil {
		return "", 0, "", err
	}
	identity = actingIdentity(p, linked)
	if identity == "" {
		return "", http.StatusConflict, "Link your account to a wallet admin of this wallet before approving (/approvals/link).", nil
	}
	if again {
		return identity, 0, "", nil
	}
	if slices.Contains(p.Approvals, identity) {
		return "", http.StatusConflict, "This wallet admin has already approved this proposal.", nil
	}
	// Separation of duties: one person's approval counts once, even when
	// they link to another wallet admin after approving.
	already, err := h.store.ApprovedByStaff(ctx, p.ID, staffID)
	if err != nil {
		return "", 0, "", err
	}
	if already {
		return "", http.StatusConflict, "You already approved this proposal (as another wallet admin): someone else must give the next approval.", nil
	}
	return identity, 0, "", nil
}

var errTooManyAttempts = proposal.ErrTooManyAttempts

// approvalKey is the action key of an approval (proposal.ApprovalKey).
func (h *Handler) approvalKey(ctx context.Context, req approveRequest) (string, error) {
	return proposal.ApprovalKey(ctx, h.store, req)
}

// approvalEffect is what an approval the API recorded changes here.
func (h *Handler) approvalEffect(req approveRequest, by store.Actor, after apiclient.Proposal) handlers.Effect {
	return proposal.ApprovalEffect(req, by, after, h.clock())
}

// finished answers a write that ran: done → back to the proposal with a
// flash; sent before → back to the proposal saying what the first attempt
// did (and repeat, when given); refused or unknown → the proposal with the
// outcome in words and what was typed kept (in a form with a new token).
func (h *Handler) finished(w http.ResponseWriter, r *http.Request, p store.Proposal, done handlers.Done, typed views.RejectForm,
	repeat string, ok func(store.Proposal) string) {
	ctx := r.Context()
	switch {
	case done.Repeat:
		h.Repeated(w, r, done.Action, "/approvals/"+p.ID, repeat)
		return
	case done.State() == store.ActionDone:
		after, err := h.store.ProposalByID(ctx, p.ID)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Flash(r, "ok", ok(after))
		h.Redirect(w, r, "/approvals/"+p.ID)
		return
	}
	h.Logger.WarnContext(ctx, "proposal write not done", "kind", done.Action.Kind, "proposal", p.ID, "state", done.State(), "err", done.Err)
	status := http.StatusAccepted // unknown: the outcome is read back later
	if done.State() == store.ActionRefused {
		status = http.StatusBadGateway
		if s := done.Problem.Status; s == http.StatusConflict || s == http.StatusNotFound {
			// The proposal moved on upstream: show where it is now.
			if err := h.Sync.SyncWallet(ctx, p.WalletID, p.OwnerUserID); err != nil {
				h.Logger.WarnContext(ctx, "re-read the wallet's proposals", "wallet", p.WalletID, "err", err)
			}
		}
	}
	msg := done.Problem.Summary
	if msg == "" {
		msg = done.Action.Message
	}
	h.renderDetail(w, r, p.ID, detailState{status: status, actionError: msg, reject: typed})
}
