package employees

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/onboard"
	"partneradmin/store"
	"partneradmin/views"
)

// bulkOffers are the readiness matrix's "start for everyone ready" forms,
// from the whole workforce's counts, each with its own one-time token.
func bulkOffers(counts map[string]map[string]int) []views.OnboardingBulkOffer {
	var out []views.OnboardingBulkOffer
	for _, cur := range store.ReadinessCurrencies() {
		rl, ok := rails[cur]
		if !ok || !rl.Bulk {
			continue
		}
		o := views.OnboardingBulkOffer{Currency: cur, Ready: counts[cur][store.ReadyToActivate], Token: handlers.NewFormToken(), Global: rl.Global}
		if rl.Global {
			o.IdentityLevels = identityLevels()
		}
		out = append(out, o)
	}
	return out
}

// runRowApply records a bulk row as started.
func runRowApply(req railStart, status string) func(context.Context, *store.Store) error {
	return func(ctx context.Context, tx *store.Store) error {
		detail := "started"
		if status != "" {
			detail += "; the API says " + status
		}
		return tx.FinishOnboardingRow(ctx, req.RunID, req.EmployeeID, store.OnboardingRowStarted, detail)
	}
}

// StartOnboardingRun starts one currency for every employee who is ready,
// in one action: the run, its rows, its audit row and its background job
// commit together; a second post of the form finds the same run.
func (h *Handler) StartOnboardingRun(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	rl, ok := railOf(r.PostFormValue("currency"))
	if !ok || !rl.Bulk {
		h.ErrorPage(w, r, http.StatusUnprocessableEntity, "Onboarding not started",
			"Choose USD, EUR, MXN or CAD. Nigeria is started one employee at a time, from their page, with their BVN. Nothing was sent.")
		return
	}
	level := ""
	if rl.Global {
		level = r.PostFormValue("identity_level")
		if !onboard.ValidIdentityLevel(level) {
			h.ErrorPage(w, r, http.StatusUnprocessableEntity, "Onboarding not started", "Choose the identity level the activation asks for. Nothing was sent.")
			return
		}
	}
	by := handlers.ActorFrom(r.Context())
	run, _, _, err := h.Store.CreateOnboardingRun(r.Context(), key, rl.Currency, level, by,
		func(ctx context.Context, tx pgx.Tx, run store.OnboardingRun) error {
			_, err := h.Queue.InsertTx(ctx, tx, OnboardingStartArgs{RunID: run.ID}, nil)
			return err
		})
	if errors.Is(err, store.ErrNobodyReady) {
		h.Flash(r, "info", "No employee is ready in "+rl.Currency+" now, so nothing was started.")
		h.Redirect(w, r, "/employees/readiness")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Redirect(w, r, fmt.Sprintf("/employees/onboarding-runs/%d", run.ID))
}

func (h *Handler) onboardingRunFromPath(w http.ResponseWriter, r *http.Request) (store.OnboardingRun, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "run"), 10, 64)
	if err != nil || id <= 0 {
		h.NotFound(w, r)
		return store.OnboardingRun{}, false
	}
	run, err := h.Store.OnboardingRunByID(r.Context(), id)
	if isNotFound(err) {
		h.NotFound(w, r)
		return run, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return run, false
	}
	return run, true
}

func onboardingRowLabel(s string) string {
	switch s {
	case store.OnboardingRowQueued:
		return "waiting"
	case store.OnboardingRowSending:
		return "sending"
	case store.OnboardingRowStarted:
		return "started"
	case store.OnboardingRowRefused:
		return "refused"
	case store.OnboardingRowSkipped:
		return "skipped: no longer ready"
	case store.OnboardingRowUnknown:
		return "outcome unknown"
	}
	return s
}

