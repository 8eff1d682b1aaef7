package approvaltest

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// historyRows reads the approval history with a query: its status and rows
// by description.
func historyRows(t *testing.T, env *webtest.Env, c *http.Client, query string) (int, map[string]*goquery.Selection) {
	t.Helper()
	resp := env.Get(c, "/approvals/history"+query)
	doc := webtest.Doc(t, resp)
	rows := map[string]*goquery.Selection{}
	doc.Find(`[data-testid="history-row"]`).Each(func(_ int, s *goquery.Selection) {
		// A row's link is its description (the queue's rows read the same).
		rows[strings.TrimSpace(s.Find(`[data-testid="history-link"]`).Text())] = s
	})
	return resp.StatusCode, rows
}

func descriptions(rows map[string]*goquery.Selection) []string {
	var out []string
	for d := range rows {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// Proposals that left the queue stay visible in its history: rejected and
// completed through the app (with who approved, who rejected, whose device
// signed and the link's deadline), and the demo's completed, rejected,
// failed and expired ones; filters, links, the CSV and the roles.
func TestApprovalHistoryShowsDecidedProposalsWithWhoDecided(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	first, firstStaff := webtest.Approver(t, env, admins[0])
	second, secondStaff := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, first)

	// Rejected through the app.
	travel := webtest.ProposalID(t, env, "Travel reimbursement")
	resp := env.PostForm(first, "/approvals/"+travel+"/reject", webtest.WithFormToken(url.Values{"reason": {"Paid twice"}, "confirm": {"1"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject: %d", resp.StatusCode)
	}
	// Approved by two staff, signed on the owner's device, settled.
	stipend := webtest.ProposalID(t, env, "November stipend")
	for _, c := range []*http.Client{first, second} {
		resp := postApprove(env, c, stipend)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve: %d", resp.StatusCode)
		}
	}
	l := webtest.IssueSignLink(t, env, first, stipend)
	code, req := webtest.DeviceGet(t, env, l.Path)
	if code != http.StatusOK {
		t.Fatalf("device get: %d", code)
	}
	if code, ans := webtest.DevicePost(t, env, l.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex()); code != http.StatusOK {
		t.Fatalf("device post: %d %v", code, ans)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	webtest.SyncQueue(t, env, first)
	webtest.WaitFor(t, "the stipend completed in the mirror", 20*time.Second, func() bool {
		p, err := env.Store.ProposalByID(ctx, stipend)
		return err == nil && p.Status == store.ProposalCompleted
	})

	// A viewer who took no part sees the history.
	owner, _ := env.SignedIn(store.RoleOwner)
	status, rows := historyRows(t, env, owner, "")
	if status != http.StatusOK || rows["Card issuance: Everyday"] == nil || rows["Team lunch"] != nil {
		t.Fatalf("history: %d %v", status, descriptions(rows))
	}
	// The demo's transfers that left the queue (the book allowance was
	// settled with the stipend), and the two decided here.
	_, rows = historyRows(t, env, owner, "?type=TRANSFER")
	want := []string{"Book allowance", "Duplicate request", "Mistyped amount", "November stipend", "October bonus", "Old request", "Travel reimbursement"}
	if got := descriptions(rows); !slices.Equal(got, want) {
		t.Fatalf("history rows %v, want %v", got, want)
	}
	states := map[string]string{}
	for d, r := range rows {
		states[d] = r.AttrOr("data-status", "")
	}
	if states["November stipend"] != "COMPLETED" || states["Travel reimbursement"] != "REJECTED" || states["Old request"] != "EXPIRED" ||
		states["Mistyped amount"] != "FAILED" {
		t.Fatalf("states %v", states)
	}
	s := rows["November stipend"]
	if got := s.Find(`[data-testid="history-approved-by"]`).Text(); !strings.Contains(got, firstStaff.Name) || !strings.Contains(got, secondStaff.Name) {
		t.Fatalf("stipend approved by %q", got)
	}
	sig := strings.Join(strings.Fields(s.Find(`[data-testid="history-signature"]`).Text()), " ")
	treasuryName := strings.Fields(s.Find("td").Eq(2).Text())[0]
	if !strings.Contains(sig, "1 of 1") || !strings.Contains(sig, "signed on "+treasuryName) || !strings.Contains(sig, "link sent by "+firstStaff.Name) {
		t.Fatalf("stipend signature %q", sig)
	}
	if dl, ok := s.Find(`[data-testid="history-deadline"] time`).Attr("datetime"); !ok || dl == "" {
		t.Fatal("stipend shows no signing deadline")
	}
	tr := rows["Travel reimbursement"]
	if got := tr.Find(`[data-testid="history-rejected-by"]`).Text(); !strings.Contains(got, firstStaff.Name) {
		t.Fatalf("rejected by %q", got)
	}
	if got := tr.Find(`[data-testid="history-reason"]`).Text(); got != "Paid twice" {
		t.Fatalf("reason %q", got)
	}
	// Every row opens its proposal's page.
	for d, r := range rows {
		href := r.Find(`[data-testid="history-link"]`).AttrOr("href", "")
		if href != "/approvals/"+r.AttrOr("data-id", "?") {
			t.Errorf("%s links to %q", d, href)
		}
	}
	if resp := env.Get(owner, rows["Old request"].Find(`[data-testid="history-link"]`).AttrOr("href", "")); resp.StatusCode != http.StatusOK {
		t.Fatalf("proposal page from the history: %d", resp.StatusCode)
	}

	// Filters.
	oliver := env.DemoEmployee("Oliver").ServiceUserID
	treasuryWallet, _ := env.Store.ProposalByID(ctx, stipend)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?status=REJECTED", []string{"Duplicate request", "Travel reimbursement"}},
		{"?status=COMPLETED&type=TRANSFER", []string{"Book allowance", "November stipend", "October bonus"}},
		{"?status=EXPIRED", []string{"Old request"}},
		{"?type=SWAP", nil},
		{"?who=oliv", []string{"Book allowance", "Mistyped amount", "Old request", "Travel reimbursement"}},
		{"?employee=" + oliver + "&status=FAILED", []string{"Mistyped amount"}},
		{"?wallet=" + url.QueryEscape(treasuryWallet.WalletID) + "&status=COMPLETED&type=TRANSFER", []string{"Book allowance", "November stipend", "October bonus"}},
		{"?wallet=no-such-wallet", nil},
		{"?from=" + time.Now().AddDate(0, 0, 2).Format(time.DateOnly), nil},
		{"?to=" + time.Now().AddDate(0, 0, 1).Format(time.DateOnly) + "&status=REJECTED", []string{"Duplicate request", "Travel reimbursement"}},
	} {
		status, rows := historyRows(t, env, owner, tc.query)
		if got := descriptions(rows); status != http.StatusOK || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %d %v, want %v", tc.query, status, got, tc.want)
		}
	}
	// Filters it does not take: refused in words, nothing listed.
	for _, q := range []string{"?status=PENDING_APPROVALS", "?type=BOGUS", "?from=2026-13-01", "?before=x", "?who=a%00b"} {
		if status, rows := historyRows(t, env, owner, q); status != http.StatusBadRequest || len(rows) != 0 {
			t.Errorf("%s: %d, %d rows", q, status, len(rows))
		}
	}

	// The queue and its history link to each other.
	doc := webtest.Doc(t, env.Get(owner, "/approvals"))
	if href := doc.Find(`[data-testid="tab-history"]`).AttrOr("href", ""); href != "/approvals/history" {
		t.Fatalf("queue's history tab %q", href)
	}
	doc = webtest.Doc(t, env.Get(owner, "/approvals/history"))
	if href := doc.Find(`[data-testid="tab-open"]`).AttrOr("href", ""); href != "/approvals" {
		t.Fatalf("history's queue tab %q", href)
	}
	if cur := doc.Find(`[data-testid="tab-history"]`).AttrOr("aria-current", ""); cur != "page" {
		t.Fatalf("history tab current %q", cur)
	}

	// The CSV: every row of the filter, with who decided.
	resp = env.Get(owner, "/approvals/history.csv?status=COMPLETED&type=TRANSFER")
	recs, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	header := "id,type,amount,currency,token,from,to,description,state,reason,approved_by,rejected_by,signatures,signed_by,sign_link_by,sign_deadline,created_at,changed_at"
	if len(recs) != 4 || strings.Join(recs[0], ",") != header {
		t.Fatalf("csv: %d records, header %v", len(recs), recs[0])
	}
	var line []string
	for _, r := range recs[1:] {
		if r[0] == stipend {
			line = r
		}
	}
	if line == nil || line[8] != "COMPLETED" || !strings.Contains(line[10], firstStaff.Name) || !strings.Contains(line[10], secondStaff.Name) ||
		line[12] != "1 of 1" || line[14] != firstStaff.Name || line[15] == "" {
		t.Fatalf("stipend csv line %v", line)
	}

	// Roles without approvals.read are refused.
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		for _, p := range []string{"/approvals/history", "/approvals/history.csv"} {
			resp := env.Get(c, p)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: %d", role, p, resp.StatusCode)
			}
		}
	}
}
