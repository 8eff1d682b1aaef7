package payroll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// forRows runs fn for each row with at most Concurrency at once and returns
// the outcomes in row order.
func (h *Handler) forRows(ctx context.Context, rows []store.PayrollRow, fn func(ctx context.Context, row store.PayrollRow) (views.PayrollOutcome, error)) ([]views.PayrollOutcome, error) {
	out, _, err := h.forRowsUntil(ctx, rows, time.Time{}, fn)
	return out, err
}

// forRowsUntil is forRows that starts no row after until (zero: no limit);
// started says how many rows, from the first, were run.
func (h *Handler) forRowsUntil(ctx context.Context, rows []store.PayrollRow, until time.Time,
	fn func(ctx context.Context, row store.PayrollRow) (views.PayrollOutcome, error)) ([]views.PayrollOutcome, int, error) {
	out := make([]views.PayrollOutcome, len(rows))
	sem := make(chan struct{}, h.concurrency())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	started := 0
	for i, row := range rows {
		sem <- struct{}{}
		if !until.IsZero() && !time.Now().Before(until) {
			<-sem
			break
		}
		started++
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
	return out[:started], started, firstErr
}

// Approve approves, in one action, every proposal of the run the viewer may
// approve: a background job (ApproveWorker) works through the rows waiting
// for approvals, and the run page shows its progress and then each row's
// outcome. The separation of duties holds per row (whoever sent a proposal
// may not approve it; a wallet admin approves once per round), and each
// approval is sent once through the ledger under the approval queue's own
// key (proposal, round, wallet admin), so approving a row here and in the
// queue can never both be sent. One approval per form: a double click
// starts one.
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
	page := fmt.Sprintf("/payroll/%d", run.ID)
	rows, err := h.store.PayrollRows(ctx, run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var lines []int
	for _, row := range rows {
		if row.Proposal != nil && row.Proposal.Status == store.ProposalPendingApprovals {
			lines = append(lines, row.Line)
		}
	}
	if len(lines) == 0 {
		h.Flash(r, "info", "No proposal of this run waits for approvals.")
		h.Redirect(w, r, page)
		return
	}
	actor := handlers.ActorFrom(ctx)
	a, fresh, err := h.store.StartPayrollApproval(ctx, run.ID, form, actor, lines, func(ctx context.Context, tx pgx.Tx, id int64) error {
		_, err := h.queue.InsertTx(ctx, tx, ApproveArgs{ApprovalID: id}, nil)
		return err
	})
	switch {
	case err != nil:
		h.ServerError(w, r, err)
		return
	case !fresh && (a.Staff.StaffID != actor.StaffID || a.RunID != run.ID):
		h.ErrorPage(w, r, http.StatusConflict, "Form already used",
			"This form was already used for something else, so nothing was sent. Go back, reload the page and send it again.")
		return
	case !fresh:
		h.Flash(r, "info", "This approval was already asked for; nothing was sent twice.")
	default:
		h.Flash(r, "ok", fmt.Sprintf("Approving the %d proposals waiting for approvals; each row's outcome appears below.", len(lines)))
	}
	h.Redirect(w, r, page)
}

// ApproveArgs is the background job of a run's approval.
type ApproveArgs struct {
	ApprovalID int64 `json:"approval_id"`
}

// Kind implements river.JobArgs.
func (ApproveArgs) Kind() string { return "payroll_approve" }

// InsertOpts: a failed job resumes; rows with an outcome are not done again.
func (ApproveArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 10} }

// ApproveWorker approves a run's rows.
type ApproveWorker struct {
	river.WorkerDefaults[ApproveArgs]
	H *Handler
}

// Timeout bounds one part of an approval, as a run's sending is bounded
// (SendWorker): rows are started for at most jobBudget, then the job comes
// back at once for the rest.
func (w *ApproveWorker) Timeout(*river.Job[ApproveArgs]) time.Duration { return JobTimeout }

// Work approves a part of the rows.
func (w *ApproveWorker) Work(ctx context.Context, job *river.Job[ApproveArgs]) error {
	more, err := w.H.approvePart(ctx, job.Args.ApprovalID, time.Now().Add(jobBudget))
	if err != nil {
		return err
	}
	if more {
		return river.JobSnooze(0)
	}
	return nil
}

