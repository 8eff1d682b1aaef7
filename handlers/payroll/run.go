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
	"partneradmin/handlers/mirror"
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

// rowState is a row's state: its key (for counts and tests), its words and
// a detail (a reason).
func rowState(run store.PayrollRun, row store.PayrollRow) (state, label, detail string) {
	p := row.Proposal
	switch {
	case !row.Valid():
		return "invalid", "not sent: invalid", ""
	case p != nil:
		label = p.Status.Label()
		switch p.Status {
		case store.ProposalFailed:
			detail = p.FailureReason
		case store.ProposalRejected:
			detail = p.RejectionReason
		}
		return strings.ToLower(string(p.Status)), label, detail
	case row.ActionState == store.ActionBegun:
		return "sending", "sending", ""
	case row.ActionState == store.ActionUnknown:
		return "unknown", "outcome unknown", row.ActionMessage
	case row.ActionState == store.ActionRefused:
		return "refused", "refused by the Partner API", row.ActionMessage
	case row.ActionState == store.ActionDone:
		return "sent", "proposal created", ""
	case run.State == store.PayrollCanceled:
		return "canceled", "canceled: not sent", ""
	case run.State == store.PayrollPreview:
		return "ready", "ready to send", ""
	}
	return "queued", "waiting to be sent", ""
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
	identity := mirror.ActingIdentity(*p, linked)
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

// runView builds a run's page. withBalance reads the treasury's balances
// from the API (the preview, and the send form).
func (h *Handler) runView(ctx context.Context, run store.PayrollRun, withBalance bool) (views.PayrollRunView, error) {
	v := views.PayrollRunView{ID: run.ID, Name: run.Name, Source: run.Source, State: run.State, StateLabel: runStateLabel(run.State),
		CreatedBy: run.CreatedBy, CreatedAt: run.CreatedAt, TotalRows: run.Rows, ValidRows: run.ValidRows}
	if run.State == store.PayrollCanceled {
		v.CancelNote = "Canceled: " + run.CancelReason
	}
	rows, err := h.store.PayrollRows(ctx, run.ID)
	if err != nil {
		return v, err
	}
	viewer := handlers.ViewerFrom(ctx)
	var viewerID int64
	linked := ""
	if viewer != nil {
		viewerID = viewer.Staff.ID
		if linked, err = h.store.ApproverLink(ctx, viewerID); err != nil {
			return v, err
		}
	}
	totals := map[string]decimal.Decimal{}
	type count struct {
		label string
		n     int
		sums  map[string]decimal.Decimal
	}
	counts := map[string]*count{}
	var order []string
	for _, row := range rows {
		state, label, detail := rowState(run, row)
		rv := views.PayrollRowView{Line: row.Line, Recipient: row.Recipient, Name: row.Name, Description: row.Description,
			Problems: row.Problems, State: state, StateLabel: label, Detail: detail, ProposalID: row.ProposalID}
		if row.Amount.Valid && row.Currency != "" {
			rv.Amount = money(row.Amount.Decimal, row.Currency).String()
		} else {
			rv.Amount = strings.TrimSpace(row.AmountText + " " + row.CurrencyText)
		}
		if p := row.Proposal; p != nil {
			rv.Approvals = fmt.Sprintf("%d of %d", len(p.Approvals), p.RequiredApprovals)
			rv.Signatures = fmt.Sprintf("%d of %d", p.CollectedSignatures, p.RequiredSignatures)
			if p.Status == store.ProposalPendingSignatures {
				v.SignIDs = append(v.SignIDs, p.ID)
			}
		}
		v.Rows = append(v.Rows, rv)
		c := counts[state]
		if c == nil {
			c = &count{label: label, sums: map[string]decimal.Decimal{}}
			counts[state] = c
			order = append(order, state)
		}
		c.n++
		if !row.Valid() {
			continue
		}
		c.sums[row.Currency] = c.sums[row.Currency].Add(row.Amount.Decimal)
		totals[row.Currency] = totals[row.Currency].Add(row.Amount.Decimal)
		if row.ActionState != "" && row.ActionState != store.ActionBegun || row.ProposalID != "" {
			v.Done++
		}
		if !settled(state) {
			v.Live = true
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
	sort.Strings(order)
	for _, s := range order {
		c := counts[s]
		v.Counts = append(v.Counts, views.PayrollCount{State: s, Label: c.label, N: c.n, Sums: sums(c.sums)})
	}
	if v.ValidRows > 0 {
		v.Percent = v.Done * 100 / v.ValidRows
	} else {
		v.Percent = 100
	}
	v.Live = v.Live || run.State == store.PayrollSending
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
		return nil, "the Partner API did not answer (" + mirror.ReadError(err) + "). Try again in a moment."
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
	v, err := h.runView(r.Context(), run, run.State == store.PayrollPreview)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "Payroll run", views.PayrollRunPage(v), nil)
}

// Progress is the polled part of the run page.
func (h *Handler) Progress(w http.ResponseWriter, r *http.Request) {
	run, ok := h.runFromPath(w, r)
	if !ok {
		return
	}
	v, err := h.runView(r.Context(), run, false)
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
	cw := handlers.NewCSV(w, fmt.Sprintf("payroll-%d-result.csv", run.ID), "line", "employee", "name", "service_user_id", "amount",
		"currency", "fiat", "description", "state", "detail", "proposal_id", "approvals", "signatures", "problems")
	for _, row := range rows {
		state, _, detail := rowState(run, row)
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
