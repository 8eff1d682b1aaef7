package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// seedDashboard writes a small company whose numbers the start page must
// show, straight into the store (the mirror, as webhooks and syncs leave
// it): ten employees at every stage of the funnel, proposals, sign links,
// the treasury, payroll, cards, money and card activity, webhook deliveries
// and a reconciliation.
func seedDashboard(t *testing.T, env *webtest.Env, now time.Time) {
	t.Helper()
	ctx := context.Background()
	db := env.Store.Pool()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
	}
	// Employees 1–4 invited (1 and 2 ten days ago), 5–10 linked; 6 has
	// something asked; 7–10 submitted KYC; 7's EUR failed; 8–10 have USD
	// active; 9 and 10 received a deposit.
	for i := 1; i <= 10; i++ {
		created := now
		if i <= 2 {
			created = now.Add(-10 * 24 * time.Hour)
		}
		var suid *string
		state := "invited"
		if i >= 5 {
			s := "user-" + string(rune('a'+i))
			suid, state = &s, "linked"
		}
		action := ""
		if i == 6 {
			state, action = "action_required", "Upload a proof of address"
		}
		exec(`INSERT INTO employees (service_user_id, email, first_name, last_name, invite_state, kyc_submitted, action_required, created_at)
			VALUES ($1, $2, $3, 'Dash', $4, $5, $6, $7)`, suid, "e"+string(rune('a'+i))+"@staff.example", "Emp"+string(rune('A'+i)),
			state, i >= 7, action, created)
	}
	exec(`INSERT INTO employee_readiness (employee_id, currency, state, read_at)
		SELECT id, 'USD', 'active', now() FROM employees WHERE email IN ('ei@staff.example', 'ej@staff.example', 'ek@staff.example')`)
	exec(`INSERT INTO employee_readiness (employee_id, currency, state, read_at)
		SELECT id, 'EUR', 'failed', now() FROM employees WHERE email = 'eh@staff.example'`)
	// The treasury and its USDB wallet.
	exec(`INSERT INTO employees (kind, service_user_id, email, invite_state) VALUES ('treasury', 'treasury-1', 'treasury@partner.example', 'linked')`)
	exec(`INSERT INTO wallets (id, employee_id, currency, display_currency, balance, balance_read_at)
		SELECT 'w-treasury-usdb', id, 'USDB', 'USD', 1234.56, $1 FROM employees WHERE service_user_id = 'treasury-1'`, now.Add(-2*time.Minute))
	// Money: deposits to employees 9 and 10, a withdrawal, a failed
	// deposit (not counted); card spends and a decline.
	moves := []struct {
		kind, user, status, amount, currency string
		at                                   time.Time
	}{
		{"deposit", "user-j", "completed", "100.50", "USDB", now.Add(-time.Hour)},
		{"deposit", "user-k", "completed", "20.25", "USDB", now.Add(-26 * time.Hour)},
		{"withdrawal", "user-j", "completed", "30.00", "USDB", now.Add(-2 * time.Hour)},
		{"deposit", "user-f", "failed", "999.00", "USDB", now.Add(-time.Hour)},
		{"card_transaction", "user-j", "COMPLETED", "10.00", "USD", now.Add(-3 * time.Hour)},
		{"card_transaction", "user-j", "COMPLETED", "5.50", "USD", now.Add(-50 * time.Hour)},
		{"card_transaction", "user-k", "DECLINED", "7.00", "USD", now.Add(-4 * time.Hour)},
	}
	for i, m := range moves {
		var id int64
		state := "processed"
		if i == 3 {
			state = "failed"
		}
		if err := db.QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
			VALUES ($1, $2, '{}', $3, $4) RETURNING id`, "wh-dash-"+string(rune('a'+i)), "employee."+m.kind+"."+m.status, state, now.Add(-30*time.Minute)).
			Scan(&id); err != nil {
			t.Fatal(err)
		}
		exec(`INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
			VALUES ($1, $2, $3, 'x', $4, $5, $6, $7)`, id, m.user, m.kind, m.status, m.amount, m.currency, m.at)
	}
	exec(`INSERT INTO reconciliation_runs (started_at, checked, corrected, notes) VALUES ($1, 25, 2, '{"employee EmpF linked: corrected"}')`,
		now.Add(-20*time.Minute))
	// Cards: one frozen today, one active, one cancelled long ago.
	exec(`INSERT INTO wallets (id, employee_id, currency) SELECT 'w-j', id, 'USDB' FROM employees WHERE service_user_id = 'user-j'`)
	for _, c := range []struct {
		id, status string
		at         time.Time
	}{{"card-frozen", "BLOCKED", now.Add(-time.Hour)}, {"card-active", "ACTIVE", now}, {"card-old", "CANCELED", now.Add(-20 * 24 * time.Hour)}} {
		exec(`INSERT INTO cards (id, wallet_id, employee_id, card_name, last4, status, status_read_at, currency)
			SELECT $1, 'w-j', id, 'Travel', '4242', $2, $3, 'USD' FROM employees WHERE service_user_id = 'user-j'`, c.id, c.status, c.at)
	}
	// Proposals from the treasury: one waits for admin-1's approval, one
	// admin-1 approved already, one waits for the owner's signature.
	for _, p := range []struct {
		id, status, approvals string
	}{{"prop-wait", "PENDING_APPROVALS", "{}"}, {"prop-done", "PENDING_APPROVALS", "{admin-1}"}, {"prop-sign", "PENDING_SIGNATURES", "{admin-1}"}} {
		exec(`INSERT INTO proposals (id, wallet_id, owner_user_id, type, status, currency, amount, to_user_id, approvals, required_approvals,
				upstream_created_at, upstream_updated_at)
			VALUES ($1, 'w-treasury-usdb', 'treasury-1', 'TRANSFER', $2, 'USDB', 250, 'user-j', $3, 2, $4, $4)`, p.id, p.status, p.approvals, now.Add(-time.Hour))
	}
	// Sign links: one open for 9½ more minutes, one expired.
	exec(`INSERT INTO sign_requests (token_hash, kind, proposal_id, user_id, owner_address, expires_at)
		VALUES ('\x01', 'proposal', 'prop-sign', 'treasury-1', '0xabc', $1), ('\x02', 'proposal', 'prop-sign', 'treasury-1', '0xabc', $2)`,
		now.Add(9*time.Minute+30*time.Second), now.Add(-time.Minute))
	exec(`INSERT INTO payroll_runs (name, source, state, rows_valid) VALUES ('June payroll', 'csv', 'sending', 12)`)
}

// dashboardAs signs in a new staff member of the role (finance linked to
// the wallet admin admin-1) and reads the start page.
func dashboardAs(t *testing.T, env *webtest.Env, role store.Role) *goquery.Document {
	t.Helper()
	s := env.CreateStaff(role)
	if role == store.RoleFinanceApprover {
		if err := env.Store.SetApproverLink(context.Background(), s.ID, "admin-1", store.Actor{Email: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	c := env.Client()
	env.Login(c, s.Email, s.Password)
	resp := env.Get(c, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", role, resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

func number(t *testing.T, doc *goquery.Document, id string) string {
	t.Helper()
	sel := doc.Find(`[data-testid="` + id + `-n"]`)
	if sel.Length() != 1 {
		t.Fatalf("%s: %d elements", id, sel.Length())
	}
	return strings.TrimSpace(sel.Text())
}

// tableColumn reads one series of a chart's table.
func tableColumn(doc *goquery.Document, chart string, series string) []string {
	var out []string
	doc.Find(`[data-testid="chart-table-` + chart + `"] td[data-series="` + series + `"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.TrimSpace(s.Text()))
	})
	return out
}

