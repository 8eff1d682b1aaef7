package payroll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// maxReasonLength is the longest cancellation reason (spec: a rejection's
// reason, like a description, up to 500 characters).
const maxReasonLength = 500

// Cancel stops a run before signing: rows not sent yet are not sent, and
// every proposal of the run not signed yet is rejected at the API with the
// typed reason, each through the ledger (keyed by run, row and this form,
// so a double click rejects once). Signed or paid rows are not affected.
func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	page := fmt.Sprintf("/payroll/%d", run.ID)
	actor := handlers.ActorFrom(ctx)
	typed := r.PostFormValue("reason")
	reason, fields := checkCancelForm(typed, r.PostFormValue("confirm") == "1")
	if fields.Any() {
		v, err := h.runView(ctx, run, run.State == store.PayrollPreview, rowWindow{}, true)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.CancelFields, v.CancelReason, v.CancelToken = fields, typed, r.PostFormValue(handlers.FormTokenField)
		v.CancelConfirm = r.PostFormValue("confirm") == "1"
		h.Render(w, r, http.StatusUnprocessableEntity, "Payroll run", views.PayrollRunPage(v), nil)
		return
	}
	detail := "canceled: " + reason
	if run.State == store.PayrollCanceled {
		detail = "rejecting the run's remaining open proposals: " + reason
	}
	d, err := h.actions.RunLocal(ctx, handlers.Local{Key: key, Kind: kindCancel, Target: "payroll:" + fmt.Sprint(run.ID), Actor: actor,
		Request: map[string]any{"runId": run.ID, "reason": reason}, Detail: detail,
		Change: func(ctx context.Context, tx *store.Store) error {
			err := tx.CancelPayrollRun(ctx, run.ID, reason)
			if errors.Is(err, store.ErrConflict) {
				return nil // canceled before: its remaining proposals are rejected now
			}
			return err
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	ctx = context.WithoutCancel(ctx)
	outcomes, err := h.rejectOpen(ctx, run, reason, actor, strings.TrimPrefix(key, "form:"))
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	run, err = h.store.PayrollRunByID(ctx, run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v, err := h.runView(ctx, run, false, rowWindow{}, true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.CancelResult = outcomes
	h.Render(w, r, http.StatusOK, "Payroll run", views.PayrollRunPage(v), nil)
}

// rejectRow rejects one row's proposal through the ledger.
func (h *Handler) rejectRow(ctx context.Context, run store.PayrollRun, row store.PayrollRow, reason, linked string, actor store.Actor,
	token string) (views.PayrollOutcome, error) {
	p := *row.Proposal
	req := proposal.RejectRequest{ProposalID: p.ID, OwnerUserID: p.OwnerUserID, Reason: reason}
	if proposal.NeedsLink(p) {
		req.ActingAs = linked
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: fmt.Sprintf("payroll:%d:%d:reject:%s", run.ID, row.Line, token),
		Kind: proposal.KindReject, Target: "proposal:" + p.ID, Actor: actor, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if req.ActingAs != "" {
				ctx = apiclient.WithActingUser(ctx, req.ActingAs)
			}
			after, err := h.api.RejectProposal(ctx, p.OwnerUserID, p.ID, apiclient.RejectProposalRequest{Reason: reason})
			if err != nil {
				return handlers.Effect{}, err
			}
			return proposal.RejectionEffect(req, actor, *after, h.clock()), nil
		}})
	if err != nil {
		return views.PayrollOutcome{}, err
	}
	switch {
	case done.Repeat:
		return views.PayrollOutcome{Text: "this rejection was already sent (" + views.StatusLabel(views.StatusAction, string(done.Action.State)) + ")."}, nil
	case done.State() == store.ActionDone:
		return views.PayrollOutcome{OK: true, Text: "proposal rejected."}, nil
	}
	msg := done.Problem.Summary
	if msg == "" {
		msg = done.Action.Message
	}
	return views.PayrollOutcome{Text: "not rejected: " + msg}, nil
}

// checkCancelForm checks the reason typed (trimmed, returned) and the
// confirmation, putting each problem beside its field.
func checkCancelForm(typed string, confirmed bool) (string, views.FieldErrors) {
	reason := strings.TrimSpace(typed)
	fields := views.FieldErrors{}
	switch msg := handlers.CheckText(reason, maxReasonLength, true); {
	case msg != "":
		fields["reason"] = msg
	case reason == "":
		fields["reason"] = "Say why the run is canceled; approvers and the requester see it."
	}
	if !confirmed {
		fields["confirm"] = "Tick the box to confirm the open proposals are rejected for good."
	}
	return reason, fields
}

// rejectOpen rejects the canceled run's proposals still open and unsigned,
// as the actor, and says what became of each.
func (h *Handler) rejectOpen(ctx context.Context, run store.PayrollRun, reason string, actor store.Actor, token string) ([]views.PayrollOutcome, error) {
	rows, err := h.store.PayrollRows(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	var open []store.PayrollRow
	for _, row := range rows {
		if cancelable(row) {
			open = append(open, row)
		}
	}
	linked, err := h.store.ApproverLink(ctx, actor.StaffID)
	if err != nil {
		return nil, err
	}
	outcomes, err := h.forRows(ctx, open, func(ctx context.Context, row store.PayrollRow) (views.PayrollOutcome, error) {
		return h.rejectRow(ctx, run, row, reason, linked, actor, token)
	})
	if err != nil {
		return nil, err
	}
	if len(outcomes) == 0 {
		outcomes = []views.PayrollOutcome{{OK: true, Text: "The run is canceled; none of its proposals was open and unsigned."}}
	}
	return outcomes, nil
}
