package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// TestDashboardDaysAreKeptUntilActivityChangesOnAnyReplica: the start
// page's money in and out and card spend per day are kept with the
// activity's version. A request that read the versions before a deposit
// recorded on the other replica is served the kept days; the next request
// sees the deposit, and a card transaction as well.
func TestDashboardDaysAreKeptUntilActivityChangesOnAnyReplica(t *testing.T) {
	ctx := context.Background()
	stores := replicaStores(t, 2)
	a, b := stores[0], stores[1]
	now := time.Now().UTC()
	day := 24 * time.Hour
	req := store.DashboardRequest{Now: now, Limit: 5, Finance: true, MoneyFirst: now.Add(-29 * day), MoneyLast: now,
		Support: true, CardFirst: now.Add(-6 * day), CardLast: now}
	n := 0
	record := func(kind, status, amount string) {
		t.Helper()
		n++
		if _, err := b.Pool().Exec(ctx, `
			WITH ev AS (INSERT INTO webhook_events (webhook_id, event_type, body, state) VALUES ('kept-' || $1::int, 'x', '\x7b7d', 'processed') RETURNING id)
			INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
			SELECT id, 'bu-1', $2, 'x', $3, $4::numeric, 'USDB', now() FROM ev`, n, kind, status, amount); err != nil {
			t.Fatal(err)
		}
	}
	in := func(d store.Dashboard) decimal.Decimal {
		total := decimal.Zero
		for _, m := range d.Money {
			total = total.Add(m.In)
		}
		return total
	}
	spends := func(d store.Dashboard) int {
		total := 0
		for _, c := range d.CardDays {
			total += c.Spends
		}
		return total
	}
	read := func(ctx context.Context) store.Dashboard {
		t.Helper()
		d, err := a.Dashboard(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	record("deposit", "completed", "10")
	old := atVersions(t, a)
	if got := in(read(old)); !got.Equal(decimal.NewFromInt(10)) {
		t.Fatalf("first read: %s in", got)
	}
	record("deposit", "completed", "5.25")
	if got := in(read(old)); !got.Equal(decimal.NewFromInt(10)) {
		t.Fatalf("a request from before the deposit: %s in, want the kept 10 (the days were not kept)", got)
	}
	if got := in(read(atVersions(t, a))); !got.Equal(decimal.RequireFromString("15.25")) {
		t.Fatalf("after a deposit recorded on the other replica: %s in, want 15.25", got)
	}
	if got := spends(read(atVersions(t, a))); got != 0 {
		t.Fatalf("%d card spends before any", got)
	}
	record("card_transaction", "COMPLETED", "3")
	if got := spends(read(atVersions(t, a))); got != 1 {
		t.Fatalf("after a card transaction on the other replica: %d spends, want 1", got)
	}
	// Another window is another read.
	week := req
	week.MoneyFirst = now.Add(-6 * day)
	d, err := a.Dashboard(atVersions(t, a), week)
	if err != nil || !in(d).Equal(decimal.RequireFromString("15.25")) {
		t.Fatalf("a week's window: %v %v", in(d), err)
	}
}

// TestDashboardTreasuryAndStoppedCardsFollowTheOtherReplica: the start
// page's treasury balances and stopped cards are kept with the versions of
// the treasury's and the cards' tables: a balance read and a card frozen
// on the other replica show at the next request.
func TestDashboardTreasuryAndStoppedCardsFollowTheOtherReplica(t *testing.T) {
	ctx := context.Background()
	stores := replicaStores(t, 2)
	a, b := stores[0], stores[1]
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := b.Pool().Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO employees (kind, service_user_id, email, invite_state) VALUES ('treasury', 'k-treasury', 'treasury@partner.example', 'linked')`)
	exec(`INSERT INTO wallets (id, employee_id, currency, display_currency, balance, balance_read_at)
		SELECT 'k-tw', id, 'USDB', '', 100, now() FROM employees WHERE service_user_id = 'k-treasury'`)
	exec(`INSERT INTO employees (kind, service_user_id, email, first_name, invite_state) VALUES ('employee', 'k-1', 'k1@partner.example', 'Kay', 'linked')`)
	exec(`INSERT INTO wallets (id, employee_id, currency) SELECT 'k-w', id, 'USDB' FROM employees WHERE service_user_id = 'k-1'`)
	exec(`INSERT INTO cards (id, wallet_id, employee_id, card_name, last4, status, status_read_at, currency)
		SELECT 'k-card', 'k-w', id, 'Travel', '4242', 'ACTIVE', now(), 'USD' FROM employees WHERE service_user_id = 'k-1'`)
	now := time.Now().UTC()
	day := 24 * time.Hour
	req := store.DashboardRequest{Now: now, Limit: 5, Finance: true, MoneyFirst: now.Add(-29 * day), MoneyLast: now,
		Support: true, CardFirst: now.Truncate(day).Add(-6 * day), CardLast: now}
	read := func(ctx context.Context) store.Dashboard {
		t.Helper()
		d, err := a.Dashboard(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	balance := func(d store.Dashboard) string {
		if d.NoTreasury || len(d.Wallets) != 1 {
			return fmt.Sprintf("no treasury (%v, %d wallets)", d.NoTreasury, len(d.Wallets))
		}
		return d.Wallets[0].Balance.Decimal.String()
	}

	old := atVersions(t, a)
	if d := read(old); balance(d) != "100" || d.StoppedTotal != 0 {
		t.Fatalf("first read: balance %s, %d stopped", balance(d), d.StoppedTotal)
	}
	exec(`UPDATE wallets SET balance = 150, balance_read_at = now() WHERE id = 'k-tw'`)
	exec(`UPDATE cards SET status = 'FROZEN' WHERE id = 'k-card'`)
	if d := read(old); balance(d) != "100" || d.StoppedTotal != 0 {
		t.Fatalf("a request from before the changes: balance %s, %d stopped (not kept)", balance(d), d.StoppedTotal)
	}
	d := read(atVersions(t, a))
	if balance(d) != "150" {
		t.Fatalf("after a balance read on the other replica: %s", balance(d))
	}
	if d.StoppedTotal != 1 || len(d.Stopped) != 1 || d.Stopped[0].CardID != "k-card" {
		t.Fatalf("after a card frozen on the other replica: %d stopped %+v", d.StoppedTotal, d.Stopped)
	}
}
