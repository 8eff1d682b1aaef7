package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"partneradmin/store"
)

// The start page's one batch reads what each part's own read finds: the
// same rows, totals and counts, part by part, and nothing for a part not
// asked for.
func TestDashboardBatchReadsTheParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	now := time.Now().UTC().Truncate(time.Second)
	day := 24 * time.Hour
	seed := []string{
		`INSERT INTO employees (kind, service_user_id, email, first_name, last_name, invite_state, kyc_submitted, action_required, created_at)
		SELECT 'employee', CASE WHEN i % 3 > 0 THEN 'bu-' || i END, 'b' || i || '@partner.example', 'B', 'N' || i,
			CASE WHEN i % 3 = 0 THEN 'invited' ELSE 'linked' END, i % 2 = 0, CASE WHEN i % 5 = 0 THEN 'Upload a proof' ELSE '' END,
			now() - i * interval '1 day'
		FROM generate_series(1, 40) i`,
		`INSERT INTO employees (kind, service_user_id, email, invite_state) VALUES ('treasury', 'b-treasury', 'treasury@partner.example', 'linked')`,
		`INSERT INTO wallets (id, employee_id, currency, display_currency, balance, balance_read_at)
		SELECT 'b-tw-' || c, e.id, c, '', 1000.25, now() FROM employees e, unnest(ARRAY['USDB', 'EURe']) c WHERE e.service_user_id = 'b-treasury'`,
		`INSERT INTO employee_readiness (employee_id, currency, state, read_at)
		SELECT e.id, 'USD', (ARRAY['active', 'failed', 'rejected', 'onboarding'])[1 + e.id % 4], now()
		FROM employees e WHERE e.service_user_id LIKE 'bu-%'`,
		`INSERT INTO wallets (id, employee_id, currency) SELECT 'b-w-' || e.id, e.id, 'USDB' FROM employees e WHERE e.service_user_id LIKE 'bu-%'`,
		`INSERT INTO cards (id, wallet_id, employee_id, card_name, last4, status, status_read_at, currency)
		SELECT 'b-card-' || w.employee_id, w.id, w.employee_id, 'Card', lpad(w.employee_id::text, 4, '0'),
			(ARRAY['ACTIVE', 'BLOCKED', 'CANCELED'])[1 + w.employee_id % 3], now() - (w.employee_id % 10) * interval '1 day', 'USD'
		FROM wallets w WHERE w.id LIKE 'b-w-%'`,
		`INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
		SELECT 'b-wh-' || i, 'x', '\x7b7d', (ARRAY['processed', 'failed', 'queued'])[1 + i % 3], now() - i * interval '20 minutes'
		FROM generate_series(1, 100) i`,
		`INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
		SELECT w.id, 'bu-1', (ARRAY['deposit', 'withdrawal', 'card_transaction'])[1 + w.id % 3], 'x',
			(ARRAY['completed', 'DECLINED', 'COMPLETED'])[1 + w.id % 3], 10 + w.id, 'USDB', w.received_at
		FROM webhook_events w`,
		`INSERT INTO webhook_signature_failures (at, webhook_id, reason) SELECT now() - h * interval '5 hours', 'bad-' || h, 'bad' FROM generate_series(1, 9) h`,
		`INSERT INTO reconciliation_runs (started_at, checked, corrected, notes) SELECT now() - h * interval '1 hour', 25, h % 3, '{}' FROM generate_series(1, 6) h`,
		`INSERT INTO payroll_runs (name, source, state, rows_valid) VALUES ('Payroll B', 'csv', 'sending', 3)`,
	}
	for _, q := range seed {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	currencies := []string{"USD", "EUR"}
	req := store.DashboardRequest{Now: now, Limit: 5, HR: true, Currencies: currencies, Finance: true,
		MoneyFirst: now.Add(-29 * day), MoneyLast: now, Support: true, CardFirst: now.Add(-6 * day), CardLast: now,
		Webhooks: true, WebhooksSince: now.Add(-23 * time.Hour), ReconciliationsToShow: 3}
	got, err := st.Dashboard(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the batch read\n%+v\nthe part's own read\n%+v", what, got, want)
		}
	}
	hr, err := st.HRDashboard(ctx, now, 5, currencies)
	if err != nil {
		t.Fatal(err)
	}
	same("hr", got.HR, hr)
	if hr.NeedTotal == 0 || len(hr.Needs) == 0 || hr.Funnel.Invited == 0 {
		t.Errorf("the seed gives HR nothing to show: %+v", hr)
	}
	links, linksTotal, err := st.OpenSignLinks(ctx, now, 5)
	if err != nil {
		t.Fatal(err)
	}
	same("sign links", got.SignLinks, links)
	same("sign links total", got.SignLinksTotal, linksTotal)
	_, wallets, err := st.Treasury(ctx)
	if err != nil {
		t.Fatal(err)
	}
	same("treasury wallets", got.Wallets, wallets)
	if got.NoTreasury || len(wallets) != 2 {
		t.Errorf("treasury: none %v, %d wallets", got.NoTreasury, len(wallets))
	}
	money, err := st.MoneyInOut(ctx, req.MoneyFirst, req.MoneyLast)
	if err != nil {
		t.Fatal(err)
	}
	same("money in and out", got.Money, money)
	runs, err := st.PayrollRunsInProgress(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	same("payroll", got.Payroll, runs)
	stopped, stoppedTotal, err := st.RecentlyStoppedCards(ctx, req.CardFirst, 5)
	if err != nil {
		t.Fatal(err)
	}
	same("stopped cards", got.Stopped, stopped)
	same("stopped total", got.StoppedTotal, stoppedTotal)
	if stoppedTotal <= len(stopped) || len(stopped) != 5 {
		t.Errorf("the seed should stop more cards than the list shows: %d of %d", len(stopped), stoppedTotal)
	}
	spend, err := st.CardSpendByDay(ctx, req.CardFirst, req.CardLast)
	if err != nil {
		t.Fatal(err)
	}
	same("card spend", got.CardDays, spend)
	health, err := st.WebhookHealth(ctx, req.WebhooksSince)
	if err != nil {
		t.Fatal(err)
	}
	same("webhook health", got.Webhooks, health)
	if health.Failures == 0 || health.SignatureFailures == 0 || health.LastReceived == nil {
		t.Errorf("the seed gives webhook health nothing to show: %+v", health)
	}
	recon, err := st.ListReconciliations(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	same("reconciliations", got.Reconciliations, recon)

	// A part not asked for is not read.
	only, err := st.Dashboard(ctx, store.DashboardRequest{Now: now, Limit: 5, Support: true, CardFirst: req.CardFirst, CardLast: now})
	if err != nil {
		t.Fatal(err)
	}
	if only.HR.NeedCounts != nil || only.Wallets != nil || only.Reconciliations != nil || only.Webhooks.LastReceived != nil || len(only.Stopped) != 5 {
		t.Errorf("support alone read other parts: %+v", only)
	}

	// No treasury user known upstream: no wallets, and said so.
	if _, err := db.Exec(ctx, `UPDATE employees SET service_user_id = NULL WHERE kind = 'treasury'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Treasury(ctx); !errors.Is(err, store.ErrNoTreasury) {
		t.Fatalf("treasury without a user: %v", err)
	}
	none, err := st.Dashboard(ctx, store.DashboardRequest{Now: now, Limit: 5, Finance: true, MoneyFirst: req.MoneyFirst, MoneyLast: now})
	if err != nil {
		t.Fatal(err)
	}
	if !none.NoTreasury || len(none.Wallets) != 0 {
		t.Errorf("no treasury user: none %v, wallets %+v", none.NoTreasury, none.Wallets)
	}
}
