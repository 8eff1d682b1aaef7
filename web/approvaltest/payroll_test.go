package approvaltest

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// payrollRow is a row of the run page by line.
func payrollRow(doc *goquery.Document, line int) *goquery.Selection {
	return doc.Find(fmt.Sprintf(`[data-testid="payroll-row"][data-line="%d"]`, line))
}

// treasuryUSD is the treasury's live USDB balance.
func treasuryUSD(t testing.TB, env *webtest.Env) decimal.Decimal {
	t.Helper()
	bs, err := env.API.ListBalances(context.Background(), env.Demo.TreasuryUserID)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b.Currency == apiclient.USDB {
			return b.Balance
		}
	}
	t.Fatal("no treasury USDB balance")
	return decimal.Decimal{}
}

// waitRun waits until the run has left "sending" (the job sent every row).
func waitRun(t testing.TB, env *webtest.Env, id int64) store.PayrollRun {
	t.Helper()
	var run store.PayrollRun
	webtest.WaitFor(t, fmt.Sprintf("run %d to leave sending", id), 60*time.Second, func() bool {
		var err error
		if run, err = env.Store.PayrollRunByID(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		return run.State != store.PayrollSending
	})
	return run
}

// goodPayrollCSV pays five linked employees who hold USDB and CNGN wallets.
func goodPayrollCSV(env *webtest.Env) string {
	return "employee,amount,currency,description\n" +
		env.DemoEmployee("Emily").Email + ",1200.50,USD,November salary\n" +
		env.DemoEmployee("Marcus").ServiceUserID + ",800,USDB,November salary\n" +
		env.DemoEmployee("Lena").Email + ",\"1,000.25\",usd,\n" +
		env.DemoEmployee("Adaeze").Email + ",150000,NGN,November salary\n" +
		env.DemoEmployee("Funke").Email + ",120000.5,CNGN,November salary\n"
}

func TestPayrollPreviewExplainsEveryBadRowAndSendsNothing(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ctx := context.Background()
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE employees SET invite_state = 'deleted', deleted_at = now() WHERE email = $1`,
		env.DemoEmployee("Chinedu").Email); err != nil {
		t.Fatal(err)
	}
	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)

	// The template downloads with the columns the upload reads.
	resp := env.Get(c, "/payroll/template.csv")
	recs, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(recs) < 2 || strings.Join(recs[0], ",") != "employee,amount,currency,description" {
		t.Fatalf("template %v %v", recs, err)
	}

	// A whole-file problem keeps the typed name and explains.
	resp = webtest.UploadPayroll(t, env, c, "Kept name", "who,amount\nx,1\n")
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "payroll-file-error"), "unknown column") {
		t.Fatalf("bad header: %d %q", resp.StatusCode, webtest.TestID(doc, "payroll-file-error"))
	}
	if v, _ := doc.Find("#payroll-csv-name").Attr("value"); v != "Kept name" {
		t.Fatalf("typed name lost: %q", v)
	}
	webtest.FieldProblem(t, doc, "payroll-file", "unknown column")

	file := "\ufeffEmployee,Amount,Currency,Description\n" + // a BOM and capitals, as spreadsheets save
		env.DemoEmployee("Emily").Email + ",100.00,USD,ok\n" + // 2
		env.DemoEmployee("Oliver").Email + ",\"1,50\",USD,comma\n" + // 3
		"nobody@example.com,10,USD,x\n" + // 4
		env.DemoEmployee("Ibrahim").Email + ",10,NGN,x\n" + // 5: invited, not linked
		strings.ToUpper(env.DemoEmployee("Emily").Email) + ",5,USDB,twice\n" + // 6
		env.DemoEmployee("Lena").Email + ",10.005,USD,x\n" + // 7
		env.DemoEmployee("Lena").Email + ",0,USD,x\n" + // 8
		env.DemoEmployee("Mia").Email + ",10,XYZ,x\n" + // 9
		env.DemoEmployee("Emily").Email + ",10,NGN,x\n" + // 10: Emily has no CNGN wallet
		env.DemoEmployee("Marcus").ServiceUserID + ",10,USDB,by id\n" + // 11
		env.DemoEmployee("Lena").Email + ",10,EUR,x\n" + // 12: the treasury has no EURe wallet
		env.DemoEmployee("Chinedu").Email + ",10,NGN,x\n" + // 13: deleted
		env.DemoEmployee("Oliver").Email + ",-5,USD,x\n" + // 14
		env.DemoEmployee("Oliver").Email + ",10,MXNe,x\n" + // 15
		"\n" // a blank line is skipped
	id := webtest.CreatePayroll(t, env, c, file)
	doc = webtest.PayrollPage(t, env, c, id)
	want := map[int]string{
		3:  "use a point for decimals",
		4:  "no employee here has this email",
		5:  "has not linked their account yet",
		6:  "already paid in USDB on line 2",
		7:  "at most 2 decimal places",
		8:  "more than zero",
		9:  "XYZ is not a currency",
		10: "has no CNGN wallet",
		12: "the treasury has no EURe wallet",
		13: "account was deleted",
		14: "more than zero",
		15: "MXNe is the former MXN token",
	}
	for line, reason := range want {
		row := payrollRow(doc, line)
		if st, _ := row.Attr("data-state"); st != "invalid" || !strings.Contains(row.Find(`[data-testid="payroll-problems"]`).Text(), reason) {
			t.Errorf("line %d: state %q, problems %q, want %q", line, st, row.Find(`[data-testid="payroll-problems"]`).Text(), reason)
		}
	}
	for _, line := range []int{2, 11} {
		if st, _ := payrollRow(doc, line).Attr("data-state"); st != "ready" {
			t.Errorf("line %d: %q, want ready", line, st)
		}
	}
	if n := doc.Find(`[data-testid="payroll-row"]`).Length(); n != 14 {
		t.Errorf("%d rows, want 14", n)
	}
	// The total of the good rows against the live balance, as decimals.
	total := doc.Find(`[data-testid="payroll-total"]`)
	if total.Length() != 1 || strings.TrimSpace(total.Find(`[data-testid="payroll-total-amount"]`).Text()) != "110.00 USD (USDB)" {
		t.Fatalf("totals %q", total.Text())
	}
	if got := strings.TrimSpace(total.Find(`[data-testid="payroll-total-balance"]`).Text()); got != money2(treasuryUSD(t, env))+" USD (USDB)" {
		t.Errorf("balance %q", got)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 0 {
		t.Fatalf("a preview sent %d proposals", n)
	}
	rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "payroll.create"})
	if len(rows) != 1 || !strings.Contains(rows[0].Detail, "14 rows, 2 valid") {
		t.Fatalf("audit %+v", rows)
	}
}

// money2 formats a decimal as the pages do: thousands separators, two places.
func money2(d decimal.Decimal) string {
	s := d.StringFixed(2)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String() + "." + frac
}

func TestPayrollOverTheTreasuryBalanceIsRefusedWithTheShortfall(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	bal := treasuryUSD(t, env)
	over := bal.Add(decimal.RequireFromString("1234.56"))
	half := over.Div(decimal.NewFromInt(2)).Round(2)
	id := webtest.CreatePayroll(t, env, c, "employee,amount,currency\n"+
		env.DemoEmployee("Emily").Email+","+half.String()+",USD\n"+
		env.DemoEmployee("Oliver").Email+","+over.Sub(half).String()+",USD\n")

	doc := webtest.PayrollPage(t, env, c, id)
	short := "Short by 1,234.56 USD (USDB)"
	if got := webtest.TestID(doc, "payroll-shortfall"); !strings.Contains(got, short) {
		t.Fatalf("shortfall %q, want %q", got, short)
	}
	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(t, doc, "payroll-send-form")}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "payroll-send-error"), short) {
		t.Fatalf("send over balance: %d %q", resp.StatusCode, webtest.TestID(doc, "payroll-send-error"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 0 {
		t.Fatalf("%d proposals sent", n)
	}
	if run, _ := env.Store.PayrollRunByID(context.Background(), id); run.State != store.PayrollPreview {
		t.Fatalf("run %s", run.State)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "payroll.send"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeRefused || !strings.Contains(rows[0].Detail, short) {
		t.Fatalf("audit %+v", rows)
	}
}

func TestPayrollSendCreatesOneProposalPerRowOnceAndShowsTheirState(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	c, owner := env.SignedIn(store.RoleOwner)
	id := webtest.CreatePayroll(t, env, c, goodPayrollCSV(env)+"nobody@example.com,1,USD,bad\n")
	doc := webtest.PayrollPage(t, env, c, id)
	tok := webtest.FormTokenOf(t, doc, "payroll-send-form")
	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)

	// A double click: the same form twice, then a second tab's form.
	for range 2 {
		resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {tok}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("send: %d", resp.StatusCode)
		}
	}
	other := webtest.FormTokenOf(t, doc, "payroll-send-form") // the page from before the send
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {other}})
	resp.Body.Close()
	run := waitRun(t, env, id)
	if run.State != store.PayrollSent {
		t.Fatalf("run %s", run.State)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 5 {
		t.Fatalf("%d proposals created upstream, want 5 (one per good row)", n)
	}
	var jobs int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'payroll_send'`).Scan(&jobs); err != nil || jobs != 1 {
		t.Fatalf("%d send jobs (%v), want 1", jobs, err)
	}

	// The live part of the page, as htmx polls it: the rows alone.
	resp = env.Do(c, "GET", fmt.Sprintf("/payroll/%d/progress", id), nil, http.Header{"HX-Request": {"true"}})
	frag := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || frag.Find("#payroll-live").Length() != 1 || frag.Find("nav").Length() != 0 ||
		frag.Find(`[data-testid="payroll-row"]`).Length() != 6 || webtest.TestID(frag, "payroll-percent") != "100%" {
		t.Fatalf("progress fragment: %d %q", resp.StatusCode, frag.Text())
	}
	if _, polls := frag.Find("#payroll-live").Attr("hx-get"); !polls {
		t.Error("the rows wait for approvals: the page must keep polling")
	}
	doc = webtest.PayrollPage(t, env, c, id)
	for line := 2; line <= 6; line++ {
		row := payrollRow(doc, line)
		if st, _ := row.Attr("data-state"); st != "pending_approvals" || strings.TrimSpace(row.Find("td").Eq(5).Text()) != "0 of 2" {
			t.Errorf("line %d: %q approvals %q", line, st, row.Find("td").Eq(5).Text())
		}
	}
	if st, _ := payrollRow(doc, 7).Attr("data-state"); st != "invalid" {
		t.Errorf("bad row: %q", st)
	}
	counts := map[string]string{}
	doc.Find(`[data-testid="payroll-count"]`).Each(func(_ int, s *goquery.Selection) {
		st, _ := s.Attr("data-state")
		counts[st] = strings.TrimSpace(s.Find(`[data-testid="payroll-count-n"]`).Text()) + " | " +
			strings.TrimSpace(s.Find(`[data-testid="payroll-count-sum"]`).Text())
	})
	if got := counts["pending_approvals"]; got != "5 | 270,000.50 NGN (CNGN) + 3,000.75 USD (USDB)" {
		t.Errorf("pending count %q", got)
	}
	// The proposals are in the approvals mirror, created by the sender.
	rows, err := env.Store.PayrollRows(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[:5] {
		p, err := env.Store.ProposalByID(context.Background(), r.ProposalID)
		if err != nil || p.CreatedByStaffID != owner.ID || !strings.Contains(p.Description, fmt.Sprintf("payroll run %d, row %d", id, r.Line)) {
			t.Errorf("line %d: proposal %+v %v", r.Line, p, err)
		}
	}
	// The result CSV for accounting.
	resp = env.Get(c, fmt.Sprintf("/payroll/%d.csv", id))
	recs, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(recs) != 7 || recs[1][4] != "1200.50" || recs[1][8] != "pending_approvals" || recs[1][10] == "" || recs[6][8] != "invalid" {
		t.Fatalf("result csv %v %v", recs, err)
	}
	// The runs list and its export.
	list := webtest.Doc(t, env.Get(c, "/payroll"))
	if st, _ := list.Find(`[data-testid="payroll-run"]`).Attr("data-state"); st != "sent" ||
		webtest.TestID(list, "payroll-run-total") != "270,000.50 NGN (CNGN) + 3,000.75 USD (USDB)" {
		t.Errorf("list state %q total %q", st, webtest.TestID(list, "payroll-run-total"))
	}
	// The list refreshes itself: the part alone, with the same runs.
	if got := list.Find(`[data-testid="payroll-list"]`).AttrOr("hx-get", ""); got != "/payroll" {
		t.Errorf("the list refreshes from %q", got)
	}
	part := webtest.Doc(t, env.Do(c, http.MethodGet, "/payroll", nil, http.Header{"Hx-Request": {"true"}}))
	if part.Find("h1").Length() != 0 || part.Find(`[data-testid="payroll-list"] [data-testid="payroll-run"][data-state="sent"]`).Length() != 1 {
		t.Errorf("the refresh answers the whole page, or not the runs")
	}
	resp = env.Get(c, "/payroll.csv")
	recs, _ = csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if len(recs) != 2 || recs[1][3] != "sent" || recs[1][5] != "5" || recs[1][6] != "270000.50 CNGN; 3000.75 USDB" {
		t.Errorf("list csv %v", recs)
	}
}

func TestPayrollResumeAfterACrashCreatesNoDuplicate(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{}) // no workers: the test plays the job
	c, owner := env.SignedIn(store.RoleOwner)
	ctx := context.Background()
	id := webtest.CreatePayroll(t, env, c, goodPayrollCSV(env))
	doc := webtest.PayrollPage(t, env, c, id)
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(t, doc, "payroll-send-form")}})
	resp.Body.Close()
	by := store.Actor{StaffID: owner.ID, Email: owner.Email}

	// A process died mid-call on row 3: its action is begun, with no call.
	if _, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: store.PayrollActionKey(id, 3), Kind: "payroll.transfer",
		Actor: by, Request: map[string]any{"runId": id, "line": 3, "ownerUserId": env.Demo.TreasuryUserID,
			"walletId": webtest.TreasuryWallet(t, env, "USDB").ID, "toUserId": env.DemoEmployee("Lena").ServiceUserID, "amount": "1000.25", "currency": "USDB",
			"description": fmt.Sprintf("Payroll: payroll run %d, row 3", id)}}); err != nil {
		t.Fatal(err)
	}
	// Row 4's answer is lost: the API records it, the app never hears.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute, "drop": true,
		"after": true, "times": 1})

	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)
	if err := env.App.Payroll().SendRun(ctx, id, by); err != nil {
		t.Fatal(err)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 4 {
		t.Fatalf("%d creates, want 4 (row 3 was begun by the dead process)", n)
	}
	// The job runs again (a retry, or river rescuing it): nothing is sent.
	if err := env.App.Payroll().SendRun(ctx, id, by); err != nil {
		t.Fatal(err)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 4 {
		t.Fatalf("%d creates after the resume, want still 4", n)
	}
	// The recovery job settles the open actions from the API.
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := env.App.Payroll().SendRun(ctx, id, by); err != nil {
		t.Fatal(err)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 4 {
		t.Fatalf("%d creates after recovery, want still 4", n)
	}
	// Upstream holds exactly one proposal per row that was sent.
	ps, err := env.API.ListProposals(ctx, env.Demo.TreasuryUserID, webtest.TreasuryWallet(t, env, "USDB").ID)
	if err != nil {
		t.Fatal(err)
	}
	ngn, err := env.API.ListProposals(ctx, env.Demo.TreasuryUserID, webtest.TreasuryWallet(t, env, "CNGN").ID)
	if err != nil {
		t.Fatal(err)
	}
	perRow := map[string]int{}
	for _, p := range append(ps, ngn...) {
		if strings.Contains(p.Description, fmt.Sprintf("payroll run %d,", id)) {
			perRow[p.Description]++
		}
	}
	if len(perRow) != 4 {
		t.Fatalf("upstream proposals of the run: %v", perRow)
	}
	for d, n := range perRow {
		if n != 1 {
			t.Errorf("%q created %d times", d, n)
		}
	}
	doc = webtest.PayrollPage(t, env, c, id)
	for _, line := range []int{2, 4, 5, 6} {
		if st, _ := payrollRow(doc, line).Attr("data-state"); st != "pending_approvals" {
			t.Errorf("line %d: %q", line, st)
		}
	}
	row3 := payrollRow(doc, 3)
	if st, _ := row3.Attr("data-state"); st != "refused" || !strings.Contains(row3.Text(), "not recorded") {
		t.Errorf("line 3 (begun, never sent): %q %q", st, row3.Text())
	}
	if run, _ := env.Store.PayrollRunByID(ctx, id); run.State != store.PayrollSent {
		t.Errorf("run %s", run.State)
	}
	// The refused row can be paid in a new run, checked again; a double
	// click makes one.
	tok := webtest.FormTokenOf(t, doc, "payroll-again-form")
	var again []string
	for range 2 {
		resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/again", id), url.Values{"form_token": {tok}})
		resp.Body.Close()
		again = append(again, resp.Header.Get("Location"))
	}
	runs, _ := env.Store.ListPayrollRuns(ctx, 10)
	if len(runs) != 2 || again[0] != fmt.Sprintf("/payroll/%d", runs[0].ID) || runs[0].Rows != 1 || runs[0].ValidRows != 1 {
		t.Fatalf("again: %v, runs %+v", again, runs)
	}
	if st, _ := payrollRow(webtest.PayrollPage(t, env, c, runs[0].ID), 3).Attr("data-state"); st != "ready" {
		t.Fatalf("the new run's row: %q", st)
	}
	// The row whose answer was lost was found by reading it back, not sent
	// again.
	audit, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "payroll.transfer"})
	readBack := 0
	for _, a := range audit {
		if strings.Contains(a.Detail, "confirmed by reading it back") {
			readBack++
		}
	}
	if readBack != 1 {
		t.Errorf("%d rows confirmed by reading back, want 1: %+v", readBack, audit)
	}
}

