package approvaltest

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

func queueRows(t *testing.T, env *webtest.Env, c *http.Client, query string) *goquery.Selection {
	t.Helper()
	resp := env.Get(c, "/approvals"+query)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("queue%s: %d", query, resp.StatusCode)
	}
	return webtest.Doc(t, resp).Find(`[data-testid="proposal-row"]`)
}

// rowByDescription finds the queue row of a demo proposal.
func rowByDescription(rows *goquery.Selection, desc string) *goquery.Selection {
	return rows.FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), desc) })
}

func TestApprovalQueueShowsEveryOpenStateFromTheMirror(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[2])
	webtest.SyncQueue(t, env, c)

	rows := queueRows(t, env, c, "")
	// The demo seeds one proposal per state; the queue shows the open ones
	// and FAILED (which may be approved again), never COMPLETED, REJECTED
	// or EXPIRED.
	want := map[string][3]string{
		"November stipend":     {"PENDING_APPROVALS", "0 of 2", "1,200.00 USD (USDB)"},
		"Travel reimbursement": {"PENDING_APPROVALS", "1 of 2", "350.50 USD (USDB)"},
		"Team lunch":           {"PENDING_SIGNATURES", "2 of 2", "75.25 USD (USDB)"},
		"Book allowance":       {"SUBMITTED", "2 of 2", "20.00 USD (USDB)"},
		"Mistyped amount":      {"FAILED", "2 of 2", "999,999.00 USD (USDB)"},
	}
	for desc, w := range want {
		row := rowByDescription(rows, desc)
		if row.Length() != 1 {
			t.Errorf("%s: %d rows", desc, row.Length())
			continue
		}
		if got, _ := row.Find(`[data-testid="proposal-status"]`).Attr("data-status"); got != w[0] {
			t.Errorf("%s: state %q, want %s", desc, got, w[0])
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="proposal-approvals"]`).Text()); got != w[1] {
			t.Errorf("%s: approvals %q, want %s", desc, got, w[1])
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="proposal-amount"]`).Text()); got != w[2] {
			t.Errorf("%s: amount %q, want %s", desc, got, w[2])
		}
		if got := row.Find(`[data-testid="proposal-parties"]`).Text(); !strings.Contains(got, "Treasury") || strings.Contains(got, "user ") {
			t.Errorf("%s: parties %q, want names", desc, got)
		}
	}
	for _, gone := range []string{"October bonus", "Duplicate request", "Old request"} {
		if rowByDescription(rows, gone).Length() != 0 {
			t.Errorf("%s (closed) is in the queue", gone)
		}
	}

	// Filters.
	if n := queueRows(t, env, c, "?status=PENDING_SIGNATURES").Length(); n != 2 { // the lunch and the reserved card
		t.Errorf("waiting for signature: %d rows", n)
	}
	if rows := queueRows(t, env, c, "?status=FAILED"); rows.Length() != 1 || rowByDescription(rows, "Mistyped").Length() != 1 {
		t.Errorf("failed filter: %d rows", rows.Length())
	}
	mine := queueRows(t, env, c, "?mine=1")
	if rowByDescription(mine, "November stipend").Length() != 1 || rowByDescription(mine, "Travel reimbursement").Length() != 1 {
		t.Errorf("needs my approval: %d rows", mine.Length())
	}
	mine.Each(func(_ int, s *goquery.Selection) {
		if st, _ := s.Find(`[data-testid="proposal-status"]`).Attr("data-status"); st != "PENDING_APPROVALS" {
			t.Errorf("needs my approval shows a %s proposal", st)
		}
	})
	if n := queueRows(t, env, c, "?type=SWAP").Length(); n != 0 {
		t.Errorf("swap filter: %d rows", n)
	}
	emily := ""
	for _, e := range env.Demo.Employees {
		if e.FirstName == "Emily" {
			emily = e.ServiceUserID
		}
	}
	if rows := queueRows(t, env, c, "?employee="+emily); rows.Length() != 2 || rowByDescription(rows, "Team lunch").Length() != 1 {
		t.Errorf("employee filter: %d rows", rows.Length())
	}
	// The employee filter is a search on the owner's or the recipient's
	// name or email (a select of the whole workforce would not scale).
	if rows := queueRows(t, env, c, "?who=EMILY"); rows.Length() != 2 || rowByDescription(rows, "Team lunch").Length() != 1 {
		t.Errorf("who=EMILY: %d rows", rows.Length())
	}
	if rows := queueRows(t, env, c, "?who=nobody-has-this-name"); rows.Length() != 0 {
		t.Errorf("who=nobody: %d rows", rows.Length())
	}
	if rows := queueRows(t, env, c, "?who=%25"); rows.Length() != 0 {
		t.Errorf("who=%%: %d rows; the wildcard must be taken literally", rows.Length())
	}
	filtered := webtest.Doc(t, env.Get(c, "/approvals?who=emily&employee="+emily))
	if v, _ := filtered.Find("#f-who").Attr("value"); v != "emily" {
		t.Errorf("the search box lost the query: %q", v)
	}
	if got := webtest.TestID(filtered, "queue-employee"); !strings.HasPrefix(got, "Emily") {
		t.Errorf("employee filter named %q", got)
	}
	if n := filtered.Find(`#f-employee, select[name="employee"]`).Length(); n != 0 {
		t.Errorf("a select of every employee is still rendered")
	}
	// A refused person search is shown back as typed with its message
	// and not applied; the poll and the CSV do not carry it.
	long := strings.Repeat("e", 101)
	refused := webtest.Doc(t, env.Get(c, "/approvals?status=FAILED&who="+long))
	if v, _ := refused.Find("#f-who").Attr("value"); v != long {
		t.Errorf("the refused search was not kept: %q", v)
	}
	if refused.Find("#f-who-error").Length() != 1 || refused.Find(`.error-summary a[href="#f-who"]`).Length() != 1 {
		t.Errorf("the refused search has no message next to it or in the summary")
	}
	if n := refused.Find(`[data-testid="proposal-row"]`).Length(); n != 1 {
		t.Errorf("refused search: %d rows; the other filters still apply", n)
	}
	if poll, _ := refused.Find("#queue").Attr("hx-get"); strings.Contains(poll, "who=") {
		t.Errorf("the poll carries the refused search: %q", poll)
	}
	// A state or type the queue does not know is refused in words next
	// to its field, as the history does, and not applied; a CSV asked
	// for with it is refused.
	unknown := webtest.Doc(t, env.Get(c, "/approvals?status=COMPLETED&type=BOGUS"))
	for _, id := range []string{"f-status", "f-type"} {
		if unknown.Find("#"+id+"-error").Length() != 1 || unknown.Find(`.error-summary a[href="#`+id+`"]`).Length() != 1 {
			t.Errorf("unknown filter value: no message next to #%s or in the summary", id)
		}
	}
	if n, all := unknown.Find(`[data-testid="proposal-row"]`).Length(), queueRows(t, env, c, "").Length(); n != all {
		t.Errorf("unknown filter values: %d rows, want all %d (not applied)", n, all)
	}
	if resp := env.Get(c, "/approvals.csv?type=BOGUS"); resp.StatusCode != http.StatusBadRequest {
		resp.Body.Close()
		t.Errorf("CSV with an unknown type: %d, want 400", resp.StatusCode)
	} else {
		resp.Body.Close()
	}

	// The polled fragment keeps the filters and is only the table.
	req := http.Header{"HX-Request": {"true"}}
	resp := env.Do(c, http.MethodGet, "/approvals?status=FAILED", nil, req)
	doc := webtest.Doc(t, resp)
	if doc.Find("h1").Length() != 0 || doc.Find(`[data-testid="proposal-row"]`).Length() != 1 {
		t.Fatalf("fragment: %d h1, %d rows", doc.Find("h1").Length(), doc.Find(`[data-testid="proposal-row"]`).Length())
	}
	if poll, _ := doc.Find("#queue").Attr("hx-get"); poll != "/approvals?status=FAILED" {
		t.Errorf("poll url %q", poll)
	}

	// CSV export with the same filters.
	resp = env.Get(c, "/approvals.csv?status=FAILED")
	recs, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(recs) != 2 || recs[1][2] != "999999" || recs[1][3] != "USD" {
		t.Fatalf("csv: %v %v", recs, err)
	}

	// HR admins may not read the queue.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	if resp := env.Get(hr, "/approvals"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr admin: %d", resp.StatusCode)
	}
}

