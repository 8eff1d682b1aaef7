package approvals

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// maxWallet is the longest wallet id the history's filter takes.
const maxWallet = 100

// historyFilter reads the history's filter: each field checked, the
// problems in words next to their fields.
func historyFilter(q url.Values) (store.HistoryFilter, views.HistoryFilterForm) {
	form := views.HistoryFilterForm{Status: q.Get("status"), Type: q.Get("type"), Employee: strings.TrimSpace(q.Get("employee")),
		Wallet: strings.TrimSpace(q.Get("wallet")), Who: strings.TrimSpace(q.Get("who")), From: q.Get("from"), To: q.Get("to"),
		Fields: views.FieldErrors{}}
	if form.Status != "" && !slices.Contains(store.HistoryStatuses, store.ProposalStatus(form.Status)) {
		form.Fields["status"] = "Choose one of the listed states."
	}
	if form.Type != "" && !slices.Contains(queueTypes, form.Type) {
		form.Fields["type"] = "Choose one of the listed types."
	}
	for _, c := range []struct {
		field, value string
		max          int
	}{{"employee", form.Employee, maxWho}, {"wallet", form.Wallet, maxWallet}, {"who", form.Who, maxWho}} {
		if msg := handlers.CheckText(c.value, c.max, false); msg != "" {
			form.Fields[c.field] = msg
		}
	}
	f := store.HistoryFilter{Status: store.ProposalStatus(form.Status), Type: form.Type, UserID: form.Employee, WalletID: form.Wallet,
		Person: form.Who, Limit: PageSize}
	f.From, f.To = handlers.DayRange(form.Fields, form.From, form.To)
	if b := q.Get("before"); b != "" {
		t, id, ok := parseBefore(b)
		if !ok {
			form.Fields["before"] = "This page link is not one the history makes; start from the newest."
		}
		f.BeforeAt, f.BeforeID = t, id
	}
	return f, form
}

// historyQuery is the filter's query string without the page.
func historyQuery(form views.HistoryFilterForm) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"status": form.Status, "type": form.Type, "employee": form.Employee, "wallet": form.Wallet,
		"who": form.Who, "from": form.From, "to": form.To} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

func historyStates() []views.Choice {
	out := make([]views.Choice, 0, len(store.HistoryStatuses))
	for _, s := range store.HistoryStatuses {
		out = append(out, views.Choice{Value: string(s), Label: views.StatusLabel(views.StatusProposal, string(s))})
	}
	return out
}

// historyRow builds a history row: who approved (the wallet admin, and the
// staff member who acted here), who rejected, whose device signed.
func historyRow(e store.HistoryEntry, names proposal.Names) views.HistoryRow {
	p := e.Proposal
	r := views.HistoryRow{ID: p.ID, Type: proposal.TypeLabel(p), Amount: proposal.Money(p), From: names.Of(p.OwnerUserID), To: names.Recipient(p),
		Description: p.Description, Status: string(p.Status), StatusLabel: views.StatusLabel(views.StatusProposal, string(p.Status)), RejectedBy: e.RejectedBy,
		Signatures: strconv.Itoa(p.CollectedSignatures) + " of " + strconv.Itoa(p.RequiredSignatures),
		SentBy:     e.SentToDeviceBy, Deadline: e.SignDeadline, Created: p.CreatedAt, Changed: p.UpdatedAt}
	for _, a := range p.Approvals {
		label := names.Of(a)
		if by := e.ApprovedBy[a]; by != "" {
			label += " (by " + by + ")"
		}
		r.ApprovedBy = append(r.ApprovedBy, label)
	}
	switch p.Status {
	case store.ProposalRejected:
		r.Reason = p.RejectionReason
	case store.ProposalFailed:
		r.Reason = p.FailureReason
	}
	if p.CollectedSignatures > 0 {
		r.SignedBy = names.Of(p.OwnerUserID)
	}
	return r
}