// TestPayrollApprovalSharesTheQueuesKey: an approval the queue has on its
// way (begun by a process that has not heard back yet, so the mirror does
// not show it) is the same action as the run's approval of that row, which
// therefore sends nothing for it.
func TestPayrollApprovalSharesTheQueuesKey(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	admins := webtest.TreasuryAdmins(t, env)
	owner, _ := env.SignedIn(store.RoleOwner)
	id, proposals := sentRun(t, env, owner)
	a1, s1 := webtest.Approver(t, env, admins[0])
	if _, _, err := env.Store.BeginAction(context.Background(), store.NewAction{Key: "approve:" + proposals[0] + ":1:" + admins[0],
		Kind: "proposal.approve", Actor: store.Actor{StaffID: s1.ID, Email: s1.Email},
		Request: map[string]any{"proposalId": proposals[0], "ownerUserId": env.Demo.TreasuryUserID, "round": 1, "identity": admins[0]}}); err != nil {
		t.Fatal(err)
	}
	before := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)
	got := outcomes(webtest.ApprovePayrollRun(t, env, a1, id), "payroll-approve-result")
	if !strings.Contains(got[2], "already sent") || got[3] != "Line 3: approved." {
		t.Fatalf("run approval: %v", got)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; n != 1 {
		t.Fatalf("%d upstream approvals, want 1 (row 2's is the queue's)", n)
	}
}