// ApproveRun works through an approval's rows with at most Concurrency
// calls in flight, recording each row's outcome as it is known, then
// finishes it with its audit row. Rows with an outcome are skipped, and the
// approvals' own keys make a resumed job send nothing twice.
func (h *Handler) ApproveRun(ctx context.Context, approvalID int64) error {
	_, err := h.approvePart(ctx, approvalID, time.Time{})
	return err
}

// approvePart is ApproveRun that starts no row after until (zero: no
// limit) and then reports more when rows are left.
func (h *Handler) approvePart(ctx context.Context, approvalID int64, until time.Time) (more bool, err error) {
	a, err := h.store.PayrollApprovalByID(ctx, approvalID)
	if err != nil || a.Done() {
		return false, err
	}
	linked, err := h.store.ApproverLink(ctx, a.Staff.StaffID)
	if err != nil {
		return false, err
	}
	all, err := h.store.PayrollRows(ctx, a.RunID)
	if err != nil {
		return false, err
	}
	have := map[int]bool{}
	for _, o := range a.Outcomes {
		have[o.Line] = true
	}
	var rows []store.PayrollRow
	for _, row := range all {
		if slices.Contains(a.Lines, row.Line) && !have[row.Line] {
			rows = append(rows, row)
		}
	}
	_, started, err := h.forRowsUntil(ctx, rows, until, func(ctx context.Context, row store.PayrollRow) (views.PayrollOutcome, error) {
		o, err := h.approveRow(ctx, row, a.Staff.StaffID, linked, a.Staff, a.FormKey)
		if err != nil {
			return o, err
		}
		return o, h.store.RecordPayrollApprovalOutcome(context.WithoutCancel(ctx), a.ID, store.PayrollOutcome{Line: row.Line, OK: o.OK, Text: o.Text})
	})
	if err != nil {
		return false, fmt.Errorf("payroll: approval %d: %w", a.ID, err)
	}
	if started < len(rows) {
		return true, nil
	}
	return false, h.store.FinishPayrollApproval(context.WithoutCancel(ctx), a.ID)
}

// approveRow sends one row's approval, or says why not.
func (h *Handler) approveRow(ctx context.Context, row store.PayrollRow, viewerID int64, linked string, actor store.Actor,
	form string) (views.PayrollOutcome, error) {
	if ok, why := approvable(row, viewerID, linked); !ok {
		return views.PayrollOutcome{Text: "not approved: " + why + "."}, nil
	}
	p := *row.Proposal
	// Separation of duties: one person's approval counts once, even when
	// they link to another wallet admin after approving.
	already, err := h.store.ApprovedByStaff(ctx, p.ID, viewerID)
	if err != nil {
		return views.PayrollOutcome{}, err
	}
	if already {
		return views.PayrollOutcome{Text: "not approved: you already approved it (as another wallet admin); someone else must give the next approval."}, nil
	}
	identity := proposal.ActingIdentity(p, linked)
	req := proposal.ApproveRequest{ProposalID: p.ID, OwnerUserID: p.OwnerUserID, WalletID: p.WalletID, Round: p.Round,
		Identity: identity, ApprovalsBefore: len(p.Approvals), Form: form}
	key, err := proposal.ApprovalKey(ctx, h.store, req)
	if errors.Is(err, proposal.ErrTooManyAttempts) {
		return views.PayrollOutcome{Text: "not approved: the API refused this approval too many times; check the wallet admin you are linked to."}, nil
	}
	if err != nil {
		return views.PayrollOutcome{}, err
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: proposal.KindApprove, Target: "proposal:" + p.ID, Actor: actor,
		Request: req, Shared: true, Call: func(ctx context.Context) (handlers.Effect, error) {
			if identity != proposal.PartnerIdentity {
				ctx = apiclient.WithActingUser(ctx, identity)
			}
			after, err := h.api.ApproveProposal(ctx, p.OwnerUserID, p.ID)
			if err != nil {
				return handlers.Effect{}, err
			}
			return proposal.ApprovalEffect(req, actor, *after, h.clock()), nil
		}})
	if err != nil {
		return views.PayrollOutcome{}, err
	}
	switch {
	case done.Repeat:
		return views.PayrollOutcome{Text: "this approval was already sent (" + views.StatusLabel(views.StatusAction, string(done.Action.State)) + "); nothing was sent again."}, nil
	case done.State() == store.ActionDone:
		return views.PayrollOutcome{OK: true, Text: "approved."}, nil
	}
	msg := done.Problem.Summary
	if msg == "" {
		msg = done.Action.Message
	}
	return views.PayrollOutcome{Text: "not approved: " + msg}, nil
}
