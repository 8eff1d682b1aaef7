package store_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// The kept readiness counts agree with counting the rows, whatever happens
// to employees and their readiness: reads, re-reads, deletions,
// reactivations, treasury users, rows removed.
func TestReadinessCountsStayHonest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	currencies := []string{"USD", "EUR", "NGN", "MXN", "CAD"}
	states := []string{"not_started", "missing", "ready", "onboarding", "active", "failed", "rejected"}
	rng := rand.New(rand.NewPCG(1, 2))
	var ids []int64
	check := func(step int) {
		t.Helper()
		got, err := st.ReadinessCounts(ctx, currencies)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]int{}
		for _, c := range currencies {
			want[c] = map[string]int{}
		}
		rows, err := db.Query(ctx, `
			SELECT c.currency, coalesce(r.state, 'not_read'), count(*)
			FROM employees e
			CROSS JOIN unnest($1::text[]) AS c(currency)
			LEFT JOIN employee_readiness r ON r.employee_id = e.id AND r.currency = c.currency
			WHERE e.kind = 'employee' AND e.invite_state <> 'deleted'
			GROUP BY 1, 2`, currencies)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c, s string
			var n int
			if err := rows.Scan(&c, &s, &n); err != nil {
				t.Fatal(err)
			}
			want[c][s] = n
		}
		rows.Close()
		for _, c := range currencies {
			if !maps.Equal(got[c], want[c]) {
				t.Fatalf("step %d, %s: kept %v, counted %v", step, c, got[c], want[c])
			}
		}
	}
	check(0)
	for step := 1; step <= 400; step++ {
		var err error
		switch op := rng.IntN(7); {
		case op == 0 || len(ids) == 0:
			kind := "employee"
			if rng.IntN(10) == 0 {
				kind = "treasury"
			}
			var id int64
			err = db.QueryRow(ctx, `INSERT INTO employees (kind, email) VALUES ($1, $2) RETURNING id`,
				kind, fmt.Sprintf("p%d@partner.example", step)).Scan(&id)
			ids = append(ids, id)
		case op <= 3:
			_, err = db.Exec(ctx, `
				INSERT INTO employee_readiness (employee_id, currency, state, read_at) VALUES ($1, $2, $3, now())
				ON CONFLICT (employee_id, currency) DO UPDATE SET state = EXCLUDED.state`,
				ids[rng.IntN(len(ids))], currencies[rng.IntN(len(currencies))], states[rng.IntN(len(states))])
		case op == 4:
			state := "deleted"
			if rng.IntN(2) == 0 {
				state = "linked"
			}
			_, err = db.Exec(ctx, `UPDATE employees SET invite_state = $2 WHERE id = $1`, ids[rng.IntN(len(ids))], state)
		case op == 5:
			_, err = db.Exec(ctx, `DELETE FROM employee_readiness WHERE employee_id = $1 AND currency = $2`,
				ids[rng.IntN(len(ids))], currencies[rng.IntN(len(currencies))])
		default:
			_, err = db.Exec(ctx, `UPDATE employees SET kind = CASE kind WHEN 'employee' THEN 'treasury' ELSE 'employee' END WHERE id = $1`,
				ids[rng.IntN(len(ids))])
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		check(step)
	}
}
