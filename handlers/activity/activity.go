// Package activity is the company's money activity for accounting: one feed
// of deposits, withdrawals (payouts and offramps paid out), card spends and
// completed proposals (transfers, payroll rows, swaps, offramps), filtered
// by kind, currency, employee and dates, paged, and exported as CSV.
package activity

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Handler serves the activity feed.
type Handler struct {
	*handlers.Base
	store *store.Store
}

// New builds the area.
func New(d handlers.Deps) *Handler { return &Handler{Base: d.Base, store: d.Store} }

const pageSize = 100

// currencyCode reports whether s looks like a token or fiat code as the
// feed records it: 3 to 6 ASCII letters.
func currencyCode(s string) bool {
	if len(s) < 3 || len(s) > 6 {
		return false
	}
	return strings.Trim(strings.ToUpper(s), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// filter reads the feed's query: each field checked, the problems in words.
func filter(q url.Values) (store.FeedFilter, views.ActivityFilterForm) {
	form := views.ActivityFilterForm{Kind: q.Get("kind"), Currency: strings.TrimSpace(q.Get("currency")),
		Employee: strings.TrimSpace(q.Get("employee")), From: q.Get("from"), To: q.Get("to"), Kinds: store.FeedKinds(),
		Fields: views.FieldErrors{}}
	f := store.FeedFilter{Limit: pageSize}
	if form.Kind != "" && !slices.Contains(form.Kinds, form.Kind) {
		form.Fields["kind"] = "Choose one of the listed kinds."
	}
	f.Kind = form.Kind
	if form.Currency != "" && !currencyCode(form.Currency) {
		form.Fields["currency"] = "A currency is a code of 3 to 6 letters, such as USD or USDB."
	}
	f.Currency = strings.ToUpper(form.Currency)
	if msg := handlers.CheckText(form.Employee, 100, false); msg != "" {
		form.Fields["employee"] = msg
	}
	f.ServiceUserID = form.Employee
	f.From, f.To = handlers.DayRange(form.Fields, form.From, form.To)
	if b := q.Get("before"); b != "" {
		at, key, ok := strings.Cut(b, "_")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil || handlers.CheckText(key, 100, false) != "" {
			form.Fields["before"] = "This page link is not one the feed makes; start from the first page."
		}
		f.BeforeAt, f.BeforeKey = t, key
	}
	return f, form
}

// query is the filter's query string without the page.
func query(form views.ActivityFilterForm) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"kind": form.Kind, "currency": form.Currency, "employee": form.Employee, "from": form.From, "to": form.To} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// Feed is /activity.
func (h *Handler) Feed(w http.ResponseWriter, r *http.Request) {
	f, form := filter(r.URL.Query())
	v := views.ActivityView{Filter: form}
	status := http.StatusOK
	if form.Fields.Any() {
		status = http.StatusBadRequest
	} else {
		list, err := h.store.ActivityFeed(r.Context(), f)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.Rows = feedRows(list)
		q := query(form)
		v.CSV = handlers.WithQuery("/activity.csv", q)
		if !r.URL.Query().Has("before") {
			v.LiveURL = handlers.WithQuery("/activity", q)
		}
		if len(list) == pageSize {
			last := list[len(list)-1]
			q.Set("before", last.At.UTC().Format(time.RFC3339Nano)+"_"+last.Key)
			v.Older = "/activity?" + q.Encode()
		}
	}
	h.Render(w, r, status, "Activity", views.ActivityPage(v), views.ActivityResults(v))
}

// feedRows are the feed's lines as the page shows them.
func feedRows(list []store.FeedEntry) []views.ActivityRow {
	rows := make([]views.ActivityRow, 0, len(list))
	// A page has a few currencies: each one's words are made once.
	labels := map[string]string{}
	for _, e := range list {
		row := views.ActivityRow{At: e.At, Kind: e.Kind, Employee: e.Employee, ServiceUserID: e.ServiceUserID,
			Currency: e.Currency, Reference: e.Reference, Status: e.Status, Description: e.Description}
		if e.Amount != nil {
			row.Amount = views.FormatDecimal(*e.Amount, 2)
		}
		if e.Fee != nil {
			row.Fee = views.FormatDecimal(*e.Fee, 2)
		}
		if label, ok := labels[e.Currency]; ok {
			row.Currency = label
		} else {
			if fiat, ok := apiclient.Stablecoin(e.Currency).Fiat(); ok {
				row.Currency = string(fiat) + " (" + e.Currency + ")"
			}
			labels[e.Currency] = row.Currency
		}
		rows = append(rows, row)
	}
	return rows
}

// CSV exports the filtered feed, every line, for accounting.
func (h *Handler) CSV(w http.ResponseWriter, r *http.Request) {
	f, form := filter(r.URL.Query())
	if form.Fields.Any() {
		h.ErrorPage(w, r, http.StatusBadRequest, "Not a filter the feed takes", "Correct the filter on the activity page and download again.")
		return
	}
	f.Limit = 1000
	read := func() ([]store.FeedEntry, bool, error) {
		list, err := h.store.ActivityFeed(r.Context(), f)
		if err != nil || len(list) < f.Limit {
			return list, false, err
		}
		last := list[len(list)-1]
		f.BeforeAt, f.BeforeKey = last.At, last.Key
		return list, true, nil
	}
	handlers.ExportPages(h.Base, w, r, "activity.csv", []string{"date", "kind", "employee", "service_user_id", "amount", "currency", "fee",
		"reference", "status", "description"}, read, func(cw *handlers.CSVWriter, list []store.FeedEntry) {
		for _, e := range list {
			amt, fee := "", ""
			if e.Amount != nil {
				amt = e.Amount.String()
			}
			if e.Fee != nil {
				fee = e.Fee.String()
			}
			cw.Row(e.At.UTC().Format(time.RFC3339), e.Kind, e.Employee, e.ServiceUserID, amt, e.Currency, fee, e.Reference, e.Status,
				e.Description)
		}
	})
}
