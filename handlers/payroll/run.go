package payroll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

func viewsRunPage(v views.PayrollRunView) templ.Component { return views.PayrollRunPage(v) }

// money shows a token amount with its fiat code first (USD beside USDB).
func money(d decimal.Decimal, coin string) views.Amount {
	if fiat, ok := apiclient.Stablecoin(coin).Fiat(); ok {
		return views.Amount{Value: d, Currency: string(fiat), Token: coin}
	}
	return views.Amount{Value: d, Currency: coin}
}

// stateLabel is a row state's words (the state itself is defined once, in
// SQL: store.PayrollRowsWindow); a row past sending has its proposal's.
func stateLabel(state string) string {
	if w, ok := views.KnownStatus(views.StatusPayrollRow, state); ok {
		return w.Label
	}
	return views.StatusLabel(views.StatusProposal, strings.ToUpper(state))
}

// rowDetail is the reason beside a row's state: why its proposal failed
// or was rejected, or what became of its request.
func rowDetail(row store.PayrollRow) string {
	if p := row.Proposal; p != nil {
		switch p.Status {
		case store.ProposalFailed:
			return p.FailureReason
		case store.ProposalRejected:
			return p.RejectionReason
		}
		return ""
	}
	switch row.State {
	case "unknown", "refused":
		return row.ActionMessage
	}
	return ""
}

// settled reports whether a row's state can no longer change by itself.
func settled(state string) bool {
	switch state {
	case "sending", "unknown", "queued", "pending_approvals", "pending_signatures", "submitted", "ready_to_execute", "executing":
		return false
	}
	return true
}

// approvable reports whether the viewer may approve a row's proposal now:
// waiting for approvals, not created by them, and not approved yet by the
// wallet admin they act as.
func approvable(row store.PayrollRow, viewerID int64, linked string) (bool, string) {
	p := row.Proposal
	switch {
	case p == nil || p.Status != store.ProposalPendingApprovals:
		return false, "it does not wait for approvals"
	case p.CreatedByStaffID == viewerID:
		return false, "you sent this proposal, so someone else must approve it"
	}
	identity := proposal.ActingIdentity(*p, linked)
	switch {
	case identity == "":
		return false, "link your account to a wallet admin of the treasury wallet first (/approvals/link)"
	case slices.Contains(p.Approvals, identity):
		return false, "this wallet admin has already approved it"
	}
	return true, ""
}

// cancelable reports whether cancelling rejects a row's proposal: open and
// not signed yet.
func cancelable(row store.PayrollRow) bool {
	p := row.Proposal
	if p == nil {
		return false
	}
	switch p.Status {
	case store.ProposalPendingApprovals, store.ProposalFailed:
		return true
	case store.ProposalPendingSignatures:
		return p.CollectedSignatures == 0
	}
	return false
}

// rowsPerPage is how many rows the run page shows (and its poll renders)
// at once; the counts and totals cover every row.
const rowsPerPage = 100

// rowWindow is the part of a run's rows the page shows: those in one state
// (all when ""), from a line on.
type rowWindow struct {
	State string
	From  int
}

// windowOf reads the window from the page's query (?state=&from=); what
// is not a known state or a line is ignored.
func windowOf(r *http.Request) rowWindow {
	q := r.URL.Query()
	var w rowWindow
	if st := q.Get("state"); len(st) <= 32 && handlers.CheckText(st, 32, false) == "" && strings.Trim(st, "abcdefghijklmnopqrstuvwxyz_") == "" {
		w.State = st
	}
	if n, err := strconv.Atoi(q.Get("from")); err == nil && n > 0 {
		w.From = n
	}
	return w
}

