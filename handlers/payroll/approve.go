package payroll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/mirror"
	"partneradmin/store"
	"partneradmin/views"
)

// forRows runs fn for each row with at most Concurrency at once and returns
// the outcomes in row order.
func (h *Handler) forRows(ctx context.Context, rows []store.PayrollRow, fn func(ctx context.Context, row store.PayrollRow) (views.PayrollOutcome, error)) ([]views.PayrollOutcome, error) {
	out := make([]views.PayrollOutcome, len(rows))
	sem := make(chan struct{}, h.concurrency())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i, row := range rows {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			o, err := fn(ctx, row)
			o.Line = row.Line
			out[i] = o
			if err != nil {
				mu.Lock()
				firstErr = errors.Join(firstErr, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

// Approve approves, in one action, every proposal of the run the viewer may
// approve: the separation of duties holds per row (whoever sent a proposal
// may not approve it; a wallet admin approves once per round), and each
// approval is sent once through the ledger under the approval queue's own
// key (proposal, round, wallet admin), so approving a row here and in the
// queue can never both be sent. Rows that cannot be approved are listed
// with the reason.
func (h *Handler) Approve(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	form, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	viewer := handlers.ViewerFrom(ctx)
	actor := viewer.Staff.Actor()
	linked, err := h.store.ApproverLink(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	rows, err := h.store.PayrollRows(ctx, run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var pending []store.PayrollRow
	for _, row := range rows {
		if row.Proposal != nil && row.Proposal.Status == store.ProposalPendingApprovals {
			pending = append(pending, row)
		}
	}
	outcomes, err := h.forRows(ctx, pending, func(ctx context.Context, row store.PayrollRow) (views.PayrollOutcome, error) {
		return h.approveRow(ctx, row, viewer.Staff.ID, linked, actor, form)
	})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	approved, refused := 0, 0
	var reasons []string
	for _, o := range outcomes {
		if o.OK {
			approved++
		} else {
			refused++
			reasons = append(reasons, fmt.Sprintf("line %d: %s", o.Line, o.Text))
		}
	}
	if len(outcomes) == 0 {
		outcomes = []views.PayrollOutcome{{Text: "No proposal of this run waits for approvals."}}
	}
	outcome, detail := store.OutcomeOK, fmt.Sprintf("%d approved, %d not approved", approved, refused)
	if refused > 0 {
		outcome = store.OutcomeRefused
		detail += ": " + truncate(strings.Join(reasons, "; "), 1500)
	}
	// The approvals themselves are audited one by one by the ledger; this
	// row records the run-wide action and what it refused here.
	if err := h.store.Audit(ctx, store.AuditEntry{Actor: actor, Action: kindApprove, Target: fmt.Sprintf("payroll:%d", run.ID),
		Outcome: outcome, Detail: detail}); err != nil {
		h.ServerError(w, r, err)
		return
	}
	run, err = h.store.PayrollRunByID(ctx, run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v, err := h.runView(ctx, run, false)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.ApproveResult = outcomes
	h.Render(w, r, http.StatusOK, "Payroll run", views.PayrollRunPage(v), nil)
}

// approveRow sends one row's approval, or says why not.
func (h *Handler) approveRow(ctx context.Context, row store.PayrollRow, viewerID int64, linked string, actor store.Actor,
	form string) (views.PayrollOutcome, error) {
	if ok, why := approvable(row, viewerID, linked); !ok {
		return views.PayrollOutcome{Text: "not approved: " + why + "."}, nil
	}
	p := *row.Proposal
	identity := mirror.ActingIdentity(p, linked)
	req := mirror.ApproveRequest{ProposalID: p.ID, OwnerUserID: p.OwnerUserID, WalletID: p.WalletID, Round: p.Round,
		Identity: identity, ApprovalsBefore: len(p.Approvals), Form: form}
	key, err := mirror.ApprovalKey(ctx, h.store, req)
	if errors.Is(err, mirror.ErrTooManyAttempts) {
		return views.PayrollOutcome{Text: "not approved: the API refused this approval too many times; check the wallet admin you are linked to."}, nil
	}
	if err != nil {
		return views.PayrollOutcome{}, err
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: mirror.KindApprove, Target: "proposal:" + p.ID, Actor: actor,
		Request: req, Call: func(ctx context.Context) (handlers.Effect, error) {
			if identity != mirror.PartnerIdentity {
				ctx = apiclient.WithActingUser(ctx, identity)
			}
			after, err := h.api.ApproveProposal(ctx, p.OwnerUserID, p.ID)
			if err != nil {
				return handlers.Effect{}, err
			}
			return mirror.ApprovalEffect(req, actor, *after, h.clock()), nil
		}})
	if errors.Is(err, handlers.ErrKeyReused) && done.Action.Kind == mirror.KindApprove {
		err = nil // a colleague acting as the same wallet admin sent it
	}
	if err != nil {
		return views.PayrollOutcome{}, err
	}
	switch {
	case done.Repeat:
		return views.PayrollOutcome{Text: "this approval was already sent (" + done.Action.State.Label() + "); nothing was sent again."}, nil
	case done.State() == store.ActionDone:
		return views.PayrollOutcome{OK: true, Text: "approved."}, nil
	}
	msg := done.Problem.Summary
	if msg == "" {
		msg = done.Action.Message
	}
	return views.PayrollOutcome{Text: "not approved: " + msg}, nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
