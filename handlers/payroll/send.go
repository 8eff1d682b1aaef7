package payroll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// Ledger kinds of this area.
const (
	kindTransfer = "payroll.transfer" // one row's transfer proposal
	kindSend     = "payroll.send"     // the send form: the run starts
	kindCancel   = "payroll.cancel"   // the cancel form: the run stops
	kindAgain    = "payroll.again"    // a new run of the refused rows
)

// clockSkew is how much earlier than the action's begin a proposal's
// createdAt may be and still be the one the action made.
const clockSkew = time.Minute

// transferRequest is what the ledger keeps of a row's transfer: everything
// its call and its read-back need.
type transferRequest struct {
	RunID       int64                `json:"runId"`
	Line        int                  `json:"line"`
	OwnerUserID string               `json:"ownerUserId"`
	WalletID    string               `json:"walletId"`
	ToUserID    string               `json:"toUserId"`
	Amount      decimal.Decimal      `json:"amount"`
	Currency    apiclient.Stablecoin `json:"currency"`
	// Description is what the API gets: the row's words and the run's
	// reference, which makes it unique to the row.
	Description string `json:"description"`
}

// upstreamDescription is a row's description with its reference.
func upstreamDescription(runID int64, line int, words string) string {
	ref := fmt.Sprintf("payroll run %d, row %d", runID, line)
	if words == "" {
		return "Payroll: " + ref
	}
	return words + " (" + ref + ")"
}

// transferEffect mirrors the created proposal with who sent it (who then
// may not approve it) and records it on the row, in the transaction that
// finishes the action.
func transferEffect(q transferRequest, p apiclient.Proposal, by store.Actor, now time.Time) handlers.Effect {
	row := proposal.FromAPI(p, q.OwnerUserID, now)
	fill := func(field *string, asked string) {
		if *field == "" {
			*field = asked
		}
	}
	fill(&row.WalletID, q.WalletID)
	fill(&row.Type, string(apiclient.ProposalTransfer))
	fill(&row.Currency, string(q.Currency))
	fill(&row.ToUserID, q.ToUserID)
	fill(&row.Description, q.Description)
	if row.Amount.IsZero() {
		row.Amount = q.Amount
	}
	row.CreatedByStaffID = by.StaffID
	return handlers.Effect{Target: "proposal:" + p.ID, Result: map[string]string{"id": p.ID, "status": string(p.Status)},
		Detail: fmt.Sprintf("payroll run %d row %d: transfer of %s %s to %s", q.RunID, q.Line, q.Amount, q.Currency, q.ToUserID),
		Apply: func(ctx context.Context, tx *store.Store) error {
			if _, err := tx.UpsertProposal(ctx, row); err != nil {
				return err
			}
			return tx.SetPayrollRowProposal(ctx, q.RunID, q.Line, p.ID)
		}}
}