// runView builds a run's page, or with full unset only its live part (the
// poll): the counts, sums and progress come from one summary read and the
// rows from one window of at most rowsPerPage, so a poll of a large run
// never reads its rows one by one. withBalance reads the treasury's
// balances from the API (the preview, and the send form).
func (h *Handler) runView(ctx context.Context, run store.PayrollRun, withBalance bool, win rowWindow, full bool) (views.PayrollRunView, error) {
	v := views.PayrollRunView{Back: "/payroll", StateFilter: win.State, From: win.From, ID: run.ID, Name: run.Name, Source: run.Source, State: run.State,
		StateLabel: views.StatusLabel(views.StatusPayrollRun, run.State), CreatedBy: run.CreatedBy, CreatedAt: run.CreatedAt, TotalRows: run.Rows, ValidRows: run.ValidRows}
	if run.State == store.PayrollCanceled {
		v.CancelNote = "Canceled: " + run.CancelReason
	}
	sum, err := h.store.PayrollSummary(ctx, run.ID, store.MaxSignBatchItems)
	if err != nil {
		return v, err
	}
	page, next, err := h.store.PayrollRowsWindow(ctx, run.ID, win.State, win.From, rowsPerPage)
	if err != nil {
		return v, err
	}
	totals := countStates(&v, sum.States)
	v.SignIDs, v.SignTotal = sum.SignIDs, sum.Signable
	if v.ValidRows > 0 {
		v.Percent = v.Done * 100 / v.ValidRows
	} else {
		v.Percent = 100
	}
	v.Live = v.Live || run.State == store.PayrollSending

	v.NextFrom = next
	v.Rows = rowViews(page)

	viewer := handlers.ViewerFrom(ctx)
	var viewerID int64
	if viewer != nil {
		viewerID = viewer.Staff.ID
	}
	if full {
		if err := h.countOffers(ctx, &v, run.ID, viewerID, viewer != nil); err != nil {
			return v, err
		}
	}
	h.addTotals(ctx, &v, totals, withBalance)
	if run.State == store.PayrollPreview {
		v.CanSend = v.ValidRows > 0
		v.SendToken = handlers.NewFormToken()
	}
	if v.ApproveN > 0 {
		v.CanApprove, v.ApproveToken = true, handlers.NewFormToken()
	}
	if viewer != nil {
		a, err := h.store.LatestPayrollApproval(ctx, run.ID, viewerID)
		switch {
		case err == nil:
			v.ApproveRunning, v.ApproveDone, v.ApproveTotal = !a.Done(), len(a.Outcomes), len(a.Lines)
			for _, o := range a.Outcomes {
				v.ApproveResult = append(v.ApproveResult, views.PayrollOutcome{Line: o.Line, OK: o.OK, Text: o.Text})
			}
			v.Live = v.Live || v.ApproveRunning
			v.CanApprove = v.CanApprove && !v.ApproveRunning
		case !errors.Is(err, store.ErrNotFound):
			return v, err
		}
	}
	if len(v.SignIDs) > 0 {
		v.SignToken = handlers.NewFormToken()
	}
	if v.Refused > 0 {
		v.AgainToken = handlers.NewFormToken()
	}
	// Cancelling is offered while it would change something: rows still to
	// send, or proposals not signed yet.
	if run.State == store.PayrollPreview || run.State == store.PayrollSending || v.CancelOpen > 0 {
		v.CanCancel, v.CancelToken, v.CancelFields = true, handlers.NewFormToken(), views.FieldErrors{}
	}
	return v, nil
}

// balances reads the treasury's live balances by token; the words say why
// they could not be read.
func (h *Handler) balances(ctx context.Context) (map[string]decimal.Decimal, string) {
	t, err := h.treasury(ctx)
	if err != nil {
		return nil, "the treasury is not known here yet."
	}
	if h.api == nil {
		return nil, "the app runs without the Partner API."
	}
	list, err := h.api.ListBalances(ctx, t.user.ServiceUserID)
	if err != nil {
		return nil, apiclient.ReadWords(err)
	}
	out := map[string]decimal.Decimal{}
	for _, b := range list {
		coin := string(b.Currency)
		if coin == "" {
			if w, ok := findWallet(t, b.SmartWalletID); ok {
				coin = w.Currency
			}
		}
		out[coin] = out[coin].Add(b.Balance)
	}
	return out, ""
}

func findWallet(t treasury, id string) (store.Wallet, bool) {
	for _, w := range t.wallets {
		if w.ID == id {
			return w, true
		}
	}
	return store.Wallet{}, false
}

func sortedKeys(m map[string]decimal.Decimal) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sums shows amounts per currency: "1,250.00 USD (USDB) + 300.00 NGN (CNGN)".
func sums(m map[string]decimal.Decimal) string {
	parts := make([]string, 0, len(m))
	for _, coin := range sortedKeys(m) {
		parts = append(parts, money(m[coin], coin).String())
	}
	return strings.Join(parts, " + ")
}

// Run shows a run: the preview with every row's problems and the totals
// against the treasury's live balance, then the progress and every row's
// proposal.
func (h *Handler) Run(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.runView(r.Context(), run, run.State == store.PayrollPreview, windowOf(r), true)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Back = handlers.BackTo(r, "/payroll")
	h.Render(w, r, http.StatusOK, "Payroll run", views.PayrollRunPage(v), nil)
}

// Progress is the polled part of the run page.
func (h *Handler) Progress(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.runView(r.Context(), run, false, windowOf(r), false)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Payroll run", views.PayrollRunPage(v), views.PayrollLive(v))
}