// History lists the proposals that left the queue for good (completed,
// rejected, expired) and the failed ones, the most recently changed first,
// filtered and paged; each row links to the proposal's page.
func (h *Handler) History(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f, form := historyFilter(r.URL.Query())
	v := views.ApprovalHistoryView{Filter: form, Types: queueTypes, States: historyStates()}
	if form.Fields.Any() {
		// A filter the history does not take lists nothing, rather than
		// everything.
		h.Render(w, r, http.StatusBadRequest, "Approval history", views.ApprovalHistoryPage(v), nil)
		return
	}
	entries, err := h.store.ListHistory(ctx, f)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	ps := make([]store.Proposal, len(entries))
	for i, e := range entries {
		ps[i] = e.Proposal
	}
	names, err := proposal.LoadNames(ctx, h.store, ps...)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if form.Employee != "" {
		if v.EmployeeName, err = h.employeeName(r, names, form.Employee); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	for _, e := range entries {
		v.Rows = append(v.Rows, historyRow(e, names))
	}
	q := historyQuery(form)
	v.CSVURL = "/approvals/history.csv"
	if len(q) > 0 {
		v.CSVURL += "?" + q.Encode()
	}
	if !f.BeforeAt.IsZero() {
		v.NewestURL = "/approvals/history"
		if len(q) > 0 {
			v.NewestURL += "?" + q.Encode()
		}
	}
	if len(entries) == PageSize {
		last := entries[len(entries)-1]
		oq := historyQuery(form)
		oq.Set("before", last.UpdatedAt.UTC().Format(time.RFC3339Nano)+"|"+last.ID)
		v.OlderURL = "/approvals/history?" + oq.Encode()
	}
	h.Render(w, r, http.StatusOK, "Approval history", views.ApprovalHistoryPage(v), nil)
}

// employeeName names the employee a history filtered on, also when no row
// of the page mentions them.
func (h *Handler) employeeName(r *http.Request, names proposal.Names, id string) (string, error) {
	if _, ok := names[id]; ok {
		return names.Of(id), nil
	}
	m, err := h.store.EmployeesByServiceUserIDs(r.Context(), []string{id})
	if err != nil {
		return "", err
	}
	return proposal.Names(m).Of(id), nil
}

// HistoryCSV exports every row of the history's filter.
func (h *Handler) HistoryCSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f, form := historyFilter(r.URL.Query())
	if form.Fields.Any() {
		h.ErrorPage(w, r, http.StatusBadRequest, "Not a filter the history takes", "Correct the filter on the history page and export again.")
		return
	}
	f.Limit = 1000
	// A page of the history with its people's names.
	type page struct {
		entries []store.HistoryEntry
		names   proposal.Names
	}
	read := func() (page, bool, error) {
		entries, err := h.store.ListHistory(ctx, f)
		if err != nil {
			return page{}, false, err
		}
		ps := make([]store.Proposal, len(entries))
		for i, e := range entries {
			ps[i] = e.Proposal
		}
		names, err := proposal.LoadNames(ctx, h.store, ps...)
		if err != nil || len(entries) < f.Limit {
			return page{entries, names}, false, err
		}
		last := entries[len(entries)-1]
		f.BeforeAt, f.BeforeID = last.UpdatedAt, last.ID
		return page{entries, names}, true, nil
	}
	handlers.ExportPages(h.Base, w, r, "approval-history.csv", []string{"id", "type", "amount", "currency", "token", "from", "to", "description",
		"state", "reason", "approved_by", "rejected_by", "signatures", "signed_by", "sign_link_by", "sign_deadline", "created_at", "changed_at"},
		read, func(cw *handlers.CSVWriter, p page) {
			for _, e := range p.entries {
				row := historyRow(e, p.names)
				deadline := ""
				if row.Deadline != nil {
					deadline = row.Deadline.UTC().Format(time.RFC3339)
				}
				cw.Row(e.ID, e.Type, e.Amount.String(), row.Amount.Currency, e.Currency, row.From, row.To, e.Description, string(e.Status),
					row.Reason, strings.Join(row.ApprovedBy, "; "), row.RejectedBy, row.Signatures, row.SignedBy, row.SentBy, deadline,
					e.CreatedAt.UTC().Format(time.RFC3339), e.UpdatedAt.UTC().Format(time.RFC3339))
			}
		})
}