func sumColumn(t *testing.T, cells []string) decimal.Decimal {
	t.Helper()
	sum := decimal.Zero
	for _, c := range cells {
		d, err := decimal.NewFromString(strings.ReplaceAll(c, ",", ""))
		if err != nil {
			t.Fatalf("cell %q: %v", c, err)
		}
		sum = sum.Add(d)
	}
	return sum
}

// Each role's start page shows its numbers from the seeded company, and
// only what the role may see: HR no proposals or money, support no treasury
// numbers, finance no employees' funnel, none but the owner the webhook
// health and the API's status.
func TestDashboardPerRole(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	seedDashboard(t, env, time.Now())
	sections := func(doc *goquery.Document) string {
		var got []string
		for _, s := range []string{"dash-hr", "dash-finance", "dash-support", "dash-webhooks", "upstream"} {
			if doc.Find(`[data-testid="`+s+`"]`).Length() > 0 {
				got = append(got, s)
			}
		}
		return strings.Join(got, ",")
	}

	t.Run("hr", func(t *testing.T) {
		doc := dashboardAs(t, env, store.RoleHRAdmin)
		if got := sections(doc); got != "dash-hr" {
			t.Fatalf("sections %q", got)
		}
		if got := strings.Join(tableColumn(doc, "invite-funnel", "0"), ","); got != "10,6,4,3,2" {
			t.Errorf("funnel %q, want 10,6,4,3,2", got)
		}
		if got := number(t, doc, "needs-total"); got != "4" {
			t.Errorf("needing action %s, want 4", got)
		}
		for id, want := range map[string]string{"needs-action_required": "1", "needs-onboarding_stop": "1", "needs-not_linked": "2"} {
			if got := number(t, doc, id); got != want {
				t.Errorf("%s = %s, want %s", id, got, want)
			}
		}
		first := doc.Find(`[data-testid="need"]`).First()
		if first.AttrOr("data-reason", "") != store.NeedActionRequired ||
			!strings.Contains(first.Find(`[data-testid="need-why"]`).Text(), "Upload a proof of address") {
			t.Errorf("first need %q: %q", first.AttrOr("data-reason", ""), first.Text())
		}
		if doc.Find(`[data-testid="need"]`).Length() != 4 {
			t.Errorf("%d needs listed", doc.Find(`[data-testid="need"]`).Length())
		}
		usd := doc.Find(`[data-testid="readiness-row"][data-currency="USD"] td[data-state="active"]`).Text()
		eur := doc.Find(`[data-testid="readiness-row"][data-currency="EUR"] td[data-state="failed"]`).Text()
		if usd != "3" || eur != "1" {
			t.Errorf("readiness USD active %q, EUR failed %q", usd, eur)
		}
		body := doc.Text()
		for _, hidden := range []string{"1,234.56", "prop-wait", "Webhook health"} {
			if strings.Contains(body, hidden) {
				t.Errorf("HR sees %q", hidden)
			}
		}
	})

	t.Run("finance", func(t *testing.T) {
		doc := dashboardAs(t, env, store.RoleFinanceApprover)
		if got := sections(doc); got != "dash-finance" {
			t.Fatalf("sections %q", got)
		}
		if got := number(t, doc, "waiting-total"); got != "1" {
			t.Errorf("waiting %s, want 1", got)
		}
		row := doc.Find(`[data-testid="waiting-row"]`)
		if row.AttrOr("data-id", "") != "prop-wait" || row.Find(`[data-testid="waiting-amount"]`).Text() != "250.00 USD (USDB)" {
			t.Errorf("waiting row %q: %q", row.AttrOr("data-id", ""), row.Find(`[data-testid="waiting-amount"]`).Text())
		}
		if got := number(t, doc, "signlinks-total"); got != "1" {
			t.Errorf("open sign links %s, want 1", got)
		}
		if got := doc.Find(`[data-testid="signlink-expires"]`).Text(); got != "in 9 minutes" {
			t.Errorf("expiry %q, want in 9 minutes", got)
		}
		if got := doc.Find(`[data-testid="balance"][data-currency="USD"] [data-testid="balance-amount"]`).Text(); got != "1,234.56 USD (USDB)" {
			t.Errorf("treasury balance %q", got)
		}
		if in := sumColumn(t, tableColumn(doc, "money-USD", "0")); !in.Equal(decimal.RequireFromString("120.75")) {
			t.Errorf("money in over 30 days %s, want 120.75", in)
		}
		if out := sumColumn(t, tableColumn(doc, "money-USD", "1")); !out.Equal(decimal.RequireFromString("30")) {
			t.Errorf("money out over 30 days %s, want 30.00", out)
		}
		if doc.Find(`[data-testid="chart-money-USD"] svg[role="img"] title`).First().Text() == "" {
			t.Error("money chart has no title")
		}
		if got := number(t, doc, "payroll-total"); got != "1" {
			t.Errorf("payroll runs in progress %s, want 1", got)
		}
		body := doc.Text()
		for _, hidden := range []string{"Upload a proof of address", "Invite funnel", "Travel ···· 4242", "Webhook health"} {
			if strings.Contains(body, hidden) {
				t.Errorf("finance sees %q", hidden)
			}
		}
	})

	t.Run("support", func(t *testing.T) {
		doc := dashboardAs(t, env, store.RoleSupport)
		if got := sections(doc); got != "dash-support" {
			t.Fatalf("sections %q", got)
		}
		if got := number(t, doc, "stopped-total"); got != "1" {
			t.Errorf("stopped cards %s, want 1", got)
		}
		if got := doc.Find(`[data-testid="stopped-card"]`).AttrOr("data-status", ""); got != "blocked" {
			t.Errorf("stopped card status %q", got)
		}
		if got := number(t, doc, "spends-total"); got != "2" {
			t.Errorf("spends %s, want 2", got)
		}
		if got := number(t, doc, "declines-total"); got != "1" {
			t.Errorf("declines %s, want 1", got)
		}
		if got := doc.Find(`[data-testid="spent"][data-currency="USD"]`).Text(); got != "15.50 USD" {
			t.Errorf("spent %q, want 15.50 USD", got)
		}
		if got := sumColumn(t, tableColumn(doc, "card-spend", "1")); !got.Equal(decimal.NewFromInt(1)) {
			t.Errorf("declines in the chart %s, want 1", got)
		}
		body := doc.Text()
		for _, hidden := range []string{"1,234.56", "Treasury balances", "prop-wait", "Invite funnel"} {
			if strings.Contains(body, hidden) {
				t.Errorf("support sees %q", hidden)
			}
		}
	})

	t.Run("owner", func(t *testing.T) {
		doc := dashboardAs(t, env, store.RoleOwner)
		if got := sections(doc); got != "dash-hr,dash-finance,dash-support,dash-webhooks,upstream" {
			t.Fatalf("sections %q", got)
		}
		if got := number(t, doc, "deliveries-total"); got != "7" {
			t.Errorf("deliveries in 24 hours %s, want 7", got)
		}
		if got := number(t, doc, "failures-total"); got != "1" {
			t.Errorf("failures %s, want 1", got)
		}
		if got := sumColumn(t, tableColumn(doc, "webhook-hours", "0")); !got.Equal(decimal.NewFromInt(7)) {
			t.Errorf("deliveries in the chart %s, want 7", got)
		}
		if got := doc.Find(`[data-testid="last-received"] time`).Text(); got != "30 min ago" {
			t.Errorf("last received %q", got)
		}
		if got := doc.Find(`[data-testid="recon-corrected"]`).Text(); got != "2" {
			t.Errorf("reconciliation corrected %q", got)
		}
		if got := webtest.TestID(doc, "upstream-state"); !strings.HasPrefix(got, "Reachable.") {
			t.Errorf("API status %q", got)
		}
		// The owner's lists are brief, and the owner approves as nobody
		// here: nothing waits for them.
		if doc.Find(`[data-testid="waiting-unlinked"]`).Length() != 1 {
			t.Error("owner not told they are not linked")
		}
	})
}

