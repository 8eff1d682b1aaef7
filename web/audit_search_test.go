package web_test

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

	"partneradmin/store"
	"partneradmin/views"
	"partneradmin/web/webtest"
)

// auditIDs reads the audit log with a query: its status and the ids of
// the rows shown, with each row by id.
func auditIDs(t *testing.T, env *webtest.Env, c *http.Client, query string) (int, []int64, map[int64]*goquery.Selection, *goquery.Document) {
	t.Helper()
	resp := env.Get(c, "/audit"+query)
	doc := webtest.Doc(t, resp)
	var ids []int64
	rows := map[int64]*goquery.Selection{}
	doc.Find(`[data-testid="audit-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, err := strconv.ParseInt(s.AttrOr("data-id", ""), 10, 64)
		if err != nil {
			t.Fatalf("row id %q", s.AttrOr("data-id", ""))
		}
		ids = append(ids, id)
		rows[id] = s
	})
	return resp.StatusCode, ids, rows, doc
}

// The audit log finds rows by any part of who, what, target and detail
// (and by nothing else), filters by actor, action, target and dates, pages,
// exports the filtered rows, links targets and actors to their pages and
// keeps long ids short; only the owner reads it.
func TestAuditLogSearchFiltersLinksAndExports(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, ownerStaff := env.SignedIn(store.RoleOwner)
	hr := env.CreateStaff(store.RoleHRAdmin)
	add := func(e store.AuditEntry) int64 {
		t.Helper()
		if err := env.Store.Audit(ctx, e); err != nil {
			t.Fatal(err)
		}
		rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Limit: 1})
		if err != nil || len(rows) != 1 {
			t.Fatalf("newest audit row: %v %v", rows, err)
		}
		return rows[0].ID
	}
	const cardID = "card_7f3a9c1e-1111-2222-3333-444455556666"
	byOwner := add(store.AuditEntry{Actor: ownerStaff.Actor(), Action: "employee.delete", Target: "employee:42", Outcome: store.OutcomeOK,
		Detail: "deleted (zebra-quartz)"})
	bySystem := add(store.AuditEntry{Action: "webhooks.event.replay", Target: "webhook_event:evt_0123456789abcdef0123", Outcome: store.OutcomeOK,
		Detail: "replayed"})
	byHR := add(store.AuditEntry{Actor: hr.Actor(), Action: "card.freeze", Target: "card:" + cardID, Outcome: store.OutcomeOK,
		Detail: "frozen, 100%_sure"})
	denied := add(store.AuditEntry{Actor: ownerStaff.Actor(), Action: "proposal.approve", Target: "proposal:prop-xyz", Outcome: store.OutcomeDenied,
		Detail: "as wallet admin w-1"})
	lookalike := add(store.AuditEntry{Actor: hr.Actor(), Action: "card.freeze", Target: "card:c2", Outcome: store.OutcomeOK,
		Detail: "frozen, 1000 sure"})
	ours := []int64{byOwner, bySystem, byHR, denied, lookalike}
	only := func(ids []int64) []int64 {
		var out []int64
		for _, id := range ids {
			if slices.Contains(ours, id) {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}

	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"zebra-quartz", []int64{byOwner}},          // detail
		{"EMPLOYEE.DEL", []int64{byOwner}},          // action, any case
		{"employee:42", []int64{byOwner}},           // target
		{"evt_0123456789abcdef", []int64{bySystem}}, // target, inside
		{"system", []int64{bySystem}},               // no actor: the system
		{hr.Email, []int64{byHR, lookalike}},        // actor
		{"100%_sure", []int64{byHR}},                // % and _ are themselves
		{"delete employee:42", nil},                 // no match across fields
		{"denied", nil},                             // the outcome is not searched
		{"nothing-like-this-anywhere", nil},
	} {
		status, ids, _, _ := auditIDs(t, env, owner, "?q="+url.QueryEscape(tc.query))
		if got := only(ids); status != http.StatusOK || !slices.Equal(got, tc.want) {
			t.Errorf("q=%s: %d %v, want %v", tc.query, status, got, tc.want)
		}
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"actor=" + url.QueryEscape(strings.ToUpper(hr.Email)), []int64{byHR, lookalike}},
		{"actor=system&action=webhooks.event.replay", []int64{bySystem}},
		{"action=card.freeze&q=100", []int64{byHR, lookalike}},
		{"target=employee:42", []int64{byOwner}},
		{"from=" + time.Now().AddDate(0, 0, -1).Format(time.DateOnly) + "&to=" + time.Now().AddDate(0, 0, 1).Format(time.DateOnly) + "&action=card.freeze", []int64{byHR, lookalike}},
		{"from=" + time.Now().AddDate(0, 0, 2).Format(time.DateOnly), nil},
	} {
		status, ids, _, _ := auditIDs(t, env, owner, "?"+tc.query)
		if got := only(ids); status != http.StatusOK || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %d %v, want %v", tc.query, status, got, tc.want)
		}
	}
	for _, q := range []string{"from=2026-13-01", "from=2026-11-02&to=2026-11-01", "before=x", "q=a%00b", "actor=" + strings.Repeat("x", 300)} {
		if status, ids, _, _ := auditIDs(t, env, owner, "?"+q); status != http.StatusBadRequest || len(ids) != 0 {
			t.Errorf("%s: %d, %d rows", q, status, len(ids))
		}
	}

	// Links: each target to its page, a staff actor to the staff page.
	_, _, rows, doc := auditIDs(t, env, owner, "")
	for id, want := range map[int64]string{byOwner: "/employees/42", byHR: "/cards/" + cardID, denied: "/approvals/prop-xyz", bySystem: "/events"} {
		if got := rows[id].Find(`[data-testid="audit-target-link"]`).AttrOr("href", ""); got != want {
			t.Errorf("row %d target links to %q, want %q", id, got, want)
		}
	}
	if got := rows[byOwner].Find(`[data-testid="audit-actor-link"]`).AttrOr("href", ""); got != "/staff" {
		t.Errorf("staff actor links to %q", got)
	}
	if n := rows[bySystem].Find(`[data-testid="audit-actor-link"]`).Length(); n != 0 || strings.TrimSpace(rows[bySystem].Find(`[data-testid="audit-actor"]`).Text()) != "system" {
		t.Errorf("system actor: %d links, %q", n, rows[bySystem].Find(`[data-testid="audit-actor"]`).Text())
	}
	// A long id is shortened; the whole id is in its title, and the copy
	// button copies it. A short one is shown whole, with no button.
	short := rows[byHR].Find(`data[data-testid="audit-target-id"]`)
	if short.AttrOr("value", "") != cardID || short.AttrOr("title", "") != cardID || len([]rune(short.Text())) >= len(cardID) ||
		short.Text() != views.Shorten(cardID) {
		t.Errorf("shortened id %q value %q", short.Text(), short.AttrOr("value", ""))
	}
	if sel := rows[byHR].Find(`[data-testid="audit-copy"]`).AttrOr("data-copy", ""); sel != "#"+short.AttrOr("id", "?") {
		t.Errorf("copy button copies %q, id is %q", sel, short.AttrOr("id", ""))
	}
	if rows[byOwner].Find(`[data-testid="audit-copy"]`).Length() != 0 || strings.TrimSpace(rows[byOwner].Find(`[data-testid="audit-target-id"]`).Text()) != "42" {
		t.Error("a short id is shortened or has a copy button")
	}
	if doc.Find("script:not([src])").Length() != 0 || doc.Find("[style]").Length() != 0 {
		t.Error("inline script or style on the audit page")
	}
	// Actions are in words, the code in the cell's title; the action
	// filter's choices too.
	for id, want := range map[int64]string{byOwner: "employee deleted", byHR: "card frozen", bySystem: "webhook delivery processed again"} {
		cell := rows[id].Find(`[data-testid="audit-action"]`)
		if got := strings.TrimSpace(cell.Text()); got != want || !strings.Contains(cell.AttrOr("title", ""), ".") {
			t.Errorf("row %d action %q (title %q), want %q", id, got, cell.AttrOr("title", ""), want)
		}
	}
	if got := strings.TrimSpace(doc.Find(`#f-action option[value="card.freeze"]`).Text()); got != "card frozen" {
		t.Errorf("action filter offers card.freeze as %q", got)
	}

	// Pages: keyset by id, no row twice, none left out.
	for i := range 60 {
		add(store.AuditEntry{Action: "bulk.test", Target: fmt.Sprintf("thing:%d", i), Outcome: store.OutcomeOK})
	}
	_, first, _, doc := auditIDs(t, env, owner, "?action=bulk.test")
	older := doc.Find(`[data-testid="audit-older"]`).AttrOr("href", "")
	if len(first) != 50 || older == "" {
		t.Fatalf("first page: %d rows, older %q", len(first), older)
	}
	_, second, _, doc := auditIDs(t, env, owner, strings.TrimPrefix(older, "/audit"))
	if len(second) != 10 || doc.Find(`[data-testid="audit-older"]`).Length() != 0 || second[0] >= first[49] ||
		doc.Find(`[data-testid="audit-newest"]`).AttrOr("href", "") != "/audit?action=bulk.test" {
		t.Fatalf("second page: %d rows, first %v after %v", len(second), second[:1], first[49])
	}

	// The CSV: every row of the filter, and only those.
	resp := env.Get(owner, "/audit.csv?action=bulk.test")
	recs, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 61 || strings.Join(recs[0], ",") != "id,at,actor,action,target,outcome,detail" {
		t.Fatalf("csv: %d records, header %v", len(recs), recs[0])
	}
	resp = env.Get(owner, "/audit.csv?q=zebra-quartz")
	recs, _ = csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if len(recs) != 2 || recs[1][0] != strconv.FormatInt(byOwner, 10) || recs[1][2] != ownerStaff.Email || recs[1][4] != "employee:42" ||
		recs[1][6] != "deleted (zebra-quartz)" {
		t.Fatalf("csv of a search: %v", recs)
	}

	// Only roles with audit.read.
	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		for _, p := range []string{"/audit", "/audit.csv", "/audit?q=zebra"} {
			resp := env.Get(c, p)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: %d", role, p, resp.StatusCode)
			}
		}
	}
}

