package store_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// keptCounts reads a table of kept counts, name → n, leaving out zeros.
func keptCounts(t *testing.T, db *store.Store, sql string) map[string]int {
	t.Helper()
	rows, err := db.Pool().Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		k string
		n int
	}, error) {
		var v struct {
			k string
			n int
		}
		err := r.Scan(&v.k, &v.n)
		return v, err
	})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, v := range out {
		if v.n != 0 {
			m[v.k] = v.n
		}
	}
	return m
}

// The kept counts (readiness, the start page's funnel and invites per
// hour, the queue) agree with counting the rows after transactions that
// write hundreds of rows each (inserts, updates, deletes) and after one
// whose moves are applied halfway (SET CONSTRAINTS ALL IMMEDIATE) and then
// written again; no move is left unapplied.
func TestKeptCountsAfterBulkWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	exec := func(tx pgx.Tx, sql string, args ...any) {
		t.Helper()
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	insertEmployees := func(tx pgx.Tx, from, to int) {
		exec(tx, `
			INSERT INTO employees (kind, email, first_name, last_name, country, invite_state, service_user_id, kyc_submitted, created_at)
			SELECT 'employee', 'bulk' || i || '@example.com', 'First' || i, 'Last' || i, 'GBR',
				(ARRAY['invited','linked','kyc_submitted','action_required','deleted'])[1 + i % 5],
				CASE WHEN i % 5 = 0 THEN NULL ELSE 'svc-bulk-' || i END, i % 3 = 0, now() - i * interval '7 minutes'
			FROM generate_series($1::int, $2::int) AS i`, from, to)
		exec(tx, `
			INSERT INTO employee_readiness (employee_id, currency, state, missing, read_at)
			SELECT e.id, c, (ARRAY['missing','ready','onboarding','active','failed','rejected'])[1 + (e.id + length(c)) % 6], '{}', now()
			FROM employees e CROSS JOIN unnest(ARRAY['USD','EUR','NGN']) AS c
			WHERE e.email LIKE 'bulk%' AND e.service_user_id IS NOT NULL AND substr(e.first_name, 6)::int BETWEEN $1 AND $2`, from, to)
	}
	check := func(step string) {
		t.Helper()
		for _, c := range []struct{ what, kept, counted string }{
			{"readiness counts", `SELECT currency || ' ' || state, n FROM readiness_counts`, `
				SELECT '* employees', count(*) FROM employees WHERE kind = 'employee' AND invite_state <> 'deleted'
				UNION ALL
				SELECT r.currency || ' ' || r.state, count(*) FROM employee_readiness r JOIN employees e ON e.id = r.employee_id
				WHERE e.kind = 'employee' AND e.invite_state <> 'deleted' GROUP BY r.currency, r.state`},
			{"start page counts", `SELECT name, n FROM dashboard_counts`, `
				SELECT nm, count(*) FROM dashboard_employees d,
					unnest(dashboard_count_names(d.stage, d.need_action, d.need_stop, d.unlinked_since IS NOT NULL)) nm GROUP BY nm`},
			{"start page's counted employees", `SELECT 'employees', count(*) FROM dashboard_employees`,
				`SELECT 'employees', count(*) FROM employees WHERE kind = 'employee' AND invite_state <> 'deleted'`},
			{"invites per hour", `SELECT hour::text || ' all', n FROM dashboard_unlinked_hours
				UNION ALL SELECT hour::text || ' only', n_only FROM dashboard_unlinked_hours`, `
				SELECT h::text || ' all', count(*) FROM (SELECT date_trunc('hour', unlinked_since, 'UTC') AS h FROM dashboard_employees
					WHERE unlinked_since IS NOT NULL) x GROUP BY h
				UNION ALL
				SELECT h::text || ' only', count(*) FROM (SELECT date_trunc('hour', unlinked_since, 'UTC') AS h FROM dashboard_employees
					WHERE unlinked_since IS NOT NULL AND need_rank IS NULL) x GROUP BY h`},
			{"queue counts", `SELECT status || ' ' || type, n FROM queue_counts`, `
				SELECT status || ' ' || type, count(*) FROM proposals
				WHERE status IN ('PENDING_APPROVALS', 'PENDING_SIGNATURES', 'SUBMITTED', 'READY_TO_EXECUTE', 'EXECUTING', 'FAILED')
				GROUP BY 1`},
		} {
			kept, counted := keptCounts(t, st, c.kept), keptCounts(t, st, c.counted)
			if !maps.Equal(kept, counted) {
				t.Errorf("%s, %s: kept %v, counted %v", step, c.what, kept, counted)
			}
		}
		var left int
		if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM readiness_count_moves) + (SELECT count(*) FROM dashboard_count_moves)
			+ (SELECT count(*) FROM dashboard_unlinked_moves) + (SELECT count(*) FROM queue_count_moves)`).Scan(&left); err != nil || left != 0 {
			t.Errorf("%s: %d moves left unapplied (%v)", step, left, err)
		}
	}
	inTx := func(fn func(tx pgx.Tx)) {
		t.Helper()
		tx, err := db.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		fn(tx)
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}

	inTx(func(tx pgx.Tx) { insertEmployees(tx, 1, 400) })
	if keptCounts(t, st, `SELECT 'n', count(*) FROM employees WHERE email LIKE 'bulk%'`)["n"] != 400 {
		t.Fatal("the bulk insert did not insert 400 employees")
	}
	check("400 employees in one transaction")

	inTx(func(tx pgx.Tx) {
		exec(tx, `UPDATE employees SET invite_state = 'deleted' WHERE email LIKE 'bulk%' AND substr(first_name, 6)::int % 7 = 0`)
		exec(tx, `UPDATE employees SET service_user_id = 'svc-relinked-' || id, kyc_submitted = true
			WHERE email LIKE 'bulk%' AND service_user_id IS NULL AND substr(first_name, 6)::int % 2 = 0`)
		exec(tx, `UPDATE employee_readiness SET state = 'active' WHERE currency = 'EUR'`)
		exec(tx, `DELETE FROM employee_readiness WHERE currency = 'NGN' AND employee_id % 4 = 0`)
		exec(tx, `DELETE FROM employee_readiness r USING employees e WHERE e.id = r.employee_id AND e.email LIKE 'bulk%'
			AND substr(e.first_name, 6)::int % 11 = 0`)
		exec(tx, `DELETE FROM employees WHERE email LIKE 'bulk%' AND substr(first_name, 6)::int % 11 = 0`)
	})
	check("updates and deletes of hundreds of rows in one transaction")

	// Moves applied halfway through a transaction, then written again: the
	// later moves are applied at commit by their own firings.
	inTx(func(tx pgx.Tx) {
		insertEmployees(tx, 401, 500)
		exec(tx, `SET CONSTRAINTS ALL IMMEDIATE`)
		exec(tx, `SET CONSTRAINTS ALL DEFERRED`)
		insertEmployees(tx, 501, 650)
		exec(tx, `UPDATE employees SET invite_state = 'deleted' WHERE email LIKE 'bulk%' AND substr(first_name, 6)::int BETWEEN 401 AND 450`)
	})
	check("moves applied halfway, then more")

	// Proposals in bulk move the queue's counts.
	t0 := time.Now().UTC()
	for i := range 300 {
		status := []store.ProposalStatus{store.ProposalPendingApprovals, store.ProposalPendingSignatures, store.ProposalCompleted}[i%3]
		p := store.Proposal{ID: fmt.Sprintf("bulk-p-%03d", i), WalletID: "w1", OwnerUserID: "u1", Type: []string{"TRANSFER", "SWAP"}[i%2],
			Status: status, Currency: "USDB", Amount: decimal.RequireFromString("5"), RequiredApprovals: 1, CreatedAt: t0, UpdatedAt: t0}
		if _, err := st.UpsertProposal(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	inTx(func(tx pgx.Tx) {
		exec(tx, `UPDATE proposals SET status = 'FAILED' WHERE id LIKE 'bulk-p-%' AND substr(id, 8)::int % 4 = 0`)
		exec(tx, `UPDATE proposals SET type = 'TRANSFER' WHERE id LIKE 'bulk-p-%'`)
		exec(tx, `DELETE FROM proposals WHERE id LIKE 'bulk-p-%' AND substr(id, 8)::int % 5 = 0`)
	})
	check("hundreds of proposals moved in one transaction")
}