// sentRun makes and sends a run of the two USDB rows as the owner, and
// returns its id and the proposals.
func sentRun(t *testing.T, env *webtest.Env, c *http.Client) (int64, []string) {
	t.Helper()
	id := webtest.CreatePayroll(t, env, c, "employee,amount,currency,description\n"+
		env.DemoEmployee("Emily").Email+",100,USD,a\n"+env.DemoEmployee("Marcus").Email+",200,USD,b\n")

	doc := webtest.PayrollPage(t, env, c, id)
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(t, doc, "payroll-send-form")}})
	resp.Body.Close()
	if run := waitRun(t, env, id); run.State != store.PayrollSent {
		t.Fatalf("run %s", run.State)
	}
	rows, err := env.Store.PayrollRows(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ProposalID)
	}
	return id, ids
}

func outcomes(doc *goquery.Document, testid string) map[int]string {
	out := map[int]string{}
	doc.Find(`[data-testid="` + testid + `"] [data-testid="payroll-outcome"]`).Each(func(_ int, s *goquery.Selection) {
		line, _ := s.Attr("data-line")
		n, _ := strconv.Atoi(line)
		out[n] = strings.Join(strings.Fields(s.Text()), " ")
	})
	return out
}

func TestPayrollApproveRunByTwoApproversThenSignFormListsTheRun(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	admins := webtest.TreasuryAdmins(t, env)
	owner, _ := env.SignedIn(store.RoleOwner)
	id, proposals := sentRun(t, env, owner)
	a1, _ := webtest.Approver(t, env, admins[0])
	a2, _ := webtest.Approver(t, env, admins[1])
	before := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)

	// The sender may not approve what they sent, even linked to an admin.
	resp := env.PostForm(owner, "/approvals/link", webtest.WithFormToken(url.Values{"service_user_id": {admins[2]}}))
	resp.Body.Close()
	got := outcomes(webtest.ApprovePayrollRun(t, env, owner, id), "payroll-approve-result")
	if !strings.Contains(got[2], "you sent this proposal") || !strings.Contains(got[3], "you sent this proposal") {
		t.Fatalf("sender's approval: %v", got)
	}

	// The first approver approves row 2 in the queue, then the whole run:
	// row 2 is not approved twice (the same key), row 3 is approved.
	queueApprove := func(c *http.Client, proposal string) {
		t.Helper()
		doc := webtest.Doc(t, env.Get(c, "/approvals/"+proposal))
		tok, _ := doc.Find(`form[action$="/approve"] input[name="form_token"]`).Attr("value")
		resp := env.PostForm(c, "/approvals/"+proposal+"/approve", url.Values{"form_token": {tok}, "confirm": {"1"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("queue approve: %d", resp.StatusCode)
		}
	}
	signForm := func(c *http.Client) []string {
		t.Helper()
		var listed []string
		webtest.PayrollPage(t, env, c, id).Find(`[data-testid="payroll-sign-form"] input[name="proposal_id"]`).Each(func(_ int, s *goquery.Selection) {
			v, _ := s.Attr("value")
			listed = append(listed, v)
		})
		slices.Sort(listed)
		return listed
	}
	queueApprove(a1, proposals[0])
	got = outcomes(webtest.ApprovePayrollRun(t, env, a1, id), "payroll-approve-result")
	if !strings.Contains(got[2], "already approved") || got[3] != "Line 3: approved." {
		t.Fatalf("first approver: %v", got)
	}
	// Again: nothing left for this admin.
	got = outcomes(webtest.ApprovePayrollRun(t, env, a1, id), "payroll-approve-result")
	if !strings.Contains(got[2], "already approved") || !strings.Contains(got[3], "already approved") {
		t.Fatalf("first approver again: %v", got)
	}
	if listed := signForm(a2); len(listed) != 0 {
		t.Fatalf("nothing awaits signatures yet, the sign form lists %v", listed)
	}
	// The second approver completes row 2 in the queue: only its proposal
	// awaits the signature, and the sign form lists it alone.
	queueApprove(a2, proposals[0])
	if listed := signForm(a2); !slices.Equal(listed, proposals[:1]) {
		t.Fatalf("sign form lists %v, want %v", listed, proposals[:1])
	}
	// Then the whole run: row 3 (row 2 no longer waits for approvals).
	doc := webtest.ApprovePayrollRun(t, env, a2, id)
	got = outcomes(doc, "payroll-approve-result")
	if len(got) != 1 || got[3] != "Line 3: approved." {
		t.Fatalf("second approver: %v", got)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; n != 4 {
		t.Fatalf("%d upstream approvals, want 4 (two admins × two rows, each once)", n)
	}
	for _, p := range proposals {
		cur, err := env.API.GetProposal(context.Background(), env.Demo.TreasuryUserID, p)
		if err != nil || cur.Status != apiclient.ProposalPendingSignatures {
			t.Fatalf("proposal %s: %+v %v", p, cur, err)
		}
	}
	// Every row awaits the owner's signature: the batch signing form lists
	// exactly the run's proposals.
	doc = webtest.PayrollPage(t, env, a2, id)
	form := doc.Find(`[data-testid="payroll-sign-form"]`)
	if act, _ := form.Attr("action"); act != "/approvals/sign-batch" {
		t.Fatalf("sign form action %q", act)
	}
	var listed []string
	form.Find(`input[name="proposal_id"]`).Each(func(_ int, s *goquery.Selection) {
		v, _ := s.Attr("value")
		listed = append(listed, v)
	})
	slices.Sort(listed)
	want := slices.Clone(proposals)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("sign form lists %v, want %v", listed, want)
	}
	ret, _ := form.Find(`input[name="return_to"]`).Attr("value")
	tokv, _ := form.Find(`input[name="form_token"]`).Attr("value")
	if ret != fmt.Sprintf("/payroll/%d", id) || len(tokv) != 22 || !strings.Contains(form.Text(), "Sign all 2 from one QR code") {
		t.Fatalf("sign form: return_to %q token %q text %q", ret, tokv, form.Text())
	}
	// Every approval has its audit row, by the staff member who acted.
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "proposal.approve"})
	if len(rows) != 4 {
		t.Errorf("%d approval audit rows, want 4", len(rows))
	}
}

