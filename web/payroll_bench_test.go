package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// payrollControl calls the sandbox's control API.
func payrollControl(b testing.TB, env *webtest.Env, method, path string, body any) {
	b.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, env.SandboxURL+path, bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		b.Fatalf("control %s %s: %d", method, path, resp.StatusCode)
	}
}

// seedPayees adds n linked employees with an active USDB wallet to the
// mirror only (enough for checking and previewing a run).
func seedPayees(b *testing.B, env *webtest.Env, n int) []string {
	b.Helper()
	ctx := context.Background()
	now := time.Now()
	emails := make([]string, n)
	for i := range n {
		e, err := env.Store.UpsertEmployee(ctx, store.Employee{Kind: store.KindEmployee, ServiceUserID: fmt.Sprintf("bench-user-%05d", i),
			Email: fmt.Sprintf("payee%05d@bench.example", i), FirstName: "Payee", LastName: fmt.Sprintf("N%05d", i), Country: "USA",
			InviteState: store.InviteLinked, LinkedAt: &now})
		if err != nil {
			b.Fatal(err)
		}
		if err := env.Store.UpsertWallet(ctx, store.Wallet{ID: fmt.Sprintf("bench-wallet-%05d", i), EmployeeID: e.ID, Currency: "USDB",
			DisplayCurrency: "USD", Status: "active"}); err != nil {
			b.Fatal(err)
		}
		emails[i] = e.Email
	}
	return emails
}

// payrollFile is a run paying each recipient amount USD.
func payrollFile(recipients []string, amount string) string {
	var sb strings.Builder
	sb.WriteString("employee,amount,currency,description\n")
	for _, r := range recipients {
		sb.WriteString(r + "," + amount + ",USD,November salary\n")
	}
	return sb.String()
}

// BenchmarkPayrollCheck1000Rows checks, stores and previews a 1,000-row
// file (budget: 1 s for the upload's check and the preview together) and
// prints the time; it asserts nothing about time.
//
//	go test -run '^$' -bench PayrollCheck1000Rows -benchtime 5x ./web/
func BenchmarkPayrollCheck1000Rows(b *testing.B) {
	env := webtest.New(b, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	file := payrollFile(seedPayees(b, env, 1000), "1250.50")
	var upload, preview time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		id := webtest.CreatePayroll(b, env, c, file)
		t1 := time.Now()
		doc := webtest.PayrollPage(b, env, c, id)
		t2 := time.Now()
		upload, preview = upload+t1.Sub(t0), preview+t2.Sub(t1)
		if n := doc.Find(`[data-testid="payroll-row"][data-state="ready"]`).Length(); n != 1000 {
			b.Fatalf("%d ready rows, want 1000", n)
		}
	}
	n := time.Duration(b.N)
	fmt.Printf("payroll 1,000 rows: upload+check+store %v, preview (with the live balance) %v, together %v (budget 1 s)\n",
		(upload / n).Round(time.Millisecond), (preview / n).Round(time.Millisecond), ((upload + preview) / n).Round(time.Millisecond))
	b.ReportMetric(float64((upload+preview)/n)/1e6, "ms/run")
}

// BenchmarkPayrollProposalsPerSecond sends runs of 200 rows to the sandbox,
// with no injected latency and with 50 ms on every proposal creation, and
// prints the proposals created per second (budgets: at least 50/s and
// 20/s). The sending is the job's own code (SendRun) with its default
// concurrency; nothing about time is asserted.
//
//	go test -run '^$' -bench PayrollProposalsPerSecond -benchtime 3x ./web/
func BenchmarkPayrollProposalsPerSecond(b *testing.B) {
	env := webtest.New(b, webtest.Options{})
	c, owner := env.SignedIn(store.RoleOwner)
	file := payrollFile(webtest.SandboxPayees(b, env, "rate", 200), "1.00")
	by := store.Actor{StaffID: owner.ID, Email: owner.Email}
	for _, latency := range []int{0, 50} {
		b.Run(fmt.Sprintf("latency=%dms", latency), func(b *testing.B) {
			payrollControl(b, env, http.MethodDelete, "/_sandbox/faults", nil)
			if latency > 0 {
				payrollControl(b, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute,
					"latencyMs": latency})
			}
			var sent int
			var took time.Duration
			for range b.N {
				id := webtest.CreatePayroll(b, env, c, file)
				doc := webtest.PayrollPage(b, env, c, id)
				resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(b, doc, "payroll-send-form")}})
				resp.Body.Close()
				before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)
				t0 := time.Now()
				if err := env.App.Payroll().SendRun(context.Background(), id, by); err != nil {
					b.Fatal(err)
				}
				took += time.Since(t0)
				n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before
				if n != 200 {
					b.Fatalf("%d proposals created, want 200", n)
				}
				sent += n
			}
			rate := float64(sent) / took.Seconds()
			fmt.Printf("payroll send, %d ms injected per create: %d proposals in %v: %.0f proposals/s (budget %s)\n",
				latency, sent, took.Round(time.Millisecond), rate, map[int]string{0: "≥ 50/s", 50: "≥ 20/s"}[latency])
			b.ReportMetric(rate, "proposals/s")
		})
	}
}

// BenchmarkPayrollRunPollAt32Clients measures the run page's live poll
// (/payroll/{id}/progress, as htmx sends it every 2 s) from 32 clients
// while a 1,000-row run is being sent (50 ms injected on every proposal
// creation keeps it sending), and prints p50 and p99 (budget: p99 ≤ 30 ms).
// Nothing about time is asserted.
//
//	go test -run '^$' -bench PayrollRunPollAt32Clients -benchtime 3000x ./web/
func BenchmarkPayrollRunPollAt32Clients(b *testing.B) {
	env := webtest.New(b, webtest.Options{StartWorkers: true})
	c, _ := env.SignedIn(store.RoleOwner)
	file := payrollFile(webtest.SandboxPayees(b, env, "rate", 1000), "1.00")
	id := webtest.CreatePayroll(b, env, c, file)
	payrollControl(b, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute, "latencyMs": 50})
	doc := webtest.PayrollPage(b, env, c, id)
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(b, doc, "payroll-send-form")}})
	resp.Body.Close()
	p50, p99 := webtest.MeasureGets(b, env, c, fmt.Sprintf("/payroll/%d/progress", id), 32, true)
	run, err := env.Store.PayrollRunByID(context.Background(), id)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("payroll run poll, 1,000 rows, 32 clients, %d polls: p50 %.1f ms, p99 %.1f ms (budget p99 ≤ 30 ms); run %s at the end\n",
		b.N, p50, p99, run.State)
}
