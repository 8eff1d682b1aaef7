package employees

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Matrix shows employees × currencies, each cell the readiness state with
// the missing fields on expand, with the list's filters.
func (h *Handler) Matrix(w http.ResponseWriter, r *http.Request) {
	// The whole workforce's counts, for the chart, come in the page's
	// round trip; a poll of the table alone does not read them.
	p, ok := h.listPage(w, r, "/employees/readiness", matrixPageSize, !handlers.IsFragmentRequest(r))
	if !ok {
		return
	}
	v := views.ReadinessMatrixView{Filter: p.filter, Columns: store.ReadinessCurrencies(), Rows: p.rows, CSVURL: p.csv,
		SelfURL: p.self, NextURL: p.next}
	v.States, v.Currencies, v.Readiness, _ = filterOptions(p.filter)
	v.Totals = pageTotals(v.Columns, p.rows)
	if !handlers.IsFragmentRequest(r) {
		v.Chart = readinessChart(v.Columns, p.counts)
		if canWrite(r) {
			v.Bulk = bulkOffers(p.counts)
		}
	}
	h.Render(w, r, p.status, "Readiness", views.ReadinessMatrixPage(v), nil)
}

// pageTotals counts the page's employees per currency and state, for the
// matrix's footer.
func pageTotals(columns []string, rows []views.EmployeeRow) []views.ReadinessTotal {
	states := append(readinessStates(), store.ReadyNotRead)
	totals := make([]views.ReadinessTotal, 0, len(columns))
	for i, cur := range columns {
		counts := map[string]int{}
		for _, row := range rows {
			counts[row.Cells[i].State]++
		}
		t := views.ReadinessTotal{Currency: cur}
		for _, s := range states {
			if counts[s] > 0 {
				t.Counts = append(t.Counts, views.Option{Value: strconv.Itoa(counts[s]), Label: chartLabel(s)})
			}
		}
		totals = append(totals, t)
	}
	return totals
}

// matrixPageSize is the matrix's page: a screen shows fewer than 50 rows,
// and the filters, the CSV and the next page link reach the rest.
const matrixPageSize = 50

// chartWidth is a bar's width in the chart's units.
const chartWidth = 1000

// readinessChart lays out one stacked bar per currency from the workforce
// counts, each state's width in proportion to its count.
func readinessChart(currencies []string, counts map[string]map[string]int) *views.ReadinessChart {
	c := &views.ReadinessChart{}
	states := append(readinessStates(), store.ReadyNotRead)
	for _, st := range states {
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
		for _, st := range states {
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

// MatrixCSV streams what is missing per employee and currency: one row per
// employee, one column per currency listing the missing fields in words,
// and a column with every distinct missing field to collect.
func (h *Handler) MatrixCSV(w http.ResponseWriter, r *http.Request) {
	header := []string{"id", "name", "email", "invite_state"}
	for _, c := range store.ReadinessCurrencies() {
		header = append(header, strings.ToLower(c)+"_state", strings.ToLower(c)+"_missing")
	}
	header = append(header, "to_collect")
	h.eachPage(w, r, "missing-by-employee.csv", header,
		func(cw *handlers.CSVWriter, row views.EmployeeRow) {
			cells := []string{strconv.FormatInt(row.ID, 10), row.Name, row.Email, row.InviteLabel}
			var all []string
			for _, c := range row.Cells {
				cells = append(cells, c.Label, strings.Join(c.Missing, "; "))
				for _, m := range c.Missing {
					if !slices.Contains(all, m) {
						all = append(all, m)
					}
				}
			}
			cw.Row(append(cells, strings.Join(all, "; "))...)
		})
}
