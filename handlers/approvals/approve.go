package approvals

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/mirror"
	"partneradmin/store"
	"partneradmin/views"
)

// Action kinds of this area.
const (
	kindApprove      = "proposal.approve"
	kindApproveAgain = "proposal.approve_again"
	kindReject       = "proposal.reject"
)

// maxApprovalAttempts bounds how often one admin's approval of one round
// may be sent after the API refused the earlier attempts.
const maxApprovalAttempts = 20

// approveRequest is what the ledger keeps of an approval: enough to read it
// back after a restart.
type approveRequest struct {
	ProposalID  string `json:"proposalId"`
	OwnerUserID string `json:"ownerUserId"`
	WalletID    string `json:"walletId"`
	Round       int    `json:"round"`
	// Identity is the wallet admin the approval is sent as (partnerIdentity:
	// the partner itself).
	Identity        string `json:"identity"`
	Again           bool   `json:"again"`
	ApprovalsBefore int    `json:"approvalsBefore"`
	// Form is the key of the form that sent it (its one-time token).
	Form string `json:"form,omitempty"`
}

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
		if err := h.store.Audit(ctx, store.AuditEntry{Actor: actor, Action: kindApprove, Target: "proposal:" + id,
			Outcome: store.OutcomeRefused, Detail: msg}); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderDetail(w, r, id, detailState{status: status, actionError: msg})
	}
	// Separation of duties: the initiator cannot approve their own request.
	if p.CreatedByStaffID == viewer.Staff.ID {
		refuse(http.StatusForbidden, "You created this proposal, so someone else must approve it.")
		return
	}
	again := p.Status == store.ProposalFailed
	if p.Status != store.ProposalPendingApprovals && !again {
		refuse(http.StatusConflict, "This proposal is "+p.Status.Label()+": it no longer waits for approvals.")
		return
	}
	linked, err := h.store.ApproverLink(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	identity := actingIdentity(p, linked)
	if identity == "" {
		refuse(http.StatusConflict, "Link your account to a wallet admin of this wallet before approving (/approvals/link).")
		return
	}
	if !again && slices.Contains(p.Approvals, identity) {
		refuse(http.StatusConflict, "This wallet admin has already approved this proposal.")
		return
	}
	req := approveRequest{ProposalID: p.ID, OwnerUserID: p.OwnerUserID, WalletID: p.WalletID, Round: p.Round,
		Identity: identity, Again: again, ApprovalsBefore: len(p.Approvals), Form: form}
	kind := kindApprove
	if again {
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
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kind, Target: "proposal:" + p.ID, Actor: actor, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if identity != partnerIdentity {
				ctx = apiclient.WithActingUser(ctx, identity)
			}
			after, err := h.api.ApproveProposal(ctx, p.OwnerUserID, p.ID)
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.approvalEffect(req, actor, *after), nil
		}})
	if errors.Is(err, handlers.ErrKeyReused) && done.Action.Kind == kind {
		// A colleague acting as the same wallet admin sent this approval.
		err = nil
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.finished(w, r, p, done, views.RejectForm{}, "This approval was already sent (a second click, another tab, or a colleague acting as the same wallet admin)",
		func(after store.Proposal) string {
			msg := fmt.Sprintf("Approved: %d of %d approvals.", len(after.Approvals), after.RequiredApprovals)
			if after.Status == store.ProposalPendingSignatures {
				msg += " The owner's signature is needed next: send it to their device."
			}
			return msg
		})
}

var errTooManyAttempts = errors.New("approvals: too many attempts")

// approvalKey is the action key of an approval: the approval itself
// (proposal, round, wallet admin). An attempt the API refused settles
// nothing, so a new form gets the next attempt number; an attempt that is
// done, on its way or unknown, or the refused attempt of this very form, is
// the answer.
func (h *Handler) approvalKey(ctx context.Context, req approveRequest) (string, error) {
	base := "approve:" + req.ProposalID + ":" + strconv.Itoa(req.Round) + ":" + req.Identity
	for n := 1; n <= maxApprovalAttempts; n++ {
		key := base
		if n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		a, err := h.store.ActionByKey(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			return key, nil
		}
		if err != nil {
			return "", err
		}
		if a.State != store.ActionRefused {
			return key, nil
		}
		var sent approveRequest
		if err := a.DecodeRequest(&sent); err != nil {
			return "", err
		}
		if sent.Form == req.Form {
			return key, nil
		}
	}
	return "", errTooManyAttempts
}

// approvalEffect is what an approval the API recorded changes here.
func (h *Handler) approvalEffect(req approveRequest, by store.Actor, after apiclient.Proposal) handlers.Effect {
	p := mirror.FromAPI(after, req.OwnerUserID, h.clock())
	a := store.Approval{ProposalID: req.ProposalID, Round: req.Round, ServiceUserID: req.Identity, By: by, Again: req.Again}
	return handlers.Effect{Target: "proposal:" + req.ProposalID, Detail: store.ApprovalDetail(a, p),
		Result: map[string]any{"status": p.Status, "approvals": len(p.Approvals)},
		Apply:  func(ctx context.Context, tx *store.Store) error { return tx.RecordApproval(ctx, a, p) }}
}

// readBackApproval reads the proposal to learn whether an approval was
// recorded: the admin is among its approvals (for the partner itself, there
// are more approvals than before or the proposal moved on); an approval
// again must also have taken the proposal out of FAILED.
func (h *Handler) readBackApproval(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var req approveRequest
	if err := a.DecodeRequest(&req); err != nil {
		return handlers.Effect{}, false, err
	}
	cur, err := h.api.GetProposal(ctx, req.OwnerUserID, req.ProposalID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	recorded := slices.Contains(cur.Approvals, req.Identity)
	if req.Identity == partnerIdentity {
		recorded = len(cur.Approvals) > req.ApprovalsBefore || cur.Status != apiclient.ProposalPendingApprovals
	}
	if req.Again {
		recorded = recorded && cur.Status != apiclient.ProposalFailed
	}
	if !recorded {
		return handlers.Effect{}, false, nil
	}
	return h.approvalEffect(req, a.Actor, *cur), true, nil
}

// finished answers a write that ran: done → back to the proposal with a
// flash; sent before → back to the proposal saying what the first attempt
// did; refused or unknown → the proposal with the outcome in words and what
// was typed kept (in a form with a new token).
func (h *Handler) finished(w http.ResponseWriter, r *http.Request, p store.Proposal, done handlers.Done, typed views.RejectForm,
	repeat string, ok func(store.Proposal) string) {
	ctx := r.Context()
	switch {
	case done.Repeat:
		msg := repeat + ": " + done.Action.State.Label() + "."
		if done.Action.Message != "" && done.Action.State != store.ActionDone {
			msg += " " + done.Action.Message
		}
		h.Flash(r, "info", msg)
		h.Redirect(w, r, "/approvals/"+p.ID)
		return
	case done.State() == store.ActionDone:
		h.totals.forget()
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
			h.totals.forget()
		}
	}
	msg := done.Problem.Summary
	if msg == "" {
		msg = done.Action.Message
	}
	h.renderDetail(w, r, p.ID, detailState{status: status, actionError: msg, reject: typed})
}