func TestPayrollCancelRejectsOpenProposalsOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	owner, _ := env.SignedIn(store.RoleOwner)
	id, proposals := sentRun(t, env, owner)
	fin, _ := env.SignedIn(store.RoleFinanceApprover)
	doc := webtest.PayrollPage(t, env, fin, id)
	tok := webtest.FormTokenOf(t, doc, "payroll-cancel-form")
	before := env.Sandbox.RequestCount("POST", webtest.RejectRoute)

	// No reason: the form comes back with what was typed, nothing sent.
	resp := env.PostForm(fin, fmt.Sprintf("/payroll/%d/cancel", id), url.Values{"form_token": {tok}, "reason": {"  "}, "confirm": {"1"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "f-reason-error") == "" {
		t.Fatalf("no reason: %d", resp.StatusCode)
	}
	webtest.FieldProblem(t, doc, "f-reason", "Say why")
	if doc.Find(`#f-confirm[checked]`).Length() != 1 {
		t.Fatal("the ticked confirmation was lost")
	}
	resp = env.PostForm(fin, fmt.Sprintf("/payroll/%d/cancel", id), url.Values{"form_token": {tok}, "reason": {"Wrong month"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || doc.Find("#f-reason").Text() != "Wrong month" {
		t.Fatalf("no confirmation: %d %q", resp.StatusCode, doc.Find("#f-reason").Text())
	}
	webtest.FieldProblem(t, doc, "f-confirm", "Tick the box")
	if n := env.Sandbox.RequestCount("POST", webtest.RejectRoute) - before; n != 0 {
		t.Fatalf("%d rejections sent for a refused form", n)
	}
	// Confirmed, twice (a double click).
	for i := range 2 {
		resp = env.PostForm(fin, fmt.Sprintf("/payroll/%d/cancel", id), url.Values{"form_token": {tok}, "reason": {"Wrong month"}, "confirm": {"1"}})
		doc = webtest.Doc(t, resp)
		if i == 0 {
			got := outcomes(doc, "payroll-cancel-result")
			if got[2] != "Line 2: proposal rejected." || got[3] != "Line 3: proposal rejected." {
				t.Fatalf("cancel: %d %v", resp.StatusCode, got)
			}
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.RejectRoute) - before; n != 2 {
		t.Fatalf("%d upstream rejections, want 2", n)
	}
	for _, p := range proposals {
		cur, err := env.API.GetProposal(context.Background(), env.Demo.TreasuryUserID, p)
		if err != nil || cur.Status != apiclient.ProposalRejected || cur.RejectionReason != "Wrong month" {
			t.Fatalf("proposal %s: %+v %v", p, cur, err)
		}
	}
	doc = webtest.PayrollPage(t, env, fin, id)
	if st, _ := payrollRow(doc, 2).Attr("data-state"); st != "rejected" || !strings.Contains(webtest.TestID(doc, "payroll-cancel-note"), "Wrong month") {
		t.Fatalf("after cancel: %q %q", st, webtest.TestID(doc, "payroll-cancel-note"))
	}
	if doc.Find(`[data-testid="payroll-cancel-form"]`).Length() != 0 {
		t.Error("a canceled run with nothing open still offers cancel")
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "payroll.cancel"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK {
		t.Errorf("cancel audit %+v", rows)
	}
}

func TestPayrollFromTheEmployeeListKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	doc := webtest.Doc(t, env.Get(c, "/payroll/new?q=carter"))
	cands := doc.Find(`[data-testid="payroll-candidate"]`)
	if cands.Length() != 1 || !strings.Contains(cands.Text(), "Emily") || !strings.Contains(cands.Text(), "USDB") {
		t.Fatalf("filter: %q", cands.Text())
	}
	emily, _ := cands.Find(`input[name="employee_id"]`).Attr("value")
	doc = webtest.Doc(t, env.Get(c, "/payroll/new?state=linked"))
	var marcus string
	doc.Find(`[data-testid="payroll-candidate"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), "Marcus") {
			marcus, _ = s.Find(`input`).Attr("value")
		}
	})
	// A bad amount: everything typed and chosen comes back.
	resp := env.PostForm(c, "/payroll/employees", url.Values{"name": {"Bonus"}, "amount": {"1,5"}, "currency": {"USD"},
		"description": {"Year-end bonus"}, "employee_id": {emily, marcus}, "state": {"linked"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), "point for decimals") {
		t.Fatalf("bad amount: %d %q", resp.StatusCode, webtest.TestID(doc, "f-amount-error"))
	}
	if v, _ := doc.Find("#f-amount").Attr("value"); v != "1,5" || doc.Find("#f-description").Text() != "Year-end bonus" ||
		doc.Find(`input[name="employee_id"][checked]`).Length() != 2 {
		t.Fatalf("typed values lost: %q %q %d", v, doc.Find("#f-description").Text(), doc.Find(`input[name="employee_id"][checked]`).Length())
	}
	webtest.FieldProblem(t, doc, "f-amount", "point for decimals")
	if doc.Find("#f-name").AttrOr("value", "") != "Bonus" || doc.Find(`#f-currency option[value="USD"][selected]`).Length() != 1 {
		t.Fatalf("name or currency lost: %q", doc.Find("#f-name").AttrOr("value", ""))
	}
	resp = env.PostForm(c, "/payroll/employees", url.Values{"name": {"Bonus"}, "amount": {"250"}, "currency": {"USD"},
		"description": {"Year-end bonus"}, "employee_id": {emily, marcus}})
	resp.Body.Close()
	id, err := strconv.ParseInt(strings.TrimPrefix(resp.Header.Get("Location"), "/payroll/"), 10, 64)
	if resp.StatusCode != http.StatusSeeOther || err != nil {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	doc = webtest.PayrollPage(t, env, c, id)
	if n := doc.Find(`[data-testid="payroll-row"][data-state="ready"]`).Length(); n != 2 ||
		strings.TrimSpace(doc.Find(`[data-testid="payroll-total-amount"]`).Text()) != "500.00 USD (USDB)" {
		t.Fatalf("rows %d, total %q", n, doc.Find(`[data-testid="payroll-total-amount"]`).Text())
	}
}

// TestPayrollRolesOnStateChangingRoutes posts every state-changing payroll
// route as the roles that may not (403, nothing changes) and as those that
// may (answered).
func TestPayrollRolesOnStateChangingRoutes(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	id := webtest.CreatePayroll(t, env, owner, goodPayrollCSV(env))
	paths := []string{"/payroll/csv", "/payroll/employees", fmt.Sprintf("/payroll/%d/send", id),
		fmt.Sprintf("/payroll/%d/approve", id), fmt.Sprintf("/payroll/%d/cancel", id), fmt.Sprintf("/payroll/%d/again", id)}
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		for _, p := range paths {
			resp := env.PostForm(c, p, url.Values{"form_token": {"AAAAAAAAAAAAAAAAAAAAAA"}, "reason": {"x"}, "confirm": {"1"}})
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s: %d, want 403", role, p, resp.StatusCode)
			}
		}
		for _, p := range []string{"/payroll", fmt.Sprintf("/payroll/%d", id), fmt.Sprintf("/payroll/%d.csv", id)} {
			resp := env.Get(c, p)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s GET %s: %d, want 403", role, p, resp.StatusCode)
			}
		}
	}
	if run, _ := env.Store.PayrollRunByID(context.Background(), id); run.State != store.PayrollPreview {
		t.Fatalf("a refused role changed the run: %s", run.State)
	}
	for _, role := range []store.Role{store.RoleOwner, store.RoleFinanceApprover} {
		c, _ := env.SignedIn(role)
		for _, p := range paths {
			resp := env.PostForm(c, p, url.Values{})
			resp.Body.Close()
			if resp.StatusCode == http.StatusForbidden || resp.StatusCode >= 500 {
				t.Errorf("%s %s: %d", role, p, resp.StatusCode)
			}
		}
	}
}

// TestPayrollJobStoppedMidRunResumesWithoutDuplicates stops the sending job
// part way (its context ends, as when the process shuts down) and runs it
// again: every row ends with exactly one proposal.
func TestPayrollJobStoppedMidRunResumesWithoutDuplicates(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, owner := env.SignedIn(store.RoleOwner)
	id := webtest.CreatePayroll(t, env, c, goodPayrollCSV(env))
	doc := webtest.PayrollPage(t, env, c, id)
	resp := env.PostForm(c, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(t, doc, "payroll-send-form")}})
	resp.Body.Close()
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ProposalsRoute, "latencyMs": 150})
	env.App.Payroll().Concurrency = 1
	by := store.Actor{StaffID: owner.ID, Email: owner.Email}
	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)
	// The job is stopped as soon as its first create reaches the API.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) == before && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if err := env.App.Payroll().SendRun(ctx, id, by); err == nil {
		t.Fatal("the stopped job says it finished")
	}
	first := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before
	if first == 0 || first >= 5 {
		t.Fatalf("%d rows sent before the stop, want some but not all", first)
	}
	if run, _ := env.Store.PayrollRunByID(context.Background(), id); run.State != store.PayrollSending {
		t.Fatalf("run %s after the stop", run.State)
	}
	if err := env.App.Payroll().SendRun(context.Background(), id, by); err != nil {
		t.Fatal(err)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 5 {
		t.Fatalf("%d creates in all, want 5", n)
	}
	rows, _ := env.Store.PayrollRows(context.Background(), id)
	seen := map[string]bool{}
	for _, r := range rows {
		if r.ProposalID == "" || seen[r.ProposalID] || r.ActionState != store.ActionDone {
			t.Errorf("line %d: proposal %q action %s", r.Line, r.ProposalID, r.ActionState)
		}
		seen[r.ProposalID] = true
	}
	if run, _ := env.Store.PayrollRunByID(context.Background(), id); run.State != store.PayrollSent {
		t.Fatalf("run %s", run.State)
	}
}