// postApprove approves with a fresh one-time token, as a page that offers
// the form would (the server must refuse by itself what the page does not
// offer).
func postApprove(env *webtest.Env, c *http.Client, id string) *http.Response {
	return env.PostForm(c, "/approvals/"+id+"/approve", webtest.WithFormToken(url.Values{"confirm": {"1"}}))
}

// detailStatus is the state a proposal's page shows, as the API spells it.
func detailStatus(doc *goquery.Document) string {
	st, _ := doc.Find(`[data-testid="detail-status"]`).Attr("data-status")
	return st
}

func TestApproveRecordsWhoActedAndReachesSigning(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	first, firstStaff := webtest.Approver(t, env, admins[0])
	second, secondStaff := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, first)
	id := webtest.ProposalID(t, env, "November stipend")

	// No confirmation: 422, nothing sent, and the form keeps its token.
	tok := webtest.ProposalFormToken(t, env, first, id, "approve-form")
	if tok == "" {
		t.Fatal("no approve form")
	}
	resp := env.PostForm(first, "/approvals/"+id+"/approve", url.Values{"form_token": {tok}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "approve-confirm-error") == "" {
		t.Fatalf("unconfirmed: %d", resp.StatusCode)
	}
	if kept, _ := doc.Find(`[data-testid="approve-form"] input[name="form_token"]`).Attr("value"); kept != tok {
		t.Fatalf("the form's token after a validation error: %q, want %q", kept, tok)
	}
	// No token: nothing sent either.
	resp = env.PostForm(first, "/approvals/"+id+"/approve", url.Values{"confirm": {"1"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no token: %d", resp.StatusCode)
	}

	resp = env.PostForm(first, "/approvals/"+id+"/approve", url.Values{"form_token": {tok}, "confirm": {"1"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", resp.StatusCode)
	}
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if len(p.Approvals) != 1 || p.Approvals[0] != admins[0] || p.Status != store.ProposalPendingApprovals {
		t.Fatalf("after first approval: %+v", p)
	}
	// A double click: refused locally, nothing more sent upstream.
	resp = postApprove(env, first, id)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("second click: %d", resp.StatusCode)
	}
	resp = postApprove(env, second, id)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("second approver: %d", resp.StatusCode)
	}
	up, err := env.API.GetProposal(context.Background(), p.OwnerUserID, id)
	if err != nil || up.Status != apiclient.ProposalPendingSignatures || len(up.Approvals) != 2 {
		t.Fatalf("upstream: %+v %v", up, err)
	}
	doc = webtest.Doc(t, env.Get(first, "/approvals/"+id))
	if got := detailStatus(doc); got != "PENDING_SIGNATURES" || webtest.TestID(doc, "detail-status") != "waiting for the owner's signature" {
		t.Fatalf("detail status %q %q", got, webtest.TestID(doc, "detail-status"))
	}
	if got := webtest.TestID(doc, "detail-approvals"); !strings.Contains(got, "2 of 2") || !strings.Contains(got, firstStaff.Email) || !strings.Contains(got, secondStaff.Email) {
		t.Fatalf("approvals %q", got)
	}
	var kinds []string
	doc.Find(`[data-testid="timeline-entry"]`).Each(func(_ int, s *goquery.Selection) {
		k, _ := s.Attr("data-kind")
		kinds = append(kinds, k)
	})
	if strings.Join(kinds, ",") != "created,approved,approved,status" {
		t.Fatalf("timeline %v", kinds)
	}
	if doc.Find(`[data-testid="create-sign-request"]`).Length() != 1 {
		t.Fatal("no sign request button at PENDING_SIGNATURES")
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "proposal.approve"})
	outcomes := map[string]int{}
	for _, r := range rows {
		outcomes[r.Outcome]++
	}
	if outcomes[store.OutcomeOK] != 2 || outcomes[store.OutcomeRefused] != 1 {
		t.Fatalf("audit outcomes %v", outcomes)
	}

	// Refused roles: support gets 403 and an audit row.
	sup, _ := env.SignedIn(store.RoleSupport)
	if resp := postApprove(env, sup, id); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support: %d", resp.StatusCode)
	}
}