// The page polls its live part: an htmx request gets the part alone, with
// its poll, and no layout.
func TestDashboardLivePart(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	c, _ := env.SignedIn(store.RoleSupport)
	resp := env.Do(c, http.MethodGet, "/", nil, http.Header{"Hx-Request": {"true"}})
	doc := webtest.Doc(t, resp)
	live := doc.Find(`#dashboard-live`)
	if live.Length() != 1 || live.AttrOr("hx-trigger", "") != "every 10s" || live.AttrOr("hx-get", "") != "/" {
		t.Fatalf("live part: %d %q %q", live.Length(), live.AttrOr("hx-trigger", ""), live.AttrOr("hx-get", ""))
	}
	if doc.Find(`h1, nav.top, [data-testid="dashboard-title"]`).Length() != 0 {
		t.Error("the poll answered with the whole page")
	}
	if doc.Find(`[data-testid="stopped-none"]`).Length() != 1 {
		t.Error("an empty week shows no 'nothing stopped'")
	}
}

// TestDashboardMoneyChartFollowsNewActivity: the money chart's markup is
// kept with the days it draws, shared by the roles that see it; a deposit
// recorded since shows at the next view, for each of them.
func TestDashboardMoneyChartFollowsNewActivity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	now := time.Now()
	seedDashboard(t, env, now)
	moneyIn := func(doc *goquery.Document) decimal.Decimal { return sumColumn(t, tableColumn(doc, "money-USD", "0")) }
	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleOwner} {
		if in := moneyIn(dashboardAs(t, env, role)); !in.Equal(decimal.RequireFromString("120.75")) {
			t.Fatalf("%s: money in %s, want 120.75", role, in)
		}
	}
	var id int64
	if err := env.Store.Pool().QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
		VALUES ('wh-dash-new', 'employee.deposit.completed', '{}', 'processed', now()) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
		VALUES ($1, 'user-f', 'deposit', 'x', 'completed', 9.25, 'USDB', $2)`, id, now); err != nil {
		t.Fatal(err)
	}
	for _, role := range []store.Role{store.RoleOwner, store.RoleFinanceApprover} {
		if in := moneyIn(dashboardAs(t, env, role)); !in.Equal(decimal.RequireFromString("130")) {
			t.Fatalf("%s after a new deposit: money in %s, want 130.00", role, in)
		}
	}
}