// A large run's page (and its poll) shows 100 rows at a time, in line
// order, with a link to the next ones and a filter per state; the counts
// cover every row.
func TestPayrollRunPageShowsRowsAPageAtATime(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	var sb strings.Builder
	sb.WriteString("employee,amount,currency,description\n")
	sb.WriteString(env.DemoEmployee("Emily").Email + ",10,USD,ok\n")
	for i := range 150 {
		fmt.Fprintf(&sb, "nobody%03d@nowhere.example,1,USD,x\n", i)
	}
	id := webtest.CreatePayroll(t, env, c, sb.String())
	lines := func(doc *goquery.Document) []int {
		var out []int
		doc.Find(`[data-testid="payroll-row"]`).Each(func(_ int, s *goquery.Selection) {
			n, _ := strconv.Atoi(s.AttrOr("data-line", ""))
			out = append(out, n)
		})
		return out
	}
	doc := webtest.PayrollPage(t, env, c, id)
	got := lines(doc)
	if len(got) != 100 || got[0] != 2 || got[99] != 101 {
		t.Fatalf("first page: %d rows, %v…", len(got), got[:min(3, len(got))])
	}
	counts := map[string]string{}
	doc.Find(`[data-testid="payroll-count"]`).Each(func(_ int, s *goquery.Selection) {
		counts[s.AttrOr("data-state", "")] = s.Find(`[data-testid="payroll-count-n"]`).Text()
	})
	if counts["invalid"] != "150" || counts["ready"] != "1" {
		t.Fatalf("counts %v", counts)
	}
	next := doc.Find(`[data-testid="payroll-next-rows"]`).AttrOr("href", "")
	if next != fmt.Sprintf("/payroll/%d?from=102", id) {
		t.Fatalf("next link %q", next)
	}
	if got := lines(webtest.PayrollPage(t, env, c, id)); len(got) != 100 {
		t.Fatal("the page changed between reads")
	}
	resp := env.Get(c, next)
	doc = webtest.Doc(t, resp)
	if got := lines(doc); len(got) != 51 || got[0] != 102 || got[50] != 152 || doc.Find(`[data-testid="payroll-next-rows"]`).Length() != 0 {
		t.Fatalf("second page: %d rows", len(got))
	}
	// One state: the filter link of its count.
	href := doc.Find(`[data-testid="payroll-count"][data-state="ready"] a`).AttrOr("href", "")
	doc = webtest.Doc(t, env.Get(c, href))
	if got := lines(doc); len(got) != 1 || got[0] != 2 {
		t.Fatalf("ready rows: %v (%s)", got, href)
	}
	// The poll keeps the window.
	if poll := doc.Find(`#payroll-live`).AttrOr("hx-get", ""); poll != "" && !strings.Contains(poll, "state=ready") {
		t.Fatalf("poll %q loses the filter", poll)
	}
}

// The employee filter of a new run refuses a search that is not text (or
// too long) and an unknown state next to their fields, keeps what was
// typed, and lists the employees without them.
func TestPayrollNewRefusesABadEmployeeFilterInWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	long := strings.Repeat("a", 101)
	resp := env.Get(c, "/payroll/new?q="+long+"&state=zzz")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad filter: %d, want 400", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	for _, id := range []string{"payroll-q", "payroll-state"} {
		if doc.Find("#"+id+"-error").Length() != 1 {
			t.Errorf("no message next to #%s", id)
		}
	}
	if v, _ := doc.Find("#payroll-q").Attr("value"); v != long {
		t.Errorf("the search typed was lost: %q", v)
	}
	all := webtest.Doc(t, env.Get(c, "/payroll/new"))
	if got, want := doc.Find(`[data-testid="payroll-employees-form"] input[type=checkbox]`).Length(),
		all.Find(`[data-testid="payroll-employees-form"] input[type=checkbox]`).Length(); got != want || want == 0 {
		t.Errorf("with the refused filter %d employees offered, without any filter %d", got, want)
	}
}
