package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// queueTotalCounted is the filter's total counted row by row, as the queue
// counted it before migration 0054 kept it.
func queueTotalCounted(t *testing.T, st *store.Store, status, typ string) int {
	t.Helper()
	var n int
	err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM proposals
		WHERE status IN ('PENDING_APPROVALS', 'PENDING_SIGNATURES', 'SUBMITTED', 'READY_TO_EXECUTE', 'EXECUTING', 'FAILED')
		AND ($1 = '' OR status = $1) AND ($2 = '' OR type = $2)`, status, typ).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The queue's total comes from counts the proposals' trigger keeps: after
// proposals are created, move through their states (into and out of the
// queue, concurrently, several in one transaction in random orders) and
// are deleted, the total of every state and type filter is what counting
// the rows gives, and no move is left unapplied.
func TestQueueTotalsStayHonest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	statuses := []store.ProposalStatus{store.ProposalPendingApprovals, store.ProposalPendingSignatures, store.ProposalSubmitted,
		store.ProposalFailed, store.ProposalCompleted, store.ProposalRejected}
	types := []string{"TRANSFER", "SWAP", "CARD_ISSUANCE"}
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	const n = 60
	for i := range n {
		p := store.Proposal{ID: fmt.Sprintf("pq-%02d", i), WalletID: "w1", OwnerUserID: "u1", Type: types[i%len(types)],
			Status: statuses[i%len(statuses)], Currency: "USDB", Amount: decimal.RequireFromString("5"), RequiredApprovals: 1,
			CreatedAt: t0.Add(time.Duration(i) * time.Millisecond), UpdatedAt: t0}
		if _, err := st.UpsertProposal(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	const workers = 6
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 54))
			for range 15 {
				tx, err := db.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				// The proposals' own rows in id order (their locks are not
				// what is tested); the counts each moves, in any order.
				picked := rng.Perm(n)[:3]
				slices.Sort(picked)
				for _, i := range picked {
					id := fmt.Sprintf("pq-%02d", i)
					if _, err := tx.Exec(ctx, `UPDATE proposals SET status = $2, type = $3 WHERE id = $1`, id,
						statuses[rng.IntN(len(statuses))], types[rng.IntN(len(types))]); err != nil {
						_ = tx.Rollback(ctx)
						errs <- fmt.Errorf("move %s: %w", id, err)
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
	// A rolled-back move leaves the counts alone; a deletion moves them.
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE proposals SET status = 'FAILED'`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `DELETE FROM proposals WHERE id IN ('pq-01', 'pq-02', 'pq-03')`); err != nil {
		t.Fatal(err)
	}
	check := func(status store.ProposalStatus, typ string) {
		t.Helper()
		page, err := st.ListQueuePage(ctx, store.QueueFilter{Status: status, Type: typ, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if want := queueTotalCounted(t, st, string(status), typ); page.Total != want || page.TotalOver {
			t.Errorf("status %q type %q: total %d (over %v), counted %d", status, typ, page.Total, page.TotalOver, want)
		}
	}
	check("", "")
	for _, s := range []store.ProposalStatus{"", store.ProposalPendingApprovals, store.ProposalPendingSignatures, store.ProposalFailed} {
		for _, typ := range append([]string{""}, types...) {
			check(s, typ)
		}
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM queue_count_moves`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d moves left unapplied (%v)", left, err)
	}
}

// A filter the counts do not keep (a person, whose approval is needed) is
// counted up to store.QueueCountCap: past it the page says there are more.
func TestQueueTotalOfOtherFiltersIsCountedUpToTheCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := st.Pool().Exec(ctx, `INSERT INTO proposals (id, wallet_id, owner_user_id, type, status, required_approvals,
			upstream_created_at, upstream_updated_at)
		SELECT 'pc-' || i, 'w1', CASE WHEN i % 2 = 0 THEN 'u-even' ELSE 'u-odd' END, 'TRANSFER', 'PENDING_APPROVALS', 1,
			$1::timestamptz + i * interval '1 ms', $1
		FROM generate_series(1, $2) i`, t0, 2*store.QueueCountCap+10); err != nil {
		t.Fatal(err)
	}
	page, err := st.ListQueuePage(ctx, store.QueueFilter{UserID: "u-even", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != store.QueueCountCap || !page.TotalOver || len(page.Rows) != 50 {
		t.Errorf("u-even (%d proposals): total %d, over %v, %d rows", store.QueueCountCap+5, page.Total, page.TotalOver, len(page.Rows))
	}
	exact, err := st.ListQueuePage(ctx, store.QueueFilter{UserID: "u-even", Limit: 50, ExactTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	if exact.Total != store.QueueCountCap+5 || exact.TotalOver {
		t.Errorf("u-even counted to the end: total %d, over %v", exact.Total, exact.TotalOver)
	}
	page, err = st.ListQueuePage(ctx, store.QueueFilter{NeedsApprovalBy: "someone", Status: store.ProposalPendingApprovals,
		BeforeAt: t0.Add(20 * time.Millisecond), BeforeID: "pc-20", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != store.QueueCountCap || !page.TotalOver {
		t.Errorf("needs someone's approval, an older page: total %d, over %v", page.Total, page.TotalOver)
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM proposals WHERE owner_user_id = 'u-odd' OR id NOT IN
		(SELECT id FROM proposals ORDER BY upstream_created_at LIMIT 30)`); err != nil {
		t.Fatal(err)
	}
	page, err = st.ListQueuePage(ctx, store.QueueFilter{UserID: "u-even", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 15 || page.TotalOver || len(page.Rows) != 10 {
		t.Errorf("u-even (15 proposals): total %d, over %v, %d rows", page.Total, page.TotalOver, len(page.Rows))
	}
	all, err := st.ListQueuePage(ctx, store.QueueFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != 15 || all.TotalOver {
		t.Errorf("whole queue: total %d, over %v, want 15 from the kept counts", all.Total, all.TotalOver)
	}
}
