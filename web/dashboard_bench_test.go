package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// seedYear writes a year of a 10,000-employee company into the mirror with
// SQL: employees at every stage with readiness in five currencies, a year
// of deposits, withdrawals and card spends (each with its webhook
// delivery), cards, completed and open proposals, sign links, payroll runs,
// hourly reconciliations and a few refused deliveries.
func seedYear(b *testing.B, env *webtest.Env) {
	b.Helper()
	ctx := context.Background()
	db := env.Store.Pool()
	steps := []string{
		`INSERT INTO employees (kind, service_user_id, email, first_name, last_name, invite_state, kyc_submitted, action_required, created_at)
		SELECT 'employee', CASE WHEN i % 10 < 7 THEN 'y-user-' || i END, 'y' || i || '@bench.example', 'Year', 'N' || i,
			CASE WHEN i % 10 >= 7 THEN 'invited' WHEN i % 97 = 0 THEN 'action_required' WHEN i % 10 < 5 THEN 'kyc_submitted' ELSE 'linked' END,
			i % 10 < 5, CASE WHEN i % 97 = 0 THEN 'Upload a proof of address' ELSE '' END,
			now() - (i % 365) * interval '1 day'
		FROM generate_series(1, 10000) i`,
		`INSERT INTO employees (kind, service_user_id, email, invite_state) VALUES ('treasury', 'y-treasury', 'treasury@bench.example', 'linked')`,
		`INSERT INTO wallets (id, employee_id, currency, display_currency, balance, balance_read_at)
		SELECT 'y-tw-' || c, e.id, c, '', 100000.25, now() FROM employees e, unnest(ARRAY['USDB', 'CNGN', 'EURe']) c WHERE e.service_user_id = 'y-treasury'`,
		`INSERT INTO employee_readiness (employee_id, currency, state, read_at)
		SELECT e.id, c, (ARRAY['active', 'onboarding', 'missing', 'ready', 'not_started', 'active', 'onboarding', 'missing', 'ready', 'not_started',
			'active', 'onboarding', 'missing', 'ready', 'not_started', 'active', 'onboarding', 'missing', 'ready', 'not_started',
			'active', 'onboarding', 'missing', 'ready', 'not_started', 'active', 'onboarding', 'missing', 'ready', 'not_started',
			'active', 'onboarding', 'missing', 'ready', 'not_started', 'active', 'onboarding', 'missing', 'ready', 'not_started',
			'active', 'onboarding', 'missing', 'ready', 'not_started', 'active', 'onboarding', 'missing', 'failed', 'rejected'])[1 + (e.id + length(c)) % 50], now()
		FROM employees e, unnest(ARRAY['USD', 'EUR', 'NGN', 'MXN', 'CAD']) c WHERE e.service_user_id LIKE 'y-user-%'`,
		// 500 money and card events a day for 365 days.
		// Deliveries arrive in time order, as they do: oldest first.
		`INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
		SELECT 'y-wh-' || i, 'x', '\x7b7d', CASE WHEN i % 211 = 0 THEN 'failed' ELSE 'processed' END,
			now() - interval '365 days' + i * interval '172.8 seconds'
		FROM generate_series(1, 182500) i`,
		`INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
		SELECT w.id, 'y-user-' || (w.id % 7000),
			CASE WHEN w.id % 10 < 3 THEN 'deposit' WHEN w.id % 10 = 3 THEN 'withdrawal' ELSE 'card_transaction' END, 'x',
			CASE WHEN w.id % 10 > 3 THEN (CASE WHEN w.id % 13 = 0 THEN 'DECLINED' ELSE 'COMPLETED' END) ELSE 'completed' END,
			(w.id % 50000) / 100.0 + 1, (ARRAY['USDB', 'CNGN', 'USD'])[1 + w.id % 3], w.received_at
		FROM webhook_events w WHERE w.webhook_id LIKE 'y-wh-%' ORDER BY w.id`,
		`INSERT INTO wallets (id, employee_id, currency)
		SELECT 'y-w-' || e.id, e.id, 'USDB' FROM employees e WHERE e.service_user_id LIKE 'y-user-%' AND e.id % 2 = 0`,
		`INSERT INTO cards (id, wallet_id, employee_id, card_name, last4, status, status_read_at, currency, search_text)
		SELECT 'y-card-' || w.employee_id, w.id, w.employee_id, 'Card', lpad((w.employee_id % 10000)::text, 4, '0'),
			(ARRAY['ACTIVE', 'ACTIVE', 'ACTIVE', 'BLOCKED', 'CANCELED', 'pending'])[1 + w.employee_id % 6],
			now() - (w.employee_id % 365) * interval '1 day', 'USD', 'card ' || w.employee_id
		FROM wallets w WHERE w.id LIKE 'y-w-%'`,
		`INSERT INTO proposals (id, wallet_id, owner_user_id, type, status, currency, amount, to_user_id, approvals, required_approvals,
			upstream_created_at, upstream_updated_at)
		SELECT 'y-p-' || i, 'y-tw-USDB', 'y-treasury', 'TRANSFER',
			CASE WHEN i <= 60 THEN (ARRAY['PENDING_APPROVALS', 'PENDING_SIGNATURES', 'FAILED'])[1 + i % 3] ELSE 'COMPLETED' END,
			'USDB', 100 + i % 900, 'y-user-' || (i % 7000), CASE WHEN i % 2 = 0 THEN '{y-admin}'::text[] ELSE '{}' END, 2,
			now() - (i % 365) * interval '1 day', now() - (i % 365) * interval '1 day'
		FROM generate_series(1, 7300) i`,
		`INSERT INTO sign_requests (token_hash, kind, proposal_id, user_id, owner_address, state, expires_at, created_at)
		SELECT decode(lpad(to_hex(i), 8, '0'), 'hex'), 'proposal', 'y-p-' || i, 'y-treasury', '0xabc',
			CASE WHEN i <= 3 THEN 'waiting' ELSE 'completed' END,
			CASE WHEN i <= 3 THEN now() + interval '10 minutes' ELSE now() - (i % 365) * interval '1 day' END, now() - (i % 365) * interval '1 day'
		FROM generate_series(1, 2000) i`,
		`INSERT INTO payroll_runs (name, source, state, rows_valid, created_at)
		SELECT 'Payroll ' || m, 'csv', 'sent', 100, now() - m * interval '30 days' FROM generate_series(1, 12) m`,
		`INSERT INTO payroll_rows (run_id, line, recipient, proposal_id)
		SELECT r.id, l, 'y' || l || '@bench.example', 'y-p-' || (60 + (r.id * 100 + l) % 7000)
		FROM payroll_runs r, generate_series(1, 100) l WHERE r.name LIKE 'Payroll %'`,
		`INSERT INTO reconciliation_runs (started_at, checked, corrected, notes)
		SELECT now() - h * interval '1 hour', 25, h % 5, '{}' FROM generate_series(1, 8760) h`,
		`INSERT INTO webhook_signature_failures (at, webhook_id, reason) SELECT now() - h * interval '3 hours', 'bad-' || h, 'bad signature'
		FROM generate_series(1, 200) h`,
		// As autovacuum leaves a table a year old: statistics and the
		// visibility map (index-only scans) up to date.
		`VACUUM ANALYZE`,
	}
	for _, s := range steps {
		if _, err := db.Exec(ctx, s); err != nil {
			b.Fatalf("%v\n%s", err, s)
		}
	}
}

