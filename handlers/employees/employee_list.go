package employees

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// maxSearch is the longest search the list accepts, in characters.
const maxSearch = 100

// listFilter reads the list's and the matrix's filter from the query
// string. Unknown choices are dropped rather than refused (a stale bookmark
// still opens). A search that is not text comes back in the view's
// Fields (shown next to the search box, what was typed kept); a page
// cursor that is not text is refused with the words of the problem.
func listFilter(r *http.Request) (store.EmployeeFilter, views.EmployeeFilterView, string) {
	q := r.URL.Query()
	f := store.EmployeeFilter{Search: strings.TrimSpace(q.Get("q")), Sort: store.SortName, After: q.Get("after")}
	var fields views.FieldErrors
	if msg := handlers.CheckText(f.Search, maxSearch, false); msg != "" {
		fields = views.FieldErrors{"q": "The search was not understood: " + msg}
	}
	if f.After != "" {
		// A cursor is base64 of text this app made; anything else is a
		// link that was not.
		if b, err := base64.RawURLEncoding.DecodeString(f.After); err == nil && handlers.CheckText(string(b), 1000, false) != "" {
			return f, views.EmployeeFilterView{}, "This page link is not valid any more. Start again from the first page."
		}
	}
	// A value that is none of a select's options is refused next to it
	// (a hand-made or stale link): the list is not read with it.
	for _, c := range []struct {
		name, msg string
		known     []string
		into      *string
	}{
		{"state", "Choose one of the listed invite states.", inviteStates(), &f.InviteState},
		{"currency", "Choose one of the listed currencies.", store.ReadinessCurrencies(), &f.Currency},
		{"readiness", "Choose one of the listed readiness states.", readinessStates(), &f.Readiness},
		{"sort", "Choose one of the listed orders.", []string{store.SortName, store.SortActivity}, &f.Sort},
	} {
		switch v := q.Get(c.name); {
		case v == "":
		case slices.Contains(c.known, v):
			*c.into = v
		default:
			if fields == nil {
				fields = views.FieldErrors{}
			}
			fields[c.name] = c.msg
		}
	}
	fv := views.EmployeeFilterView{Q: f.Search, State: f.InviteState, Currency: f.Currency, Readiness: f.Readiness, Sort: f.Sort, Fields: fields}
	if fields.Any() {
		// Shown back as typed, with what is not text made printable.
		fv.Q = strings.ToValidUTF8(f.Search, "\uFFFD")
	}
	return f, fv, ""
}

// filterQuery encodes a filter as a query string (without the cursor).
func filterQuery(f views.EmployeeFilterView) url.Values {
	v := url.Values{}
	set := func(k, x string) {
		if x != "" {
			v.Set(k, x)
		}
	}
	if !f.Fields.Has("q") {
		set("q", f.Q)
	}
	set("state", f.State)
	set("currency", f.Currency)
	set("readiness", f.Readiness)
	if f.Sort == store.SortActivity {
		v.Set("sort", f.Sort)
	}
	return v
}

func filterOptions(fv views.EmployeeFilterView) (states, currencies, readiness, sorts []views.Option) {
	states = []views.Option{{Value: "", Label: "Any invite state"}}
	for _, s := range inviteStates() {
		states = append(states, views.Option{Value: s, Label: views.StatusLabel(views.StatusInvite, s), Selected: s == fv.State})
	}
	currencies = []views.Option{{Value: "", Label: "Any currency"}}
	for _, c := range store.ReadinessCurrencies() {
		currencies = append(currencies, views.Option{Value: c, Label: c, Selected: c == fv.Currency})
	}
	readiness = []views.Option{{Value: "", Label: "Any readiness"}}
	for _, s := range readinessStates() {
		label := chartLabel(s)
		if s == store.ReadyNotStarted {
			// The filter also finds currencies not read yet.
			label = "not started or not read yet"
		}
		readiness = append(readiness, views.Option{Value: s, Label: label, Selected: s == fv.Readiness})
	}
	sorts = []views.Option{{Value: store.SortName, Label: "Name", Selected: fv.Sort != store.SortActivity},
		{Value: store.SortActivity, Label: "Last activity", Selected: fv.Sort == store.SortActivity}}
	return
}

// listed is one page of the list or the matrix, as both read it.
type listed struct {
	filter views.EmployeeFilterView
	rows   []views.EmployeeRow
	self   string
	next   string
	csv    string
	status int
	// counts are the whole workforce's readiness counts, when asked for.
	counts map[string]map[string]int
}