func (h *Handler) onboardingRunView(ctx context.Context, run store.OnboardingRun) (views.OnboardingRunView, error) {
	p, err := h.Store.OnboardingRunProgressOf(ctx, run.ID)
	if err != nil {
		return views.OnboardingRunView{}, err
	}
	v := views.OnboardingRunView{ID: run.ID, Currency: run.Currency, CreatedBy: run.CreatedBy, CreatedAt: run.CreatedAt, Total: p.Total,
		Done: p.Done(), Percent: p.Percent(), Started: p.Started, Refused: p.Refused, Skipped: p.Skipped, Unknown: p.Unknown,
		Finished: run.State == store.OnboardingRunDone, ResultURL: fmt.Sprintf("/employees/onboarding-runs/%d/result.csv", run.ID)}
	rows, err := h.Store.OnboardingRunRows(ctx, run.ID)
	if err != nil {
		return v, err
	}
	for _, row := range rows {
		rv := views.OnboardingRunRowView{EmployeeID: row.EmployeeID, Name: row.Name, Email: row.Email, State: row.State,
			StateLabel: onboardingRowLabel(row.State), Detail: row.Detail}
		if row.State == store.OnboardingRowUnknown {
			// The read-back may have settled it since.
			if a, err := h.Store.ActionByKey(ctx, runStartKey(run.ID, row.EmployeeID)); err == nil && a.State.Finished() {
				rv.StateLabel, rv.Detail = views.StatusLabel(views.StatusAction, string(a.State)), a.Message
			}
		}
		v.Rows = append(v.Rows, rv)
	}
	return v, nil
}

// OnboardingRun shows a bulk start: progress and per-employee outcomes.
func (h *Handler) OnboardingRun(w http.ResponseWriter, r *http.Request) {
	run, ok := h.onboardingRunFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.onboardingRunView(r.Context(), run)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Starting "+run.Currency+" onboarding", views.OnboardingRunPage(v), nil)
}

// OnboardingRunProgress is the polled fragment; the last poll reloads the
// page once so the table shows every outcome.
func (h *Handler) OnboardingRunProgress(w http.ResponseWriter, r *http.Request) {
	run, ok := h.onboardingRunFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.onboardingRunView(r.Context(), run)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.ReloadWhenFinished(w, r, v.Finished)
	h.Render(w, r, http.StatusOK, "Starting "+run.Currency+" onboarding", views.OnboardingRunPage(v), views.OnboardingRunProgress(v))
}

// OnboardingRunCSV downloads every employee of a run with its outcome.
func (h *Handler) OnboardingRunCSV(w http.ResponseWriter, r *http.Request) {
	run, ok := h.onboardingRunFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.onboardingRunView(r.Context(), run)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, fmt.Sprintf("onboarding-%s-run-%d-result.csv", run.Currency, run.ID), "employee_id", "name", "email", "currency", "outcome", "detail")
	for _, row := range v.Rows {
		cw.Row(strconv.FormatInt(row.EmployeeID, 10), row.Name, row.Email, run.Currency, row.StateLabel, row.Detail)
	}
	cw.Close(h.Logger, r)
}

// OnboardingStartArgs is the background job that sends a run's starts.
type OnboardingStartArgs struct {
	RunID int64 `json:"run_id"`
}

// Kind implements river.JobArgs.
func (OnboardingStartArgs) Kind() string { return "employees_onboarding_start" }