// BenchmarkDashboard renders each role's start page over a year of a
// 10,000-employee company (budget: 20 ms of server time) and prints the
// time per render; it asserts nothing about time. The request goes to the
// app's handler in process, so the time is the server's: session, queries
// and rendering, without the network or the client.
//
//	go test -run '^$' -bench Dashboard -benchtime 50x ./web/
func BenchmarkDashboard(b *testing.B) {
	env := webtest.New(b, webtest.Options{SkipDemoImport: true})
	seedYear(b, env)
	for _, role := range []store.Role{store.RoleOwner, store.RoleHRAdmin, store.RoleFinanceApprover, store.RoleSupport} {
		s := env.CreateStaff(role)
		if role == store.RoleFinanceApprover {
			if err := env.Store.SetApproverLink(context.Background(), s.ID, "y-admin", store.Actor{Email: "bench"}); err != nil {
				b.Fatal(err)
			}
		}
		c := env.Client()
		env.Login(c, s.Email, s.Password)
		u, _ := url.Parse(env.URL("/"))
		cookies := c.Jar.Cookies(u)
		h := env.App.Handler()
		render := func() int {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			for _, ck := range cookies {
				req.AddCookie(ck)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: status %d", role, rec.Code)
			}
			return rec.Body.Len()
		}
		b.Run(string(role), func(b *testing.B) {
			render() // warm: the first render plans the queries and loads the staff cache
			var size int
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				size = render()
			}
			per := time.Since(start) / time.Duration(b.N)
			fmt.Printf("dashboard as %s over a year of 10,000 employees: %.2f ms per render (%d kB; budget 20 ms)\n",
				role.Label(), float64(per.Microseconds())/1000, size/1024)
			b.ReportMetric(float64(per.Microseconds())/1000, "ms/render")
		})
	}
}