func TestConcurrentApprovalsByTwoStaffMakeOneCallEach(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	a, _ := webtest.Approver(t, env, admins[0])
	b, _ := webtest.Approver(t, env, admins[1])
	// A colleague linked to the same admin as a: their clicks collapse.
	a2, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, a)
	id := webtest.ProposalID(t, env, "November stipend")
	calls := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)

	clients := []*http.Client{a, a, a2, b, b, a2}
	got := webtest.AtOnce(len(clients), func(i int) int {
		resp := postApprove(env, clients[i], id)
		resp.Body.Close()
		return resp.StatusCode
	})
	for code := range got {
		// Sent, already sent (a redirect saying so), or refused here
		// because the mirror already shows the approval.
		if code != http.StatusSeeOther && code != http.StatusConflict {
			t.Errorf("answer %d", code)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - calls; n != 2 {
		t.Fatalf("%d approve calls upstream, want 2 (one per wallet admin)", n)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "proposal.approve"})
	n := 0
	for _, r := range rows {
		if r.Outcome == store.OutcomeOK {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d approvals audited ok", n)
	}
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if up, _ := env.API.GetProposal(context.Background(), p.OwnerUserID, id); len(up.Approvals) != 2 || p.Status != store.ProposalPendingSignatures {
		t.Fatalf("upstream approvals %v, mirror %s", up.Approvals, p.Status)
	}
}

func TestCreatorCannotApproveAndUnlinkedIsTold(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, s := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "November stipend")
	// Mark the proposal as created by this staff member in the app.
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if err := env.Store.RecordCreatedProposal(context.Background(), p, s.Actor(), "test"); err != nil {
		t.Fatal(err)
	}
	resp := postApprove(env, c, id)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(webtest.TestID(doc, "action-error"), "someone else") {
		t.Fatalf("creator approves: %d %q", resp.StatusCode, webtest.TestID(doc, "action-error"))
	}
	up, _ := env.API.GetProposal(context.Background(), p.OwnerUserID, id)
	if len(up.Approvals) != 0 {
		t.Fatalf("upstream got an approval: %v", up.Approvals)
	}

	unlinked, _ := env.SignedIn(store.RoleFinanceApprover)
	resp = postApprove(env, unlinked, id)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "action-error"), "Link your account") {
		t.Fatalf("unlinked approves: %d", resp.StatusCode)
	}
	// Linking to someone who is not a wallet admin is refused at the field.
	resp = env.PostForm(unlinked, "/approvals/link", webtest.WithFormToken(url.Values{"service_user_id": {"not-an-admin"}}))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "link-admin-error") == "" {
		t.Fatalf("bad link: %d", resp.StatusCode)
	}
}