// listPage reads one filtered page for path (the list or the matrix):
// the poll short-cut, the filter, the page with its readiness and its
// links, and, withCounts, the workforce's readiness counts in the same
// round trip. It answers the request itself when it returns false.
func (h *Handler) listPage(w http.ResponseWriter, r *http.Request, path string, limit int, withCounts bool) (listed, bool) {
	same, err := h.unchanged(w, r)
	if err != nil {
		h.ServerError(w, r, err)
		return listed{}, false
	}
	if same {
		return listed{}, false
	}
	f, fv, bad := listFilter(r)
	if bad != "" {
		h.ErrorPage(w, r, http.StatusBadRequest, "Search not understood", bad)
		return listed{}, false
	}
	if fv.Fields.Any() {
		// Nothing is read with a search that is not text: the page
		// shows the search with its message, to be corrected.
		return listed{filter: fv, status: http.StatusBadRequest}, true
	}
	f.Limit = limit
	var page store.EmployeePageWithReadiness
	var counts map[string]map[string]int
	if withCounts {
		page, counts, err = h.Store.ReadinessMatrixPage(r.Context(), f, store.ReadinessCurrencies())
	} else {
		page, err = h.Store.ListEmployeesWithReadiness(r.Context(), f)
	}
	if errors.Is(err, store.ErrBadCursor) {
		h.ErrorPage(w, r, http.StatusBadRequest, "Page not found", "This page link is not valid any more. Start again from the first page.")
		return listed{}, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return listed{}, false
	}
	out := listed{filter: fv, status: http.StatusOK, rows: employeeRows(page.Employees, page.Readiness),
		csv: handlers.WithQuery(path+".csv", filterQuery(fv)), counts: counts}
	out.self, out.next = pageLinks(path, fv, f.After, page.Next, changeStamp(page.ChangedAt))
	return out, true
}

// List shows the employee list: search as you type, filters, keyset pages.
// htmx asks for the results fragment alone (search, filters, polling).
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	p, ok := h.listPage(w, r, "/employees", listPageSize, false)
	if !ok {
		return
	}
	v := views.EmployeeListView{Filter: p.filter, Columns: store.ReadinessCurrencies(), Rows: p.rows, CanWrite: canWrite(r),
		CSVURL: p.csv, SelfURL: p.self, NextURL: p.next, Now: h.Clock()}
	v.States, v.Currencies, v.Readiness, v.Sorts = filterOptions(p.filter)
	h.Render(w, r, p.status, "Employees", views.EmployeeListPage(v), views.EmployeeResults(v))
}

// eachPage walks every page of the filtered list, 500 employees at a time,
// with their readiness, for the CSV exports. It answers the request itself
// when the first page fails; a later failure is logged and ends the file.
func (h *Handler) eachPage(w http.ResponseWriter, r *http.Request, filename string, header []string, row func(cw *handlers.CSVWriter, e views.EmployeeRow)) {
	f, fv, bad := listFilter(r)
	for _, name := range []string{"q", "state", "currency", "readiness", "sort"} {
		if bad == "" {
			bad = fv.Fields.Get(name)
		}
	}
	if bad != "" {
		h.ErrorPage(w, r, http.StatusBadRequest, "Search not understood", bad)
		return
	}
	f.After, f.Limit = "", 500
	read := func() ([]views.EmployeeRow, bool, error) {
		page, err := h.Store.ListEmployees(r.Context(), f)
		if err != nil {
			return nil, false, err
		}
		readiness, err := h.Store.ReadinessOf(r.Context(), idsOf(page.Employees))
		if err != nil {
			return nil, false, err
		}
		f.After = page.Next
		return employeeRows(page.Employees, readiness), page.Next != "", nil
	}
	handlers.ExportPages(h.Base, w, r, filename, header, read, func(cw *handlers.CSVWriter, rows []views.EmployeeRow) {
		for _, e := range rows {
			row(cw, e)
		}
	})
}

// ExportCSV streams the filtered list as CSV.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	header := []string{"id", "name", "email", "service_user_id", "invite_state", "action_required", "last_activity_at"}
	for _, c := range store.ReadinessCurrencies() {
		header = append(header, strings.ToLower(c)+"_readiness")
	}
	h.eachPage(w, r, "employees.csv", header,
		func(cw *handlers.CSVWriter, row views.EmployeeRow) {
			cells := []string{strconv.FormatInt(row.ID, 10), row.Name, row.Email, row.ServiceUserID, row.InviteLabel, row.ActionRequired,
				views.ISO(row.LastActivity)}
			for _, c := range row.Cells {
				cells = append(cells, c.Label)
			}
			cw.Row(cells...)
		})
}

// listPageSize is the list's page: 25 rows of 5 readiness cells, the page
// size of the invite consoles users compare with.
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
	self = handlers.WithQuery(path, q)
	if next != "" {
		nq := filterQuery(fv)
		nq.Set("after", next)
		nextURL = handlers.WithQuery(path, nq)
	}
	return self, nextURL
}
