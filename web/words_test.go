package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Machine words a person must not read on a page: an API enum
// (PENDING_APPROVALS), an ISO instant, a templ expression printed as text,
// and a UUID outside a link or a code element.
var (
	rawEnum      = regexp.MustCompile(`\b[A-Z]{3,}_[A-Z_]+\b`)
	isoInstant   = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}`)
	templExpr    = regexp.MustCompile(`@[A-Za-z]+\(`)
	uuidPattern  = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	pageExamples = map[string]string{
		// The ids each page with a parameter is shown for: a few of each
		// kind in the demo company.
		"/employees/{id}": `SELECT id::text FROM (SELECT DISTINCT ON (kind, service_user_id IS NULL) id, kind, service_user_id IS NULL AS invited
			FROM employees WHERE deleted_at IS NULL ORDER BY kind, service_user_id IS NULL, id) e`,
		"/employees/{id}/delete":           `SELECT id::text FROM (SELECT DISTINCT ON (service_user_id IS NULL) id FROM employees WHERE deleted_at IS NULL AND kind = 'employee' ORDER BY service_user_id IS NULL, id) e`,
		"/approvals/{id}":                  `SELECT id FROM (SELECT DISTINCT ON (type) id, type FROM proposals ORDER BY type, id) p`,
		"/events/{id}":                     `SELECT id::text FROM (SELECT DISTINCT ON (event_type) id, event_type FROM webhook_events ORDER BY event_type, id) e`,
		"/cards/{id}":                      `SELECT id FROM cards ORDER BY id LIMIT 3`,
		"/cards/{id}/status":               `SELECT id FROM cards ORDER BY id LIMIT 1`,
		"/cards/{id}/activity":             `SELECT id FROM cards ORDER BY id LIMIT 1`,
		"/cards/{id}/transactions":         `SELECT id FROM cards ORDER BY id LIMIT 1`,
		"/money-out/payouts/{id}":          `SELECT id::text FROM payouts ORDER BY id LIMIT 2`,
		"/money-out/sepa/{id}":             `SELECT id::text FROM sepa_mxn_orders WHERE rail = 'sepa' ORDER BY id LIMIT 2`,
		"/money-out/mexico/{id}":           `SELECT id::text FROM sepa_mxn_orders WHERE rail = 'mxn' ORDER BY id LIMIT 2`,
		"/treasury/withdrawal/{id}":        `SELECT id::text FROM crypto_withdrawals ORDER BY id LIMIT 2`,
		"/payroll/{id}":                    `SELECT id::text FROM payroll_runs ORDER BY id LIMIT 2`,
		"/employees/invite/bulk/{run}":     `SELECT id::text FROM bulk_invite_runs ORDER BY id LIMIT 2`,
		"/employees/onboarding-runs/{run}": `SELECT id::text FROM onboarding_runs ORDER BY id LIMIT 2`,
	}
)

// machineWords lists what a page shows that only a machine should read.
func machineWords(doc *goquery.Document) []string {
	body := doc.Find("body").Clone()
	body.Find("script, style, template, [hidden]").Remove()
	var found []string
	text := strings.Join(strings.Fields(body.Text()), " ")
	for _, re := range []*regexp.Regexp{isoInstant, templExpr} {
		found = append(found, re.FindAllString(text, 3)...)
	}
	// Configuration names (SMTP_URL) are machine words people type: shown
	// as code, they are not an enum left unsaid.
	body.Find("code").Remove()
	found = append(found, rawEnum.FindAllString(body.Text(), 3)...)
	body.Find("a").Remove()
	found = append(found, uuidPattern.FindAllString(body.Text(), 3)...)
	return found
}

func TestMachineWordsTest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		html string
		bad  bool
	}{
		{`<p>Waiting for approvals</p>`, false},
		{`<p>State: PENDING_APPROVALS</p>`, true},
		{`<p>At 2026-11-28T13:22:38Z</p>`, true},
		{`<p>signing key @ShortID("x", v)</p>`, true},
		{`<p>Wallet 8d6f2a52-1c3e-4d7b-9a10-5e2f3c4d5e6f</p>`, true},
		{`<p>Wallet <code>8d6f2a52-1c3e-4d7b-9a10-5e2f3c4d5e6f</code></p>`, false},
		{`<p><a href="/x">8d6f2a52-1c3e-4d7b-9a10-5e2f3c4d5e6f</a></p>`, false},
		{`<script>var a = "PENDING_APPROVALS"</script>`, false},
		{`<p>Set <code>SMTP_URL</code></p>`, false},
		{`<p><a href="/x">PENDING_APPROVALS</a></p>`, true},
	} {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<html><body>` + tc.html + `</body></html>`))
		if err != nil {
			t.Fatal(err)
		}
		if got := machineWords(doc); (len(got) > 0) != tc.bad {
			t.Errorf("%s: found %q", tc.html, got)
		}
	}
}

// TestPagesSpeakPeoplesWords renders every page of the route table with
// the demo company, as every role that may see it (a finance approver
// linked to a wallet admin among them), and fails on machine words in the
// visible text.
func TestPagesSpeakPeoplesWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	owner, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, owner)
	admins := webtest.TreasuryAdmins(t, env)
	approver, _ := webtest.Approver(t, env, admins[0])

	clients := map[string]*http.Client{"finance approver linked to a wallet admin": approver}
	roles := map[string]store.Role{"finance approver linked to a wallet admin": store.RoleFinanceApprover}
	for _, role := range store.Roles() {
		c, _ := env.SignedIn(role)
		clients[string(role)], roles[string(role)] = c, role
	}

	var notShown []string
	for _, rt := range env.App.Routes() {
		if rt.Method != http.MethodGet || rt.Permission == store.PermPublic || strings.Contains(rt.Pattern, ".csv") ||
			strings.HasPrefix(rt.Pattern, "/static/") || rt.Pattern == "/metrics" {
			continue
		}
		paths := []string{rt.Pattern}
		if strings.Contains(rt.Pattern, "{") {
			paths = nil
			if q, ok := pageExamples[rt.Pattern]; ok {
				rows, err := env.Store.Pool().Query(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", rt.Pattern, err)
				}
				for rows.Next() {
					var id string
					if err := rows.Scan(&id); err != nil {
						t.Fatal(err)
					}
					p := strings.Replace(rt.Pattern, "{id}", id, 1)
					paths = append(paths, strings.Replace(p, "{run}", id, 1))
				}
				if rows.Err() != nil {
					t.Fatal(rows.Err())
				}
			}
			if len(paths) == 0 {
				notShown = append(notShown, rt.Pattern)
			}
		}
		for name, c := range clients {
			if !roles[name].Can(rt.Permission) {
				continue
			}
			for _, p := range paths {
				resp := env.Get(c, p)
				if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/html") {
					resp.Body.Close()
					continue
				}
				if found := machineWords(webtest.Doc(t, resp)); len(found) > 0 {
					t.Errorf("%s as %s shows %q", p, name, found)
				}
			}
		}
	}
	t.Logf("pages the demo company has no example of: %s", strings.Join(notShown, " "))
}
