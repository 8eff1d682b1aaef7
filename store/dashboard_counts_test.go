package store_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"partneradmin/store"
)

// referenceNeeds is how the start page found the employees needing action
// before the counts were kept (one row per reason): the kept rows and
// counts must agree with it.
const referenceNeeds = `
	SELECT e.id, 1 AS rank, 'action_required' AS reason, e.action_required AS detail, coalesce(e.action_required_at, e.updated_at) AS since
	FROM employees e
	WHERE e.kind = 'employee' AND e.invite_state <> 'deleted' AND (e.invite_state = 'action_required' OR e.action_required <> '')
	UNION ALL
	SELECT r.employee_id, 2, 'onboarding_stop', r.currency || ' ' || r.state, r.read_at
	FROM employee_readiness r JOIN employees e ON e.id = r.employee_id
	WHERE r.state IN ('failed', 'rejected') AND e.kind = 'employee' AND e.invite_state <> 'deleted'
	UNION ALL
	SELECT e.id, 3, 'not_linked', '', e.created_at
	FROM employees e
	WHERE e.kind = 'employee' AND e.invite_state = 'invited' AND e.service_user_id IS NULL AND e.created_at < $1`

// The start page's kept funnel, needing-action counts and list, and daily
// money and card totals agree with counting the rows from scratch, whatever
// happens: invites, links, KYC, flags raised and cleared, readiness read
// and re-read, deposits, deletions, treasury users.
func TestDashboardCountsStayHonest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	currencies := []string{"USD", "EUR", "NGN", "MXN", "CAD"}
	states := []string{"not_started", "missing", "ready", "onboarding", "active", "failed", "rejected"}
	rng := rand.New(rand.NewPCG(3, 4))
	now := time.Now().UTC().Truncate(time.Second)
	var ids []int64
	const limit = 500

	check := func(step int) {
		t.Helper()
		got, err := st.HRDashboard(ctx, now, limit, currencies)
		if err != nil {
			t.Fatal(err)
		}
		cutoff := now.Add(-7 * 24 * time.Hour)
		var want store.InviteFunnel
		if err := db.QueryRow(ctx, `SELECT count(*),
				count(*) FILTER (WHERE e.service_user_id IS NOT NULL),
				count(*) FILTER (WHERE e.service_user_id IS NOT NULL AND (e.kyc_submitted OR act.employee_id IS NOT NULL)),
				count(*) FILTER (WHERE e.service_user_id IS NOT NULL AND act.employee_id IS NOT NULL),
				count(*) FILTER (WHERE e.service_user_id IS NOT NULL AND act.employee_id IS NOT NULL
					AND dep.service_user_id IS NOT NULL)
			FROM employees e
			LEFT JOIN (SELECT DISTINCT employee_id FROM employee_readiness WHERE state = 'active') act ON act.employee_id = e.id
			LEFT JOIN first_deposits dep ON dep.service_user_id = e.service_user_id
			WHERE e.kind = 'employee' AND e.invite_state <> 'deleted'`).
			Scan(&want.Invited, &want.Linked, &want.KYCSubmitted, &want.CurrencyActive, &want.FirstDeposit); err != nil {
			t.Fatal(err)
		}
		if got.Funnel != want {
			t.Fatalf("step %d: funnel kept %+v, counted %+v", step, got.Funnel, want)
		}
		wantCounts := map[string]int{}
		wantTotal := 0
		rows, err := db.Query(ctx, `SELECT n.reason, count(DISTINCT n.id) FROM (`+referenceNeeds+`) n
			GROUP BY GROUPING SETS ((n.reason), ())`, cutoff)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var reason *string
			var n int
			if err := rows.Scan(&reason, &n); err != nil {
				t.Fatal(err)
			}
			if reason == nil {
				wantTotal = n
			} else {
				wantCounts[*reason] = n
			}
		}
		rows.Close()
		gotCounts := maps.Clone(got.NeedCounts)
		maps.DeleteFunc(gotCounts, func(_ string, n int) bool { return n == 0 })
		if !maps.Equal(gotCounts, wantCounts) || got.NeedTotal != wantTotal {
			t.Fatalf("step %d: needs kept %v (%d), counted %v (%d)", step, got.NeedCounts, got.NeedTotal, wantCounts, wantTotal)
		}
		rows, err = db.Query(ctx, `SELECT id, reason, detail, since FROM (SELECT DISTINCT ON (id) * FROM (`+referenceNeeds+`) x
			ORDER BY id, rank, since DESC) n ORDER BY rank, since DESC, id LIMIT $2`, cutoff, limit)
		if err != nil {
			t.Fatal(err)
		}
		var wantList []string
		for rows.Next() {
			var id int64
			var reason, detail string
			var since time.Time
			if err := rows.Scan(&id, &reason, &detail, &since); err != nil {
				t.Fatal(err)
			}
			wantList = append(wantList, fmt.Sprintf("%d %s %q %s", id, reason, detail, since.UTC().Format(time.RFC3339Nano)))
		}
		rows.Close()
		var gotList []string
		for _, n := range got.Needs {
			gotList = append(gotList, fmt.Sprintf("%d %s %q %s", n.EmployeeID, n.Reason, n.Detail, n.Since.UTC().Format(time.RFC3339Nano)))
		}
		if !slices.Equal(gotList, wantList) {
			t.Fatalf("step %d: needing action kept\n%v\ncounted\n%v", step, gotList, wantList)
		}
	}

	var webhooks int
	deposit := func(user string, kind, status string, amount *string, at time.Time) error {
		webhooks++
		var id int64
		if err := db.QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
			VALUES ($1, 'x', '{}', 'processed', now()) RETURNING id`, fmt.Sprintf("wh-%d", webhooks)).Scan(&id); err != nil {
			return err
		}
		_, err := db.Exec(ctx, `INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
			VALUES ($1, $2, $3, 'x', $4, $5::numeric, 'USDB', $6)`, id, user, kind, status, amount, at)
		return err
	}

	check(0)
	for step := 1; step <= 500; step++ {
		var err error
		id := func() int64 { return ids[rng.IntN(len(ids))] }
		// Read times distinct per step: the list's order is then one.
		at := now.Add(-time.Duration(rng.IntN(14*24)) * time.Hour).Add(time.Duration(step) * time.Millisecond)
		switch op := rng.IntN(12); {
		case op == 0 || len(ids) < 3:
			kind := "employee"
			if rng.IntN(10) == 0 {
				kind = "treasury"
			}
			var nid int64
			err = db.QueryRow(ctx, `INSERT INTO employees (kind, email, created_at) VALUES ($1, $2, $3) RETURNING id`,
				kind, fmt.Sprintf("d%d@partner.example", step), at).Scan(&nid)
			ids = append(ids, nid)
		case op == 1:
			e := id()
			_, err = db.Exec(ctx, `UPDATE employees SET service_user_id = $2, invite_state = 'linked', updated_at = $3 WHERE id = $1`,
				e, fmt.Sprintf("u-%d", e), at)
		case op == 2:
			_, err = db.Exec(ctx, `UPDATE employees SET kyc_submitted = NOT kyc_submitted, updated_at = $2 WHERE id = $1`, id(), at)
		case op == 3:
			// A flag with its time, or without (updated_at stands in).
			_, err = db.Exec(ctx, `UPDATE employees SET action_required = CASE WHEN action_required = '' THEN 'Upload a document' ELSE '' END,
				action_required_at = CASE WHEN $3 THEN $2::timestamptz END, updated_at = $2 WHERE id = $1`, id(), at, rng.IntN(2) == 0)
		case op == 4:
			state := []string{"deleted", "invited", "action_required", "kyc_submitted"}[rng.IntN(4)]
			_, err = db.Exec(ctx, `UPDATE employees SET invite_state = $2, updated_at = $3 WHERE id = $1`, id(), state, at)
		case op <= 7:
			_, err = db.Exec(ctx, `
				INSERT INTO employee_readiness (employee_id, currency, state, read_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (employee_id, currency) DO UPDATE SET state = EXCLUDED.state, read_at = EXCLUDED.read_at`,
				id(), currencies[rng.IntN(len(currencies))], states[rng.IntN(len(states))], at)
		case op == 8:
			_, err = db.Exec(ctx, `DELETE FROM employee_readiness WHERE employee_id = $1 AND currency = $2`,
				id(), currencies[rng.IntN(len(currencies))])
		case op == 9:
			_, err = db.Exec(ctx, `UPDATE employees SET kind = CASE kind WHEN 'employee' THEN 'treasury' ELSE 'employee' END WHERE id = $1`, id())
		default:
			status := []string{"completed", "failed"}[rng.IntN(2)]
			amount := "12.34"
			err = deposit(fmt.Sprintf("u-%d", id()), "deposit", status, &amount, at)
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		check(step)
	}
	// The walk reached every stage and every reason.
	got, err := st.HRDashboard(ctx, now, limit, currencies)
	if err != nil {
		t.Fatal(err)
	}
	if got.Funnel.FirstDeposit == 0 || got.NeedCounts[store.NeedActionRequired] == 0 || got.NeedCounts[store.NeedOnboardingStop] == 0 ||
		got.NeedCounts[store.NeedNotLinked] == 0 {
		t.Errorf("the walk missed a case: %+v %v", got.Funnel, got.NeedCounts)
	}
}

// A card counts as stopped from the read that brought the stopped status,
// not from the last read: re-reads and a change of spelling move nothing.
func TestCardStatusChangedAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "ada.okafor@partner.example", FirstName: "Ada", LastName: "Okafor", ServiceUserID: "u-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertWallet(ctx, store.Wallet{ID: "w-1", EmployeeID: e.ID, Currency: "USDB", DisplayCurrency: "USD"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	day := 24 * time.Hour
	stopped := func(since time.Time) (int, []time.Time) {
		t.Helper()
		cards, total, err := st.RecentlyStoppedCards(ctx, since, 10)
		if err != nil {
			t.Fatal(err)
		}
		var at []time.Time
		for _, c := range cards {
			at = append(at, c.SeenAt.UTC())
		}
		return total, at
	}
	card := store.CardEntry{ID: "c-1", WalletID: "w-1", EmployeeID: e.ID, Currency: "USD", Status: "CANCELED"}
	// Cancelled when first listed, 30 days ago; listed again today.
	if err := st.ReplaceWalletCards(ctx, "w-1", []store.CardEntry{card}, now.Add(-30*day)); err != nil {
		t.Fatal(err)
	}
	if err := st.ReplaceWalletCards(ctx, "w-1", []store.CardEntry{card}, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, _ := stopped(now.Add(-7 * day)); n != 0 {
		t.Errorf("a card cancelled 30 days ago and read today counts as stopped this week (%d)", n)
	}
	// Active, then frozen two days ago, read again since in another spelling.
	other := store.CardEntry{ID: "c-2", WalletID: "w-1", EmployeeID: e.ID, Currency: "USD", Status: "ACTIVE"}
	if err := st.UpsertCard(ctx, other, now.Add(-20*day)); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordCardStatus(ctx, "c-2", "BLOCKED", now.Add(-2*day)); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordCardStatus(ctx, "c-2", "blocked", now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, at := stopped(now.Add(-7 * day)); n != 1 || len(at) != 1 || !at[0].Equal(now.Add(-2*day)) {
		t.Errorf("frozen two days ago: %d stopped, at %v", n, at)
	}
}

// Transactions reading several currencies of their employee at once, in
// any order, side by side, neither deadlock on the kept counts nor lose a
// move of them.
func TestDashboardCountsConcurrentReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	currencies := []string{"USD", "EUR", "NGN", "MXN", "CAD"}
	states := []string{"active", "failed", "onboarding", "rejected"}
	const workers = 6
	ids := make([]int64, workers)
	for i := range ids {
		if err := db.QueryRow(ctx, `INSERT INTO employees (email, service_user_id, invite_state, kyc_submitted) VALUES ($1, $2, 'linked', true)
			RETURNING id`, fmt.Sprintf("c%d@partner.example", i), fmt.Sprintf("cu-%d", i)).Scan(&ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for range 25 {
				tx, err := db.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				for _, i := range rng.Perm(len(currencies)) {
					if _, err := tx.Exec(ctx, `
						INSERT INTO employee_readiness (employee_id, currency, state, read_at) VALUES ($1, $2, $3, now())
						ON CONFLICT (employee_id, currency) DO UPDATE SET state = EXCLUDED.state, read_at = EXCLUDED.read_at`,
						ids[w], currencies[i], states[rng.IntN(len(states))]); err != nil {
						_ = tx.Rollback(ctx)
						errs <- fmt.Errorf("read %s: %w", currencies[i], err)
						return
					}
				}
				if err := tx.Commit(ctx); err != nil {
					errs <- fmt.Errorf("commit: %w", err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.HRDashboard(ctx, time.Now(), 10, currencies)
	if err != nil {
		t.Fatal(err)
	}
	var active, stop int
	if err := db.QueryRow(ctx, `SELECT count(DISTINCT employee_id) FILTER (WHERE state = 'active'),
			count(DISTINCT employee_id) FILTER (WHERE state IN ('failed', 'rejected')) FROM employee_readiness`).Scan(&active, &stop); err != nil {
		t.Fatal(err)
	}
	if got.Funnel.CurrencyActive != active || got.NeedCounts[store.NeedOnboardingStop] != stop || got.Funnel.Invited != workers {
		t.Errorf("kept funnel %+v, stopped %d; counted %d active, %d stopped", got.Funnel, got.NeedCounts[store.NeedOnboardingStop], active, stop)
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM dashboard_count_moves`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d moves left unapplied (%v)", left, err)
	}
}

