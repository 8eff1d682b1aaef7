package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// proposalNamesDrift counts the proposals whose kept copy of a person's
// names differs from what looking the person up gives now.
func proposalNamesDrift(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM proposals p
		LEFT JOIN employees o ON o.service_user_id = p.owner_user_id
		LEFT JOIN employees r ON r.service_user_id = p.to_user_id AND p.to_user_id <> ''
		WHERE (p.owner_kept AND (p.owner_first_name, p.owner_last_name, p.owner_email) IS DISTINCT FROM (o.first_name, o.last_name, o.email))
		   OR (p.to_kept AND (p.to_first_name, p.to_last_name, p.to_email) IS DISTINCT FROM (r.first_name, r.last_name, r.email))`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The names each proposal carries (migration 0063) stay those of its owner
// and recipient while proposals are written (new, and with a new
// recipient) and employees are renamed, linked to ids proposals already
// name and created, concurrently, from two pools (two replicas); the
// queue's page names everyone as looking them up does.
func TestProposalNamesFollowEmployees(t *testing.T) {
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
	sids := []string{"u-0", "u-1", "u-2", "u-3", "u-late-0", "u-late-1", "u-late-2"}
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	write := func(s *store.Store, rng *rand.Rand, id string, n int) error {
		to := sids[rng.IntN(len(sids))]
		if rng.IntN(4) == 0 {
			to = ""
		}
		_, err := s.UpsertProposal(ctx, store.Proposal{ID: id, WalletID: "w-1", OwnerUserID: sids[rng.IntN(len(sids))], ToUserID: to,
			Type: "TRANSFER", Status: store.ProposalPendingApprovals, Currency: "USDB", Amount: decimal.RequireFromString("5"),
			RequiredApprovals: 1, CreatedAt: t0, UpdatedAt: t0.Add(time.Duration(n) * time.Millisecond)})
		return err
	}
	const workers = 6
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 63))
			s := stores[w%2]
			for i := range 40 {
				var err error
				switch {
				case w%3 != 0:
					// A new proposal, or one written again with a new
					// recipient (a newer answer).
					id := fmt.Sprintf("p-%d-%d", w, i)
					if i > 0 && rng.IntN(3) == 0 {
						id = fmt.Sprintf("p-%d-%d", w, rng.IntN(i))
					}
					err = write(s, rng, id, i+1)
				case w == 0 && rng.IntN(3) == 0:
					// An employee linked to, or created with, an id
					// proposals already name (one worker: two would race
					// for the unique id themselves).
					late := fmt.Sprintf("u-late-%d", rng.IntN(3))
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
					_, err = s.Pool().Exec(ctx, `UPDATE employees SET first_name = $2, email = $3 WHERE id = $1`,
						ids[rng.IntN(people)], fmt.Sprintf("Renamed%d-%d", w, i), fmt.Sprintf("renamed%d-%d@partner.example", w, i))
				}
				if err != nil {
					errs <- fmt.Errorf("%w: %s", err, pgDetail(err))
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
	if d := proposalNamesDrift(t, st); d != 0 {
		t.Fatalf("after concurrent writers, %d proposals carry another name than their people's", d)
	}
	checkPage := func() {
		t.Helper()
		page, err := st.ListQueuePage(ctx, store.QueueFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Rows) == 0 {
			t.Fatal("no proposal in the queue: the test checked nothing")
		}
		want, err := st.EmployeesByServiceUserIDs(ctx, sids)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page.Rows {
			for _, sid := range []string{p.OwnerUserID, p.ToUserID} {
				if sid == "" {
					continue
				}
				got, ok := page.Names[sid]
				w, known := want[sid]
				if ok != known || got.FirstName != w.FirstName || got.LastName != w.LastName || got.Email != w.Email {
					t.Fatalf("proposal %s names %s %+v (%v), the lookup %+v (%v)", p.ID, sid, got, ok, w, known)
				}
			}
		}
	}
	checkPage()
	// A row whose copy is not kept (a rewrite held the lock when it was
	// written) is looked up.
	if _, err := st.Pool().Exec(ctx, `UPDATE proposals SET owner_kept = false, owner_first_name = 'stale', to_kept = false, to_email = 'stale'`); err != nil {
		t.Fatal(err)
	}
	checkPage()
	// An employee removed leaves the proposals naming it without a name.
	if _, err := st.Pool().Exec(ctx, `UPDATE proposals SET owner_kept = true, owner_first_name = o.first_name, owner_last_name = o.last_name,
		owner_email = o.email FROM employees o WHERE o.service_user_id = proposals.owner_user_id`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM employees WHERE email LIKE 'late%'`); err != nil {
		t.Fatal(err)
	}
	if d := proposalNamesDrift(t, st); d != 0 {
		t.Fatalf("after removals, %d proposals carry another name than their people's", d)
	}
}

// pgDetail is PostgreSQL's detail of err (a deadlock's cycle), "" when none.
func pgDetail(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}
