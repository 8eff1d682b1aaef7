package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
)

// activityNamesDrift counts the money events whose kept employee name is
// not what looking the employee up gives now.
func activityNamesDrift(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM activity a
		WHERE a.employee_name IS DISTINCT FROM (SELECT nullif(trim(e.first_name || ' ' || e.last_name), '')
			FROM employees e WHERE e.service_user_id = a.service_user_id)`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The name each money event carries (migration 0062) stays the one its
// employee has, while events are recorded and employees are renamed,
// linked to an id that already has events, and created, concurrently, from
// two pools (two replicas); the feed shows the names a lookup gives.
func TestActivityNamesFollowEmployees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := replicaStores(t, 2)
	st := stores[0]
	const people = 4
	var ids []int64
	for i := range people {
		e, err := st.UpsertEmployee(ctx, store.Employee{Email: fmt.Sprintf("p%d@partner.example", i), FirstName: fmt.Sprintf("First%d", i),
			LastName: "Okafor", ServiceUserID: fmt.Sprintf("u-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	// Ids with events before anyone has them: u-late-* are linked to an
	// existing employee, or given to a new one, during the run.
	sids := []string{"u-0", "u-1", "u-2", "u-3", "u-late-0", "u-late-1", "u-late-2", "u-late-3", ""}
	var webhooks atomic.Int64
	// record records an event in a transaction that, like the webhook
	// processing's, does more before it commits.
	record := func(s *store.Store, sid string, more time.Duration) error {
		tx, err := s.Pool().Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx) //nolint:errcheck // after Commit, a no-op
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
			VALUES ($1, 'x', '{}', 'processed', now()) RETURNING id`, fmt.Sprintf("wh-%d", webhooks.Add(1))).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
			VALUES ($1, $2, 'deposit', 'x', 'completed', 5, 'USDB', now())`, id, sid); err != nil {
			return err
		}
		time.Sleep(more)
		return tx.Commit(ctx)
	}
	for _, sid := range sids {
		if err := record(st, sid, 0); err != nil {
			t.Fatal(err)
		}
	}
	if d := activityNamesDrift(t, st); d != 0 {
		t.Fatalf("%d events carry another name than their employee's", d)
	}
	const workers = 6
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 62))
			s := stores[w%2]
			for i := range 50 {
				var err error
				switch {
				case w%3 != 0:
					err = record(s, sids[rng.IntN(len(sids))], time.Duration(rng.IntN(3))*time.Millisecond)
				case w == 0 && rng.IntN(3) == 0:
					// A new employee, or one linked again, takes an id
					// events already name (one worker: two would race for
					// the unique id themselves).
					late := fmt.Sprintf("u-late-%d", rng.IntN(4))
					if rng.IntN(2) == 0 {
						_, err = s.Pool().Exec(ctx, `UPDATE employees SET service_user_id = NULL WHERE service_user_id = $1`, late)
						if err == nil {
							_, err = s.Pool().Exec(ctx, `UPDATE employees SET service_user_id = $2 WHERE id = $1
								AND NOT EXISTS (SELECT 1 FROM employees WHERE service_user_id = $2)`, ids[rng.IntN(people)], late)
						}
					} else {
						_, err = s.Pool().Exec(ctx, `INSERT INTO employees (email, first_name, last_name, service_user_id)
							SELECT $1, $2, 'Bello', $3 WHERE NOT EXISTS (SELECT 1 FROM employees WHERE service_user_id = $3)`,
							fmt.Sprintf("late%d-%d@partner.example", w, i), fmt.Sprintf("Late%d", i), late)
					}
				default:
					_, err = s.Pool().Exec(ctx, `UPDATE employees SET first_name = $2, last_name = $3 WHERE id = $1`,
						ids[rng.IntN(people)], fmt.Sprintf("Renamed%d-%d", w, i), []string{"Eze", "", "Adeyemi"}[rng.IntN(3)])
				}
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(time.Duration(rng.IntN(2)) * time.Millisecond)
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if d := activityNamesDrift(t, st); d != 0 {
		t.Fatalf("after concurrent writers, %d events carry another name than their employee's", d)
	}
	// The feed shows, for every line, what looking the employee up gives.
	feed, err := st.ActivityFeed(ctx, store.FeedFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(feed) != int(webhooks.Load()) {
		t.Fatalf("feed has %d lines, %d events recorded", len(feed), webhooks.Load())
	}
	named := 0
	for _, l := range feed {
		var want string
		err := st.Pool().QueryRow(ctx, `SELECT coalesce((SELECT nullif(trim(first_name || ' ' || last_name), '')
			FROM employees WHERE service_user_id = $1), '')`, l.ServiceUserID).Scan(&want)
		if err != nil {
			t.Fatal(err)
		}
		if l.Employee != want {
			t.Fatalf("line %s of %q names %q, want %q", l.Key, l.ServiceUserID, l.Employee, want)
		}
		if want != "" {
			named++
		}
	}
	if named == 0 {
		t.Fatal("no line names an employee: the test checked nothing")
	}
	// An employee removed leaves its events unnamed.
	if _, err := st.Pool().Exec(ctx, `DELETE FROM employees WHERE email LIKE 'late%'`); err != nil {
		t.Fatal(err)
	}
	if d := activityNamesDrift(t, st); d != 0 {
		t.Fatalf("after removals, %d events carry another name than their employee's", d)
	}
}