// ResultCSV gives every row with its outcome, for accounting.
func (h *Handler) ResultCSV(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	rows, err := h.store.PayrollRows(r.Context(), run.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, fmt.Sprintf("payroll-%d-result.csv", run.ID), "line", "employee", "name", "service_user_id", "amount",
		"currency", "fiat", "description", "state", "detail", "proposal_id", "approvals", "signatures", "problems")
	for _, row := range rows {
		state, detail := row.State, rowDetail(row)
		amount, fiat := row.AmountText, ""
		if row.Amount.Valid {
			amount = row.Amount.Decimal.StringFixed(2)
		}
		if f, ok := apiclient.Stablecoin(row.Currency).Fiat(); ok {
			fiat = string(f)
		}
		approvals, signatures := "", ""
		if p := row.Proposal; p != nil {
			approvals = fmt.Sprintf("%d of %d", len(p.Approvals), p.RequiredApprovals)
			signatures = fmt.Sprintf("%d of %d", p.CollectedSignatures, p.RequiredSignatures)
		}
		currency := row.Currency
		if currency == "" {
			currency = row.CurrencyText
		}
		cw.Row(strconv.Itoa(row.Line), row.Recipient, row.Name, row.ServiceUserID, amount, currency, fiat, row.Description, state,
			detail, row.ProposalID, approvals, signatures, strings.Join(row.Problems, "; "))
	}
	cw.Close(h.Logger, r)
}

// countStates counts the run's rows by state, with each state's sums, and
// returns the run's totals by currency.
func countStates(v *views.PayrollRunView, states []store.PayrollStateSum) map[string]decimal.Decimal {
	totals := map[string]decimal.Decimal{}
	var counts []views.PayrollCount
	for _, st := range states {
		if len(counts) == 0 || counts[len(counts)-1].State != st.State {
			counts = append(counts, views.PayrollCount{State: st.State, Label: stateLabel(st.State)})
		}
		c := &counts[len(counts)-1]
		c.N += st.N
		v.Done += st.Sent
		if st.State != "invalid" && st.Currency != "" {
			if c.Sums != "" {
				c.Sums += " + "
			}
			c.Sums += money(st.Sum, st.Currency).String()
			totals[st.Currency] = totals[st.Currency].Add(st.Sum)
		}
		if !settled(st.State) {
			v.Live = true
		}
	}
	v.Counts = counts
	return totals
}

// rowViews are a window of the run's rows as the page shows them.
func rowViews(page []store.PayrollRow) []views.PayrollRowView {
	var out []views.PayrollRowView
	for _, row := range page {
		rv := views.PayrollRowView{Line: row.Line, Recipient: row.Recipient, Name: row.Name, Description: row.Description,
			Problems: row.Problems, State: row.State, StateLabel: stateLabel(row.State), Detail: rowDetail(row), ProposalID: row.ProposalID}
		if row.Amount.Valid && row.Currency != "" {
			rv.Amount = money(row.Amount.Decimal, row.Currency).String()
		} else {
			rv.Amount = strings.TrimSpace(row.AmountText + " " + row.CurrencyText)
		}
		if p := row.Proposal; p != nil {
			rv.Approvals = fmt.Sprintf("%d of %d", len(p.Approvals), p.RequiredApprovals)
			rv.Signatures = fmt.Sprintf("%d of %d", p.CollectedSignatures, p.RequiredSignatures)
		}
		out = append(out, rv)
	}
	return out
}

// countOffers counts what the page's forms offer the viewer: rows to
// approve, to cancel, refused to send again. It needs every row with the
// viewer's rules: read once, for the page, never for its poll.
func (h *Handler) countOffers(ctx context.Context, v *views.PayrollRunView, runID, viewerID int64, signedIn bool) error {
	linked := ""
	if signedIn {
		var err error
		if linked, err = h.store.ApproverLink(ctx, viewerID); err != nil {
			return err
		}
	}
	rows, err := h.store.PayrollRows(ctx, runID)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if !row.Valid() {
			continue
		}
		if ok, _ := approvable(row, viewerID, linked); ok {
			v.ApproveN++
		}
		if cancelable(row) {
			v.CancelOpen++
		}
		if row.ProposalID == "" && row.ActionState == store.ActionRefused {
			v.Refused++
		}
	}
	return nil
}

// addTotals shows the run's totals by currency, each beside the treasury's
// balance when asked, and what is short.
func (h *Handler) addTotals(ctx context.Context, v *views.PayrollRunView, totals map[string]decimal.Decimal, withBalance bool) {
	var balances map[string]decimal.Decimal
	if withBalance && len(totals) > 0 {
		balances, v.BalanceMsg = h.balances(ctx)
		v.BalanceRead = true
	}
	for _, coin := range sortedKeys(totals) {
		t := views.PayrollTotal{Total: money(totals[coin], coin)}
		if b, ok := balances[coin]; ok {
			t.Balance, t.HasBal = money(b, coin), true
			if totals[coin].GreaterThan(b) {
				t.Short = true
				t.Shortfall = fmt.Sprintf("Short by %s: the run pays %s and the treasury's %s wallet holds %s.",
					money(totals[coin].Sub(b), coin), money(totals[coin], coin), coin, money(b, coin))
			}
		} else if balances != nil {
			t.Short, t.Shortfall = true, "The treasury has no "+coin+" wallet at the Partner API."
		}
		v.Totals = append(v.Totals, t)
	}
}
