package employees

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Matrix shows employees × currencies, each cell the readiness state with
// the missing fields on expand, with the list's filters.
func (h *Handler) Matrix(w http.ResponseWriter, r *http.Request) {
	same, err := h.unchanged(w, r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if same {
		return
	}
	f, fv := listFilter(r)
	f.Limit = 100
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
	v := views.ReadinessMatrixView{Filter: fv, Columns: store.ReadinessCurrencies(), Rows: employeeRows(page.Employees, readiness)}
	v.States, v.Currencies, v.Readiness, _ = filterOptions(fv)
	v.CSVURL = withQuery("/employees/readiness.csv", filterQuery(fv))
	v.SelfURL, v.NextURL = pageLinks("/employees/readiness", fv, f.After, page.Next, stamp)
	for i, cur := range v.Columns {
		counts := map[string]int{}
		for _, row := range v.Rows {
			counts[row.Cells[i].State]++
		}
		t := views.ReadinessTotal{Currency: cur}
		for _, s := range readinessStates() {
			if counts[s] > 0 {
				label := readinessLabel(s, 2)
				if s == store.ReadyMissing {
					label = "missing fields"
				}
				t.Counts = append(t.Counts, views.Option{Value: strconv.Itoa(counts[s]), Label: label})
			}
		}
		v.Totals = append(v.Totals, t)
	}
	if !handlers.IsFragmentRequest(r) {
		counts, err := h.Store.ReadinessCounts(r.Context(), v.Columns)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.Chart = readinessChart(v.Columns, counts)
	}
	h.Render(w, r, http.StatusOK, "Readiness", views.ReadinessMatrixPage(v), nil)
}

// chartWidth is a bar's width in the chart's units.
const chartWidth = 1000

// readinessChart lays out one stacked bar per currency from the workforce
// counts, each state's width in proportion to its count.
func readinessChart(currencies []string, counts map[string]map[string]int) *views.ReadinessChart {
	c := &views.ReadinessChart{}
	for _, st := range readinessStates() {
		c.Legend = append(c.Legend, views.ReadinessSegment{State: st, Label: chartLabel(st)})
	}
	for _, cur := range currencies {
		total := 0
		for _, n := range counts[cur] {
			total += n
		}
		c.Employees = max(c.Employees, total)
		bar := views.ReadinessBar{Currency: cur}
		var words []string
		x := 0
		for _, st := range readinessStates() {
			n := counts[cur][st]
			if n == 0 {
				continue
			}
			w := n * chartWidth / total
			bar.Segments = append(bar.Segments, views.ReadinessSegment{State: st, Label: chartLabel(st), Count: n, X: x, Width: w})
			x += w
			words = append(words, fmt.Sprintf("%d %s", n, chartLabel(st)))
		}
		// Integer division leaves a few units over: the last segment takes them.
		if k := len(bar.Segments); k > 0 {
			bar.Segments[k-1].Width += chartWidth - x
		}
		bar.Summary = cur + ": " + strings.Join(words, ", ")
		if len(words) == 0 {
			bar.Summary = cur + ": no employees"
		}
		c.Bars = append(c.Bars, bar)
	}
	return c
}

// chartLabel is a readiness state in words for the chart's key.
func chartLabel(state string) string {
	if state == store.ReadyMissing {
		return "missing fields"
	}
	return readinessLabel(state, 2)
}

// MatrixCSV streams what is missing per employee and currency: one row per
// employee, one column per currency listing the missing fields in words,
// and a column with every distinct missing field to collect.
func (h *Handler) MatrixCSV(w http.ResponseWriter, r *http.Request) {
	f, _ := listFilter(r)
	f.After, f.Limit = "", 500
	header := []string{"id", "name", "email", "invite_state"}
	for _, c := range store.ReadinessCurrencies() {
		header = append(header, strings.ToLower(c)+"_state", strings.ToLower(c)+"_missing")
	}
	header = append(header, "to_collect")
	var cw *handlers.CSVWriter
	for {
		page, err := h.Store.ListEmployees(r.Context(), f)
		if err == nil {
			var readiness map[int64]map[string]store.ReadinessCell
			readiness, err = h.Store.ReadinessOf(r.Context(), idsOf(page.Employees))
			if err == nil {
				if cw == nil {
					cw = handlers.NewCSV(w, "missing-by-employee.csv", header...)
				}
				for _, row := range employeeRows(page.Employees, readiness) {
					cells := []string{strconv.FormatInt(row.ID, 10), row.Name, row.Email, row.InviteLabel}
					var all []string
					seen := map[string]bool{}
					for _, c := range row.Cells {
						cells = append(cells, c.Label, strings.Join(c.Missing, "; "))
						for _, m := range c.Missing {
							if !seen[m] {
								seen[m] = true
								all = append(all, m)
							}
						}
					}
					cells = append(cells, strings.Join(all, "; "))
					cw.Row(cells...)
				}
			}
		}
		if err != nil {
			if cw == nil {
				h.ServerError(w, r, err)
				return
			}
			h.Logger.ErrorContext(r.Context(), "readiness csv", "err", err)
			break
		}
		if page.Next == "" {
			break
		}
		f.After = page.Next
	}
	cw.Close(h.Logger, r)
}