// The invites kept per hour (migration 0067) agree with counting them, and
// the week's invites with counting the index, after writers side by side
// invite, link, flag, delete and re-invite employees in transactions of
// several at once, in any order: nothing deadlocks, nothing drifts.
func TestDashboardUnlinkedHoursConcurrentWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	now := time.Now().UTC().Truncate(time.Second)
	const workers, rounds, per = 6, 20, 4
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			var mine []int64
			for r := range rounds {
				tx, err := db.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				for i := range per {
					// Invites around the week's cutoff, to the minute: some
					// in the cutoff's own hour, some either side.
					at := now.Add(-7*24*time.Hour + time.Duration(rng.IntN(240)-120)*time.Minute)
					var q string
					var args []any
					switch op := rng.IntN(5); {
					case op == 0 || len(mine) == 0:
						var id int64
						if err := tx.QueryRow(ctx, `INSERT INTO employees (kind, email, created_at) VALUES ('employee', $1, $2) RETURNING id`,
							fmt.Sprintf("h%d-%d-%d@partner.example", w, r, i), at).Scan(&id); err != nil {
							_ = tx.Rollback(ctx)
							errs <- err
							return
						}
						mine = append(mine, id)
						continue
					case op == 1:
						id := mine[rng.IntN(len(mine))]
						q, args = `UPDATE employees SET service_user_id = $2, invite_state = 'linked' WHERE id = $1`, []any{id, fmt.Sprintf("hu-%d", id)}
					case op == 2:
						q, args = `UPDATE employees SET action_required = CASE WHEN action_required = '' THEN 'Upload' ELSE '' END,
							updated_at = now() WHERE id = $1`, []any{mine[rng.IntN(len(mine))]}
					case op == 3:
						q, args = `UPDATE employees SET invite_state = CASE invite_state WHEN 'deleted' THEN 'invited' ELSE 'deleted' END
							WHERE id = $1`, []any{mine[rng.IntN(len(mine))]}
					default:
						q, args = `UPDATE employees SET created_at = $2, service_user_id = NULL, invite_state = 'invited' WHERE id = $1`,
							[]any{mine[rng.IntN(len(mine))], at}
					}
					if _, err := tx.Exec(ctx, q, args...); err != nil {
						_ = tx.Rollback(ctx)
						errs <- err
						return
					}
				}
				if err := tx.Commit(ctx); err != nil {
					errs <- fmt.Errorf("commit: %w", err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var drift int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM (
			SELECT hour, n, n_only FROM dashboard_unlinked_hours WHERE n <> 0 OR n_only <> 0
			EXCEPT ALL
			SELECT date_trunc('hour', unlinked_since, 'UTC'), count(*), count(*) FILTER (WHERE need_rank IS NULL)
			FROM dashboard_employees WHERE unlinked_since IS NOT NULL GROUP BY 1) d`).Scan(&drift); err != nil {
		t.Fatal(err)
	}
	var hours, counted int
	if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM dashboard_unlinked_hours WHERE n <> 0 OR n_only <> 0),
		(SELECT count(DISTINCT date_trunc('hour', unlinked_since, 'UTC')) FROM dashboard_employees WHERE unlinked_since IS NOT NULL)`).
		Scan(&hours, &counted); err != nil {
		t.Fatal(err)
	}
	if drift != 0 || hours != counted || counted < 2 {
		t.Errorf("invites per hour: %d kept rows differ from counting; %d hours kept, %d counted", drift, hours, counted)
	}
	for _, at := range []time.Time{now, now.Add(30 * time.Minute), now.Add(-90 * time.Minute), now.Add(time.Hour + 17*time.Second)} {
		got, err := st.HRDashboard(ctx, at, 10, []string{"USD"})
		if err != nil {
			t.Fatal(err)
		}
		var notLinked, total int
		if err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE unlinked_since < $1),
				count(*) FILTER (WHERE need_rank IS NOT NULL OR unlinked_since < $1) FROM dashboard_employees`,
			at.Add(-7*24*time.Hour)).Scan(&notLinked, &total); err != nil {
			t.Fatal(err)
		}
		if got.NeedCounts[store.NeedNotLinked] != notLinked || got.NeedTotal != total {
			t.Errorf("at %s: kept %d invited a week ago (%d needing action), counted %d (%d)", at, got.NeedCounts[store.NeedNotLinked],
				got.NeedTotal, notLinked, total)
		}
		if notLinked == 0 {
			t.Errorf("at %s: no invite a week old: the test checks nothing", at)
		}
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM dashboard_unlinked_moves`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d moves left unapplied (%v)", left, err)
	}
}
