package approvaltest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A row with more values than the header names is refused with its line,
// never read with its extra values dropped: an unquoted 1,000.50 in the
// last column would otherwise pay 1. Empty trailing cells, as spreadsheets
// save, are still accepted.
func TestPayrollUploadRefusesARowWithMoreValuesThanColumns(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	emily := env.DemoEmployee("Emily").Email
	runs := func() int {
		var n int
		if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM payroll_runs`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	resp := webtest.UploadPayroll(t, env, c, "Split amount", "employee,currency,amount\n"+emily+",USD,10\n"+emily+",USDB,1,000.50\n")
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a split amount: %d, want 422", resp.StatusCode)
	}
	webtest.FieldProblem(t, doc, "payroll-file", "line 3 has 4 values but the header names 3 columns")
	if v, _ := doc.Find("#payroll-csv-name").Attr("value"); v != "Split amount" {
		t.Fatalf("typed name lost: %q", v)
	}
	if n := runs(); n != 0 {
		t.Fatalf("%d runs made from a refused file", n)
	}

	id := webtest.CreatePayroll(t, env, c, "employee,amount,currency\n"+emily+",10,USD,,\n")
	if st, _ := payrollRow(webtest.PayrollPage(t, env, c, id), 2).Attr("data-state"); st != "ready" {
		t.Fatalf("a row with empty trailing cells: %q, want ready", st)
	}
}

// A run from the employee list with a chosen id that is no employee (a
// stale or edited form) is refused next to the employees, with what was
// typed kept; it is never made with that person silently left out.
func TestPayrollFromEmployeesRefusesAnUnknownEmployee(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	emily := strconv.FormatInt(webtest.MirroredDemoEmployee(t, env, "Emily").ID, 10)
	resp := env.PostForm(c, "/payroll/employees", url.Values{"name": {"Bonus"}, "amount": {"250"}, "currency": {"USD"},
		"description": {"Year-end bonus"}, "employee_id": {emily, "999999999"}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "payroll-employees-error"), "1 of the 2 chosen employees are not known") {
		t.Fatalf("unknown employee: %d %q", resp.StatusCode, webtest.TestID(doc, "payroll-employees-error"))
	}
	if doc.Find("#f-name").AttrOr("value", "") != "Bonus" || doc.Find("#f-amount").AttrOr("value", "") != "250" {
		t.Fatal("typed values lost")
	}
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM payroll_runs`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d runs made (%v)", n, err)
	}
}
