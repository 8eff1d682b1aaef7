// Package payroll pays many employees at once from the treasury. A run is
// created from a CSV file or from the employee list, checked row by row and
// previewed with its totals against the treasury's live balance before
// anything is sent; sending makes one transfer proposal per row, each an
// action in the ledger keyed by run and row (payroll:<run>:<line>), from a
// river job with bounded concurrency that a crash or a retry resumes
// without a second proposal. The run page follows every row's proposal in
// the approvals mirror; a run is approved in one action (with the approval
// queue's own keys, so a row approved in the queue is never approved twice),
// signed from one QR code (the batch signing form) or canceled before
// signing (its open proposals rejected, each through the ledger).
package payroll

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// DefaultConcurrency bounds the upstream calls one run has in flight.
const DefaultConcurrency = 8

// Handler serves the payroll routes and sends runs.
type Handler struct {
	*handlers.Base
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	queue   handlers.JobQueue
	clock   func() time.Time
	// Concurrency bounds the upstream calls of one run's sending, approval
	// or cancellation (0: DefaultConcurrency).
	Concurrency int
}

// New returns the payroll handler and registers how its writes are read
// back (the approvals' kinds are registered with the same read-backs, so
// the area does not depend on which was built first).
func New(d handlers.Deps) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions, queue: d.Queue, clock: d.Clock}
	d.Actions.ReadBackFor(kindTransfer, h.readBackTransfer)
	d.Actions.ReadBackFor(proposal.KindApprove, proposal.ReadBackApproval(d.API, d.Clock))
	d.Actions.ReadBackFor(proposal.KindReject, proposal.ReadBackRejection(d.API, d.Clock))
	return h
}

func (h *Handler) concurrency() int {
	if h.Concurrency > 0 {
		return h.Concurrency
	}
	return DefaultConcurrency
}

// treasury is the partner's treasury user and its wallets by token.
type treasury struct {
	user    store.Employee
	wallets map[string]store.Wallet
}

func (h *Handler) treasury(ctx context.Context) (treasury, error) {
	u, ws, err := h.store.Treasury(ctx)
	if err != nil {
		return treasury{}, err
	}
	t := treasury{user: u, wallets: map[string]store.Wallet{}}
	for _, w := range ws {
		t.wallets[w.Currency] = w
	}
	return t, nil
}

// runFromPath loads the run named by the path, or answers 404.
func (h *Handler) runFromPath(w http.ResponseWriter, r *http.Request) (store.PayrollRun, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		h.NotFound(w, r)
		return store.PayrollRun{}, false
	}
	run, err := h.store.PayrollRunByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return run, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return run, false
	}
	return run, true
}

// runTotals shows a run's totals per currency.
func runTotals(run store.PayrollRun) string {
	m := map[string]decimal.Decimal{}
	for _, t := range run.Totals {
		m[t.Currency] = t.Sum
	}
	return sums(m)
}

// List shows the runs, newest first.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	runs, err := h.store.ListPayrollRuns(r.Context(), 200)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.PayrollListView{Now: h.clock()}
	for _, run := range runs {
		v.Runs = append(v.Runs, views.PayrollRunItem{ID: run.ID, Name: run.Name, Source: run.Source, State: run.State,
			StateLabel: views.StatusLabel(views.StatusPayrollRun, run.State), CreatedBy: run.CreatedBy, CreatedAt: run.CreatedAt, Rows: run.Rows, Valid: run.ValidRows,
			Totals: runTotals(run)})
	}
	h.Render(w, r, http.StatusOK, "Payroll", views.PayrollListPage(v), views.PayrollRuns(v))
}

// ListCSV exports the runs.
func (h *Handler) ListCSV(w http.ResponseWriter, r *http.Request) {
	runs, err := h.store.ListPayrollRuns(r.Context(), 10000)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, "payroll-runs.csv", "run", "name", "source", "state", "rows", "valid_rows", "totals", "created_by",
		"created_at", "cancel_reason")
	for _, run := range runs {
		totals := make([]string, 0, len(run.Totals))
		for _, t := range run.Totals {
			totals = append(totals, t.Sum.StringFixed(2)+" "+t.Currency)
		}
		cw.Row(strconv.FormatInt(run.ID, 10), run.Name, run.Source, run.State, strconv.Itoa(run.Rows), strconv.Itoa(run.ValidRows),
			strings.Join(totals, "; "), run.CreatedBy, views.ISO(run.CreatedAt), run.CancelReason)
	}
	cw.Close(h.Logger, r)
}