// An employee's page links to their cards, proposals, activity and audit
// rows, each only for a role that may open it.
func TestEmployeePageLinksToTheirCardsProposalsActivityAndAudit(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	emily, err := env.Store.EmployeeByServiceUserID(ctx, env.DemoEmployee("Emily").ServiceUserID)
	if err != nil {
		t.Fatal(err)
	}
	path := "/employees/" + strconv.FormatInt(emily.ID, 10)
	links := func(role store.Role) map[string]string {
		t.Helper()
		c, _ := env.SignedIn(role)
		resp := env.Get(c, path)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", role, resp.StatusCode)
		}
		m := map[string]string{}
		doc.Find(`[data-testid="employee-links"] a`).Each(func(_ int, s *goquery.Selection) {
			m[s.AttrOr("data-testid", "")] = s.AttrOr("href", "")
		})
		return m
	}
	sid := url.QueryEscape(emily.ServiceUserID)
	all := links(store.RoleOwner)
	want := map[string]string{
		"employee-cards-link":            "/cards?q=" + url.QueryEscape(emily.Email),
		"employee-open-proposals-link":   "/approvals?employee=" + sid,
		"employee-proposal-history-link": "/approvals/history?employee=" + sid,
		"employee-activity-link":         "/activity?employee=" + sid,
		"employee-audit-link":            "/audit?target=" + url.QueryEscape(fmt.Sprintf("employee:%d", emily.ID)),
	}
	for k, v := range want {
		if all[k] != v {
			t.Errorf("owner: %s = %q, want %q", k, all[k], v)
		}
	}
	// Each link opens for the owner and shows this employee's rows.
	owner, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, owner)
	for k, v := range all {
		if resp := env.Get(owner, v); resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s: %d", k, v, resp.StatusCode)
		}
	}
	doc := webtest.Doc(t, env.Get(owner, all["employee-proposal-history-link"]))
	if got := webtest.TestID(doc, "history-employee"); !strings.Contains(got, emily.FirstName) {
		t.Errorf("history names %q", got)
	}
	if got := webtest.TestID(doc, "history-table"); !strings.Contains(got, "October bonus") {
		t.Errorf("Emily's history lacks her completed bonus")
	}
	if got := links(store.RoleSupport); len(got) != 1 || got["employee-cards-link"] == "" {
		t.Errorf("support sees %v", got)
	}
	if got := links(store.RoleFinanceApprover); len(got) != 3 || got["employee-audit-link"] != "" || got["employee-cards-link"] != "" {
		t.Errorf("finance sees %v", got)
	}
	if got := links(store.RoleHRAdmin); len(got) != 0 {
		t.Errorf("HR sees %v", got)
	}
}