func TestRejectNeedsAReasonAndApproveAgainRestartsAFailedProposal(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Travel reimbursement")

	resp := env.PostForm(c, "/approvals/"+id+"/reject", webtest.WithFormToken(url.Values{"reason": {strings.Repeat("x", 501)}, "confirm": {"1"}}))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "reject-reason-error"), "500") {
		t.Fatalf("long reason: %d", resp.StatusCode)
	}
	if got := doc.Find("#reject-reason").Text(); len(got) != 501 {
		t.Fatalf("typed reason lost: %d chars", len(got))
	}
	resp = env.PostForm(c, "/approvals/"+id+"/reject", webtest.WithFormToken(url.Values{"reason": {" "}}))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "reject-reason-error") == "" || webtest.TestID(doc, "reject-confirm-error") == "" {
		t.Fatalf("empty reason: %d", resp.StatusCode)
	}
	// Text that is not text is refused before anything is sent: a line
	// separator next to the field; bytes that are not UTF-8 or a control
	// character before the form is read at all.
	resp = env.PostForm(c, "/approvals/"+id+"/reject", webtest.WithFormToken(url.Values{"reason": {"Paid\u2028twice"}, "confirm": {"1"}}))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "reject-reason-error"), "control character") {
		t.Fatalf("line separator: %d %q", resp.StatusCode, webtest.TestID(doc, "reject-reason-error"))
	}
	for _, bad := range []string{"Paid\x00twice", "Paid \xff twice", "Paid\x1btwice"} {
		resp = env.PostForm(c, "/approvals/"+id+"/reject", webtest.WithFormToken(url.Values{"reason": {bad}, "confirm": {"1"}}))
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("reason %q: %d", bad, resp.StatusCode)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.RejectRoute); n != 0 {
		t.Fatalf("bad input sent %d rejections", n)
	}
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if up, _ := env.API.GetProposal(context.Background(), p.OwnerUserID, id); up.Status != apiclient.ProposalPendingApprovals {
		t.Fatalf("bad input changed upstream: %s", up.Status)
	}
	tok := webtest.ProposalFormToken(t, env, c, id, "reject-form")
	resp = env.PostForm(c, "/approvals/"+id+"/reject", url.Values{"form_token": {tok}, "reason": {"Paid twice\r\nonce in October"}, "confirm": {"1"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject: %d", resp.StatusCode)
	}
	if up, _ := env.API.GetProposal(context.Background(), p.OwnerUserID, id); up.Status != apiclient.ProposalRejected || up.RejectionReason != "Paid twice\r\nonce in October" {
		t.Fatalf("upstream after reject: %+v", up)
	}
	if rows := queueRows(t, env, c, ""); rowByDescription(rows, "Travel reimbursement").Length() != 0 {
		t.Fatal("rejected proposal still queued")
	}
	sup, _ := env.SignedIn(store.RoleSupport)
	if resp := env.PostForm(sup, "/approvals/"+id+"/reject", webtest.WithFormToken(url.Values{"reason": {"x"}, "confirm": {"1"}})); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support rejects: %d", resp.StatusCode)
	}

	// FAILED → approve again: the workflow restarts with this approval.
	failed := webtest.ProposalID(t, env, "Mistyped amount")
	doc = webtest.Doc(t, env.Get(c, "/approvals/"+failed))
	if doc.Find(`[data-testid="approve-again"]`).Length() != 1 || webtest.TestID(doc, "detail-failure") == "" {
		t.Fatal("failed proposal offers no approve again")
	}
	resp = postApprove(env, c, failed)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve again: %d", resp.StatusCode)
	}
	fp, _ := env.Store.ProposalByID(context.Background(), failed)
	if fp.Status != store.ProposalPendingApprovals || len(fp.Approvals) != 1 || fp.Round != 2 {
		t.Fatalf("after approve again: %+v", fp)
	}
}