// InsertOpts: a run is one job; a failed job resumes where it stopped.
func (OnboardingStartArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// OnboardingStartWorker sends a run's starts one employee at a time, each
// an action keyed by run and employee, so a retried or resumed job never
// sends a start twice.
type OnboardingStartWorker struct {
	river.WorkerDefaults[OnboardingStartArgs]
	Store  *store.Store
	API    *apiclient.Client
	Logger *slog.Logger

	once sync.Once
	h    *Handler
}

// Timeout bounds one part of a run (see handlers.JobTimeout).
func (w *OnboardingStartWorker) Timeout(*river.Job[OnboardingStartArgs]) time.Duration {
	return handlers.JobTimeout
}

// Work sends a part of the run's rows, and comes back at once for the
// rest.
func (w *OnboardingStartWorker) Work(ctx context.Context, job *river.Job[OnboardingStartArgs]) error {
	w.once.Do(func() {
		// Built apart from the web handlers: the same ledger and read-backs.
		actions := handlers.NewActions(w.Store, w.Logger)
		registerReadBacks(actions, w.API)
		w.h = &Handler{Base: &handlers.Base{Logger: w.Logger}, Store: w.Store, API: w.API, Actions: actions, Clock: time.Now}
	})
	run, err := w.Store.OnboardingRunByID(ctx, job.Args.RunID)
	if err != nil {
		return err
	}
	by := store.Actor{Email: run.CreatedBy}
	var done []int64
	until := time.Now().Add(handlers.JobPartBudget)
	for {
		if time.Now().After(until) {
			return river.JobSnooze(0)
		}
		row, err := w.Store.NextOnboardingRow(ctx, run.ID, done)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return err
		}
		done = append(done, row.EmployeeID)
		if err := w.h.sendRunRow(ctx, run, row, by); err != nil {
			return err
		}
	}
	return w.Store.FinishOnboardingRun(context.WithoutCancel(ctx), run.ID, by)
}

// sendRunRow sends one employee's start, unless an attempt of this run
// exists (a resumed run: its outcome is recorded, nothing is sent) or the
// employee is no longer ready (read again just before: skipped).
func (h *Handler) sendRunRow(ctx context.Context, run store.OnboardingRun, row store.OnboardingRunRow, by store.Actor) error {
	key := runStartKey(run.ID, row.EmployeeID)
	a, err := h.Store.ActionByKey(ctx, key)
	if err == nil {
		return h.recordRunRow(ctx, run, row, a, apiclient.Problem{})
	}
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	e, err := h.Store.EmployeeByID(ctx, row.EmployeeID)
	if err != nil {
		return err
	}
	if err := h.Refresh(ctx, e, by); err != nil {
		return err
	}
	if e, err = h.Store.EmployeeByID(ctx, row.EmployeeID); err != nil {
		return err
	}
	rl := rails[run.Currency]
	req, err := h.prepareStart(ctx, e, rl, run.IdentityLevel)
	var no startRefusal
	if errors.As(err, &no) {
		return h.Store.SkipOnboardingRow(ctx, run, row.EmployeeID, no.Words, by)
	}
	if err != nil {
		return err
	}
	req.RunID = run.ID
	d, err := h.Actions.Run(ctx, handlers.Write{Key: key, Kind: kindStartRail, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Shared: true, Call: callStart(h.API, req, "", runRowApply)})
	if err != nil {
		return err
	}
	if d.State() == store.ActionDone && !d.Repeat {
		// Its finish recorded the row; the cell shows the rail begun.
		if err := h.Refresh(ctx, e, by); err != nil {
			h.Logger.WarnContext(ctx, "onboarding start: employee not read again", "run", run.ID, "employee", e.ID, "err", err)
		}
		return nil
	}
	return h.recordRunRow(ctx, run, row, d.Action, d.Problem)
}

// recordRunRow records a row from its action as the ledger has it.
func (h *Handler) recordRunRow(ctx context.Context, run store.OnboardingRun, row store.OnboardingRunRow, a store.Action, p apiclient.Problem) error {
	ctx = context.WithoutCancel(ctx)
	switch a.State {
	case store.ActionDone:
		return h.Store.FinishOnboardingRow(ctx, run.ID, row.EmployeeID, store.OnboardingRowStarted, "started; "+a.Message)
	case store.ActionRefused:
		words := a.Message
		if p.Summary != "" {
			words = p.Summary
		}
		return h.Store.FinishOnboardingRow(ctx, run.ID, row.EmployeeID, store.OnboardingRowRefused, words)
	}
	h.Logger.WarnContext(ctx, "onboarding start: outcome unknown", "run", run.ID, "employee", row.EmployeeID)
	msg := a.Message
	if msg == "" {
		msg = "The app stopped before it learned whether the Partner API started it; the app reads it back."
	}
	return h.Store.FinishOnboardingRow(ctx, run.ID, row.EmployeeID, store.OnboardingRowUnknown, msg)
}