// readBackTransfer finds the proposal a row's create made when its answer
// was lost: a proposal of the treasury wallet with the row's description
// (unique: it carries the run and the row), created after the action began.
func (h *Handler) readBackTransfer(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q transferRequest
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	ps, err := h.api.ListProposals(ctx, q.OwnerUserID, q.WalletID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	since := a.BegunAt.Add(-clockSkew)
	for _, p := range ps {
		if p.Description == q.Description && p.ToUserID == q.ToUserID && p.Amount.Equal(q.Amount) &&
			(p.CreatedAt.IsZero() || !p.CreatedAt.Before(since)) {
			return transferEffect(q, p, a.Actor, h.clock()), true, nil
		}
	}
	return handlers.Effect{}, false, nil
}

// Send starts sending a previewed run, once per form: the live treasury
// balance is read again and a run that exceeds it is refused with the
// shortfall; otherwise the run moves to sending and its job is enqueued in
// the same transaction, so a second click or a second tab sends nothing.
func (h *Handler) Send(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	page := fmt.Sprintf("/payroll/%d", run.ID)
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	actor := handlers.ActorFrom(ctx)
	if a, seen, err := h.actions.Seen(ctx, key, kindSend, actor); h.Answered(w, r, err) {
		return
	} else if seen {
		h.Repeated(w, r, a, page)
		return
	}
	if run.State != store.PayrollPreview {
		h.Flash(r, "info", "This run is already "+views.StatusLabel(views.StatusPayrollRun, run.State)+"; nothing was sent twice.")
		h.Redirect(w, r, page)
		return
	}
	v, err := h.runView(ctx, run, true, rowWindow{}, true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	refuse := func(msg string) {
		if err := h.actions.Refused(ctx, kindSend, fmt.Sprintf("payroll:%d", run.ID), actor, msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.SendError = msg
		v.SendToken = r.PostFormValue(handlers.FormTokenField) // nothing was begun: the form keeps its token
		h.Render(w, r, http.StatusUnprocessableEntity, "Payroll run", viewsRunPage(v), nil)
	}
	if msg := unsendable(v); msg != "" {
		refuse(msg)
		return
	}
	// The money controls: each row and the run as a whole, told now with
	// the rows and the rules; decided again, with the run's spend
	// recorded, in the transaction that starts it.
	spends, err := h.runSpends(ctx, run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var refused *store.PolicyRefusal
	if err := h.store.CheckRunSpend(ctx, key, spends, false); errors.As(err, &refused) {
		refuse("Nothing was sent: the money controls refuse this run. " + refused.Words())
		return
	} else if err != nil {
		h.ServerError(w, r, err)
		return
	}
	d, err := h.actions.RunLocal(ctx, handlers.Local{Key: key, Kind: kindSend, Target: fmt.Sprintf("payroll:%d", run.ID), Actor: actor,
		Request: map[string]int64{"runId": run.ID},
		Detail:  fmt.Sprintf("sending %d transfer proposals of %s", v.ValidRows, run.Name),
		Change:  h.startRun(run.ID, key, spends, actor)})
	switch {
	case h.Answered(w, r, err):
		return
	case d.Repeat:
		h.Repeated(w, r, d.Action, page)
		return
	case d.State() == store.ActionDone:
		h.Flash(r, "ok", fmt.Sprintf("Sending %d transfer proposals. Each row shows its proposal as it is created.", v.ValidRows))
	default:
		h.Flash(r, "info", d.Action.Message)
	}
	h.Redirect(w, r, page)
}

// runSpends is what the run's valid rows take from the treasury's wallets,
// for the spend check. Rows go to employees of the company: trusted
// recipients, so only the wallets' limits apply.
func (h *Handler) runSpends(ctx context.Context, runID int64) ([]store.RunSpend, error) {
	rows, err := h.store.PayrollRows(ctx, runID)
	if err != nil {
		return nil, err
	}
	owner := handlers.ViewerFrom(ctx).Can(store.PermSettings)
	now := h.clock()
	var out []store.RunSpend
	for _, row := range rows {
		if !row.Valid() || !row.Amount.Valid || row.WalletID == "" {
			continue
		}
		out = append(out, store.RunSpend{Line: row.Line, Spend: store.Spend{WalletID: row.WalletID, Currency: row.Currency,
			Amount: row.Amount.Decimal, Destination: store.EmployeeDestination(row.ServiceUserID), ByOwner: owner, At: now}})
	}
	return out, nil
}

// SendArgs is the background job that sends a run's rows.
type SendArgs struct {
	RunID int64       `json:"run_id"`
	By    store.Actor `json:"by"`
}

// Kind implements river.JobArgs.
func (SendArgs) Kind() string { return "payroll_send" }

// InsertOpts: a run is one job; a failed job resumes where it stopped.
func (SendArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 10} }

// SendWorker sends a run's rows.
type SendWorker struct {
	river.WorkerDefaults[SendArgs]
	H *Handler
}

// A run is sent in short parts (handlers.JobPartBudget each, see there).
const (
	jobBudget  = handlers.JobPartBudget
	JobTimeout = handlers.JobTimeout
)

// Timeout bounds one part of a run.
func (w *SendWorker) Timeout(*river.Job[SendArgs]) time.Duration { return JobTimeout }

// settleWait is how long the job waits before looking again at a run
// whose rows are not all settled (a row begun by a process that died and
// not found upstream is settled by the recovery job within a few minutes).
const settleWait = 30 * time.Second

// Work sends a part of the rows. A run with rows still to start comes back
// at once (a snooze, which spends no attempt); a run left with rows whose
// outcome is not known yet is looked at again later, so it is marked sent
// once the recovery job has settled them.
func (w *SendWorker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	more, err := w.H.sendPart(ctx, job.Args.RunID, job.Args.By, time.Now().Add(jobBudget))
	if err != nil {
		return err
	}
	if more {
		return river.JobSnooze(0)
	}
	state, err := w.H.store.PayrollRunState(ctx, job.Args.RunID)
	if err != nil {
		return err
	}
	if state == store.PayrollSending {
		return river.JobSnooze(settleWait)
	}
	return nil
}

// SendRun sends every valid row of a run that has no action yet, with at
// most Concurrency calls in flight, then marks the run sent once every row
// has an outcome. A row whose action exists is skipped (its action says
// what happened, and the recovery job settles one left open), so a run
// resumed after a crash or a retried job never makes a second proposal.
// A canceled run stops sending.
func (h *Handler) SendRun(ctx context.Context, runID int64, by store.Actor) error {
	_, err := h.sendPart(ctx, runID, by, time.Time{})
	return err
}

// sendPart is SendRun that starts no row after until (zero: no limit) and
// then reports more when rows are left to start. Rows a dead sender left
// begun are read back first: a sender (one job attempt) waits for every
// call it makes, so such a row's sender is gone, and one the API recorded
// is done now rather than when the recovery job comes to it.
func (h *Handler) sendPart(ctx context.Context, runID int64, by store.Actor, until time.Time) (more bool, err error) {
	run, err := h.store.PayrollRunByID(ctx, runID)
	if err != nil {
		return false, err
	}
	if run.State != store.PayrollSending {
		return false, nil
	}
	t, err := h.treasury(ctx)
	if err != nil {
		return false, err
	}
	rows, err := h.store.PayrollRows(ctx, runID)
	if err != nil {
		return false, err
	}
	if err := h.confirmOrphans(ctx, runID, rows); err != nil {
		return false, err
	}
	sem := make(chan struct{}, h.concurrency())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, row := range rows {
		if !row.Valid() || row.ProposalID != "" || row.ActionState != "" {
			continue
		}
		sem <- struct{}{}
		if !until.IsZero() && !time.Now().Before(until) {
			<-sem
			more = true
			break
		}
		// A run canceled meanwhile sends nothing more.
		if state, err := h.store.PayrollRunState(ctx, runID); err != nil || state != store.PayrollSending {
			<-sem
			if err != nil {
				mu.Lock()
				firstErr = errors.Join(firstErr, err)
				mu.Unlock()
			}
			break
		}
		mu.Lock()
		stop := firstErr != nil || ctx.Err() != nil
		mu.Unlock()
		if stop {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := h.sendRow(ctx, run, row, t, by); err != nil {
				mu.Lock()
				firstErr = errors.Join(firstErr, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return false, fmt.Errorf("payroll: send run %d: %w", runID, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if more {
		return true, nil
	}
	_, err = h.store.FinishPayrollRun(context.WithoutCancel(ctx), runID, by)
	return false, err
}

// confirmOrphans reads back the rows of a run whose actions are begun.
func (h *Handler) confirmOrphans(ctx context.Context, runID int64, rows []store.PayrollRow) error {
	for _, row := range rows {
		if row.ActionState != store.ActionBegun {
			continue
		}
		a, err := h.store.ActionByKey(ctx, store.PayrollActionKey(runID, row.Line))
		if err != nil {
			return err
		}
		if _, err := h.actions.Confirm(ctx, a); err != nil {
			if h.Logger != nil {
				h.Logger.WarnContext(ctx, "payroll row: read-back failed", "run", runID, "line", row.Line, "err", err)
			}
		}
	}
	return nil
}

// sendRow creates one row's transfer proposal through the ledger.
func (h *Handler) sendRow(ctx context.Context, run store.PayrollRun, row store.PayrollRow, t treasury, by store.Actor) error {
	q := transferRequest{RunID: run.ID, Line: row.Line, OwnerUserID: t.user.ServiceUserID, WalletID: row.WalletID,
		ToUserID: row.ServiceUserID, Amount: row.Amount.Decimal, Currency: apiclient.Stablecoin(row.Currency),
		Description: upstreamDescription(run.ID, row.Line, row.Description)}
	done, err := h.actions.Run(ctx, handlers.Write{Key: store.PayrollActionKey(run.ID, row.Line), Kind: kindTransfer,
		Target: fmt.Sprintf("payroll:%d", run.ID), Actor: by, Request: q, Shared: true,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			p, err := h.api.CreateTransferProposal(ctx, q.OwnerUserID, q.WalletID, apiclient.TransferProposal{ToUserID: q.ToUserID,
				Amount: q.Amount, Currency: q.Currency, Description: q.Description})
			if err != nil {
				return handlers.Effect{}, err
			}
			return transferEffect(q, *p, by, h.clock()), nil
		}})
	if err != nil {
		return err
	}
	if done.State() != store.ActionDone && !done.Repeat && h.Logger != nil {
		h.Logger.WarnContext(ctx, "payroll row not created", "run", run.ID, "line", row.Line, "state", done.State(), "err", done.Err)
	}
	return nil
}

// unsendable is why a run cannot be sent as it stands ("" when it can): no
// valid row, the treasury's balance unread, or short.
func unsendable(v views.PayrollRunView) string {
	switch {
	case v.ValidRows == 0:
		return "No row of this run can be sent: fix the file and upload it again."
	case v.BalanceMsg != "":
		return "The treasury's balance could not be read, so nothing was sent: " + v.BalanceMsg
	}
	var short []string
	for _, t := range v.Totals {
		if t.Short {
			short = append(short, t.Shortfall)
		}
	}
	if len(short) > 0 {
		return "Nothing was sent: the run exceeds the treasury's balance. " + strings.Join(short, " ")
	}
	return ""
}

// startRun is the local change that starts sending a run: the money
// controls decided again with the run's spend recorded, and the send job
// queued, in one transaction.
func (h *Handler) startRun(runID int64, key string, spends []store.RunSpend, actor store.Actor) func(ctx context.Context, tx *store.Store) error {
	return func(ctx context.Context, tx *store.Store) error {
		var refused *store.PolicyRefusal
		if err := tx.CheckRunSpend(ctx, key, spends, true); errors.As(err, &refused) {
			return handlers.Refusal("Nothing was sent: the money controls refuse this run. " + refused.Words())
		} else if err != nil {
			return err
		}
		err := tx.StartPayrollRun(ctx, runID, func(ctx context.Context, ptx pgx.Tx) error {
			_, err := h.queue.InsertTx(ctx, ptx, SendArgs{RunID: runID, By: actor}, nil)
			return err
		})
		if errors.Is(err, store.ErrConflict) {
			return handlers.Refusal("This run is already being sent; nothing was sent twice.")
		}
		return err
	}
}
