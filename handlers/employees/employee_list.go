package employees

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// listFilter reads the list's filter from the query string; unknown values
// are dropped rather than refused (a stale bookmark still opens).
func listFilter(r *http.Request) (store.EmployeeFilter, views.EmployeeFilterView) {
	q := r.URL.Query()
	f := store.EmployeeFilter{Search: strings.TrimSpace(q.Get("q")), Sort: store.SortName, After: q.Get("after")}
	if len([]rune(f.Search)) > 100 {
		f.Search = string([]rune(f.Search)[:100])
	}
	if s := q.Get("state"); contains(inviteStates(), s) {
		f.InviteState = s
	}
	if c := q.Get("currency"); contains(store.ReadinessCurrencies(), c) {
		f.Currency = c
	}
	if s := q.Get("readiness"); contains(readinessStates(), s) {
		f.Readiness = s
	}
	if q.Get("sort") == store.SortActivity {
		f.Sort = store.SortActivity
	}
	return f, views.EmployeeFilterView{Q: f.Search, State: f.InviteState, Currency: f.Currency, Readiness: f.Readiness, Sort: f.Sort}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// filterQuery encodes a filter as a query string (without the cursor).
func filterQuery(f views.EmployeeFilterView) url.Values {
	v := url.Values{}
	set := func(k, x string) {
		if x != "" {
			v.Set(k, x)
		}
	}
	set("q", f.Q)
	set("state", f.State)
	set("currency", f.Currency)
	set("readiness", f.Readiness)
	if f.Sort == store.SortActivity {
		v.Set("sort", f.Sort)
	}
	return v
}

func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

func filterOptions(fv views.EmployeeFilterView) (states, currencies, readiness, sorts []views.Option) {
	states = []views.Option{{Value: "", Label: "Any invite state"}}
	for _, s := range inviteStates() {
		states = append(states, views.Option{Value: s, Label: inviteStateLabel(s), Selected: s == fv.State})
	}
	currencies = []views.Option{{Value: "", Label: "Any currency"}}
	for _, c := range store.ReadinessCurrencies() {
		currencies = append(currencies, views.Option{Value: c, Label: c, Selected: c == fv.Currency})
	}
	readiness = []views.Option{{Value: "", Label: "Any readiness"}}
	for _, s := range readinessStates() {
		label := readinessLabel(s, 2)
		if s == store.ReadyMissing {
			label = "missing fields"
		}
		readiness = append(readiness, views.Option{Value: s, Label: label, Selected: s == fv.Readiness})
	}
	sorts = []views.Option{{Value: store.SortName, Label: "Name", Selected: fv.Sort != store.SortActivity},
		{Value: store.SortActivity, Label: "Last activity", Selected: fv.Sort == store.SortActivity}}
	return
}

// List shows the employee list: search as you type, filters, keyset pages.
// htmx asks for the results fragment alone (search, filters, polling).
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	same, err := h.unchanged(w, r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if same {
		return
	}
	f, fv := listFilter(r)
	f.Limit = listPageSize
	page, err := h.Store.ListEmployeesWithReadiness(r.Context(), f)
	if errors.Is(err, store.ErrBadCursor) {
		h.ErrorPage(w, r, http.StatusBadRequest, "Page not found", "This page link is not valid any more. Start again from the first page.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	stamp := changeStamp(page.ChangedAt)
	readiness := page.Readiness
	v := views.EmployeeListView{Filter: fv, Columns: store.ReadinessCurrencies(), Rows: employeeRows(page.Employees, readiness),
		CanWrite: canWrite(r)}
	v.States, v.Currencies, v.Readiness, v.Sorts = filterOptions(fv)
	v.CSVURL = withQuery("/employees.csv", filterQuery(fv))
	v.SelfURL, v.NextURL = pageLinks("/employees", fv, f.After, page.Next, stamp)
	if h.Sessions != nil {
		v.ReconcileMessage = h.Sessions.PopString(r.Context(), sessionReconcile)
	}
	h.Render(w, r, http.StatusOK, "Employees", views.EmployeeListPage(v), views.EmployeeResults(v))
}

const sessionReconcile = "employees_reconcile"

// ExportCSV streams the filtered list, page by page, as CSV.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	f, _ := listFilter(r)
	f.After, f.Limit = "", 500
	header := []string{"id", "name", "email", "service_user_id", "invite_state", "action_required", "last_activity_at"}
	for _, c := range store.ReadinessCurrencies() {
		header = append(header, strings.ToLower(c)+"_readiness")
	}
	var cw *handlers.CSVWriter
	for {
		page, err := h.Store.ListEmployees(r.Context(), f)
		if err != nil {
			if cw == nil {
				h.ServerError(w, r, err)
				return
			}
			h.Logger.ErrorContext(r.Context(), "employees csv: next page", "err", err)
			break
		}
		readiness, err := h.Store.ReadinessOf(r.Context(), idsOf(page.Employees))
		if err != nil {
			if cw == nil {
				h.ServerError(w, r, err)
				return
			}
			h.Logger.ErrorContext(r.Context(), "employees csv: readiness", "err", err)
			break
		}
		if cw == nil {
			cw = handlers.NewCSV(w, "employees.csv", header...)
		}
		for _, row := range employeeRows(page.Employees, readiness) {
			cells := []string{strconv.FormatInt(row.ID, 10), row.Name, row.Email, row.ServiceUserID, row.InviteLabel, row.ActionRequired,
				views.ISO(row.LastActivity)}
			for _, c := range row.Cells {
				cells = append(cells, c.Label)
			}
			cw.Row(cells...)
		}
		if page.Next == "" {
			break
		}
		f.After = page.Next
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	cw.Close(h.Logger, r)
}

// listPageSize is the list's page: 25 rows of 5 readiness cells, the page
// size of the invite consoles users compare with, and what keeps the page
// cheap to render under load (see the README's figures).
const listPageSize = 25

// pageLinks builds a filtered page's links: itself (with its keyset cursor
// and the change stamp its 2-second refresh sends back) and the next page
// ("" when there is none).
func pageLinks(path string, fv views.EmployeeFilterView, after, next, stamp string) (self, nextURL string) {
	q := filterQuery(fv)
	if after != "" {
		q.Set("after", after)
	}
	q.Set("since", stamp)
	self = withQuery(path, q)
	if next != "" {
		nq := filterQuery(fv)
		nq.Set("after", next)
		nextURL = withQuery(path, nq)
	}
	return self, nextURL
}