// BenchmarkApprovalQueuePage measures the queue page read from the mirror
// with 2,000 open proposals, 32 clients at once. Budget: p99 ≤ 30 ms.
//
//	go test -run '^$' -bench ApprovalQueuePage -benchtime 3000x ./web/
func BenchmarkApprovalQueuePage(b *testing.B) {
	env := webtest.New(b, webtest.Options{})
	webtest.SeedQueue(b, env, 2000)
	signed, _ := env.SignedIn(store.RoleFinanceApprover)
	// BENCH_PATH measures another page under the same load, for comparison.
	path := "/approvals"
	if p := os.Getenv("BENCH_PATH"); p != "" {
		path = p
	}
	webtest.MeasureGets(b, env, signed, path, 32, false)
}

// proposalByDescription finds a demo proposal in the mirror, closed ones
// included (the sync reads them all, though the queue does not show them).
func proposalByDescription(t *testing.T, env *webtest.Env, desc string) string {
	t.Helper()
	var id string
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT id FROM proposals WHERE description = $1`, desc).Scan(&id); err != nil {
		t.Fatalf("no proposal %q in the mirror: %v", desc, err)
	}
	return id
}

// The proposal's page offers exactly what its state allows (spec, proposal
// states): approve and reject while waiting for approvals; a signing link
// and reject while waiting for signatures; approve again and reject when
// failed; nothing once submitted, completed, rejected or expired — and then
// no empty "Decide" card, but what the state means.
func TestProposalDetailOffersWhatEachStateAllows(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[2])
	webtest.SyncQueue(t, env, c)
	cases := []struct {
		desc, status string
		offered      []string
		says         string
	}{
		{"November stipend", "PENDING_APPROVALS", []string{"approve", "reject"}, "waits for its wallet's admins"},
		{"Team lunch", "PENDING_SIGNATURES", []string{"create-sign-request", "reject"}, "waits for the owner's signature"},
		{"Book allowance", "SUBMITTED", nil, "can no longer be rejected"},
		{"Mistyped amount", "FAILED", []string{"approve-again", "reject"}, "restarts its workflow"},
		{"October bonus", "COMPLETED", nil, "nothing is left to decide"},
		{"Duplicate request", "REJECTED", nil, "nothing is left to decide"},
		{"Old request", "EXPIRED", nil, "nothing is left to decide"},
	}
	controls := []string{"approve", "approve-again", "reject", "create-sign-request"}
	for _, tc := range cases {
		t.Run(tc.status, func(t *testing.T) {
			doc := webtest.Doc(t, env.Get(c, "/approvals/"+proposalByDescription(t, env, tc.desc)))
			if got := detailStatus(doc); got != tc.status {
				t.Fatalf("status %q, want %s", got, tc.status)
			}
			actions := doc.Find(`[data-testid="actions"]`)
			for _, a := range controls {
				want := slices.Contains(tc.offered, a)
				if got := actions.Find(`[data-testid="`+a+`"]`).Length() == 1; got != want {
					t.Errorf("%s offered: %v, want %v", a, got, want)
				}
			}
			if n := actions.Find("form").Length(); n != len(tc.offered) {
				t.Errorf("%d forms, want %d", n, len(tc.offered))
			}
			if got := webtest.TestID(doc, "state-allows"); !strings.Contains(got, tc.says) {
				t.Errorf("the state says %q, want %q", got, tc.says)
			}
			heading := strings.TrimSpace(actions.Find("h2").Text())
			if (heading == "Decide") != (len(tc.offered) > 0) {
				t.Errorf("heading %q with %d controls", heading, len(tc.offered))
			}
			if doc.Find(`[data-testid="timeline-entry"]`).Length() == 0 {
				t.Error("empty timeline")
			}
		})
	}
	// A proposal in a closed state refuses actions and sends nothing.
	done := proposalByDescription(t, env, "October bonus")
	if resp := postApprove(env, c, done); resp.StatusCode != http.StatusConflict {
		t.Fatalf("approve completed: %d", resp.StatusCode)
	}
	if resp := env.PostForm(c, "/approvals/"+done+"/reject", webtest.WithFormToken(url.Values{"reason": {"late"}, "confirm": {"1"}})); resp.StatusCode != http.StatusConflict {
		t.Fatalf("reject completed: %d", resp.StatusCode)
	}
	resp := env.PostForm(c, "/approvals/"+done+"/sign-requests", webtest.WithFormToken(url.Values{}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals/"+done {
		t.Fatalf("sign request for completed: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if flash := webtest.TestID(webtest.Doc(t, env.Get(c, "/approvals/"+done)), "flash"); !strings.Contains(flash, "only a proposal waiting for the owner's signature") {
		t.Fatalf("flash %q", flash)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) + env.Sandbox.RequestCount("POST", webtest.RejectRoute); n != 0 {
		t.Fatalf("%d writes sent upstream", n)
	}
	if resp := env.Get(c, "/approvals/no-such-proposal"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown: %d", resp.StatusCode)
	}
}

// A page left open follows its proposal: the live part re-reads itself,
// answers 204 while nothing changed (what is typed stays), and once the
// owner signed offers neither reject nor a new signing link.
func TestProposalPageDropsControlsOnceTheStateMovesOn(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Team lunch")
	key := webtest.OwnerKey(t, env, "treasury")

	doc := webtest.Doc(t, env.Get(c, "/approvals/"+id))
	poll, _ := doc.Find(`[data-testid="proposal-live"]`).Attr("hx-get")
	if poll == "" || doc.Find(`[data-testid="proposal-live"] [data-testid="reject"]`).Length() != 1 {
		t.Fatalf("live part: poll %q", poll)
	}
	htmx := http.Header{"HX-Request": {"true"}}
	if resp := env.Do(c, http.MethodGet, poll, nil, htmx); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("unchanged proposal polled: %d, want 204", resp.StatusCode)
	}

	// The owner signs on the device: the proposal is submitted.
	l := webtest.IssueSignLink(t, env, c, id)
	_, req := webtest.DeviceGet(t, env, l.Path)
	if code, ans := webtest.DevicePost(t, env, l.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex()); code != http.StatusOK {
		t.Fatalf("device post: %d %v", code, ans)
	}
	resp := env.Do(c, http.MethodGet, poll, nil, htmx)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("poll after signing: %d", resp.StatusCode)
	}
	frag := webtest.Doc(t, resp)
	if frag.Find("h1").Length() != 0 || detailStatus(frag) != "SUBMITTED" {
		t.Fatalf("fragment: %d h1, status %q", frag.Find("h1").Length(), detailStatus(frag))
	}
	for _, gone := range []string{"reject", "create-sign-request", "approve"} {
		if frag.Find(`[data-testid="`+gone+`"]`).Length() != 0 {
			t.Errorf("a submitted proposal still offers %s", gone)
		}
	}
	if got := webtest.TestID(frag, "state-allows"); !strings.Contains(got, "can no longer be rejected") {
		t.Errorf("the state says %q", got)
	}
	if next, _ := frag.Find(`[data-testid="proposal-live"]`).Attr("hx-get"); next == poll || next == "" {
		t.Errorf("the next poll %q carries the old version", next)
	}
}

// The API does not answer an approval and never recorded it: the outcome
// is unknown, no second POST is made, and the recovery job settles it as not
// done, after which the approval can be sent again, once.
func TestApproveWhenTheAPIDoesNotAnswerReadsBackAndKeepsNothingHalfDone(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "November stipend")
	p, _ := env.Store.ProposalByID(ctx, id)

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.ApproveRoute, "drop": true, "times": 1})
	resp := postApprove(env, c, id)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusAccepted || !strings.Contains(webtest.TestID(doc, "action-error"), "not known whether") {
		t.Fatalf("dropped approve: %d %q", resp.StatusCode, webtest.TestID(doc, "action-error"))
	}
	if up, _ := env.API.GetProposal(ctx, p.OwnerUserID, id); len(up.Approvals) != 0 {
		t.Fatalf("upstream approvals %v", up.Approvals)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "proposal.approve"}); len(rows) != 1 || rows[0].Outcome != store.OutcomeUnknown {
		t.Fatalf("audit %+v", rows)
	}
	// Clicking again while the outcome is unknown sends nothing.
	resp = postApprove(env, c, id)
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute); resp.StatusCode != http.StatusSeeOther || n != 1 {
		t.Fatalf("approve while unknown: %d, %d calls", resp.StatusCode, n)
	}
	if flash := webtest.TestID(webtest.Doc(t, env.Get(c, "/approvals/"+id)), "flash"); !strings.Contains(flash, "already sent") {
		t.Fatalf("flash %q", flash)
	}
	// The recovery job reads it back: not recorded, so not done.
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	a, err := env.Store.ActionByKey(ctx, "approve:"+id+":"+strconv.Itoa(p.Round)+":"+admins[0])
	if err != nil || a.State != store.ActionRefused {
		t.Fatalf("after recovery: %+v %v", a, err)
	}
	// Now it can be sent again: one more call, done.
	resp = postApprove(env, c, id)
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute); resp.StatusCode != http.StatusSeeOther || n != 2 {
		t.Fatalf("approve after the fault: %d, %d calls", resp.StatusCode, n)
	}
	if up, _ := env.API.GetProposal(ctx, p.OwnerUserID, id); len(up.Approvals) != 1 {
		t.Fatalf("upstream approvals %v", up.Approvals)
	}

	// The API fails the reject with a 503: unknown, the typed reason kept.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.RejectRoute, "status": 503, "times": 1})
	resp = env.PostForm(c, "/approvals/"+id+"/reject", webtest.WithFormToken(url.Values{"reason": {"Wrong month"}, "confirm": {"1"}}))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusAccepted || doc.Find("#reject-reason").Text() != "Wrong month" {
		t.Fatalf("reject during outage: %d %q", resp.StatusCode, doc.Find("#reject-reason").Text())
	}
}

// A queue longer than a page pages by keyset, newest first, every page
// saying how many match in all; a short result counts its own rows.
func TestApprovalQueuePagesAndCountsEveryMatch(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	webtest.SeedQueue(t, env, 120)
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	all, err := env.Store.ListQueue(context.Background(), store.QueueFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(len(all)) + " proposals"
	seen := map[string]bool{}
	path := "/approvals"
	for pages := 0; path != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		doc := webtest.Doc(t, env.Get(c, path))
		if got := webtest.TestID(doc, "queue-count"); !strings.Contains(got, want) {
			t.Errorf("%s: count %q, want %q", path, got, want)
		}
		doc.Find(`[data-testid="proposal-row"]`).Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("data-id")
			if seen[id] {
				t.Errorf("%s shows %s again", path, id)
			}
			seen[id] = true
		})
		path, _ = doc.Find(`[data-testid="queue-older"]`).Attr("href")
	}
	if len(seen) != len(all) {
		t.Errorf("the pages showed %d proposals, %d are open", len(seen), len(all))
	}
	// A filter that fits one page counts exactly what it shows.
	doc := webtest.Doc(t, env.Get(c, "/approvals?who=nobody-has-this-name"))
	if got := webtest.TestID(doc, "queue-count"); !strings.Contains(got, " 0 proposals") {
		t.Errorf("empty filter: count %q", got)
	}
}
