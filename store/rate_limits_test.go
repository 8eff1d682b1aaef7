package store_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/store"
)

func TestRateLimitHitCountsPerKeyWithinTheWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	for i := range 3 {
		ok, err := st.RateLimitHit(ctx, "sign:10.0.0.1", time.Minute, 3)
		if err != nil || !ok {
			t.Fatalf("hit %d: %v %v", i, ok, err)
		}
	}
	if ok, _ := st.RateLimitHit(ctx, "sign:10.0.0.1", time.Minute, 3); ok {
		t.Fatal("fourth hit allowed")
	}
	if ok, _ := st.RateLimitHit(ctx, "sign:10.0.0.2", time.Minute, 3); !ok {
		t.Fatal("another client refused")
	}
	// Outside the window the earlier hits no longer count.
	if _, err := st.Pool().Exec(ctx, `UPDATE rate_limit_hits SET at = now() - interval '2 minutes'`); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.RateLimitHit(ctx, "sign:10.0.0.1", time.Minute, 3); !ok {
		t.Fatal("refused after the window")
	}
	if n, err := st.PruneRateLimitHits(ctx, time.Now().Add(-time.Minute)); err != nil || n != 5 {
		t.Fatalf("pruned %d, %v; want the 5 old hits", n, err)
	}
}

func TestPruneSessionsDeletesOnlyExpiredOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	_, err := st.Pool().Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES
		('old', '\x00', now() - interval '1 minute'), ('live', '\x00', now() + interval '1 hour')`)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.PruneSessions(ctx); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want the one expired session", n, err)
	}
	if _, _, found, err := st.FindSession(ctx, "live"); err != nil || !found {
		t.Fatalf("the live session is gone: %v", err)
	}
}

// TestRateLimitHitsArrivingAtOnceAreCountedInTurn: of many requests under
// one key sent at once, no more than the limit are allowed.
func TestRateLimitHitsArrivingAtOnceAreCountedInTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	warmPool(t, st)
	for round := range 10 {
		key := fmt.Sprintf("sign:10.0.0.%d", round)
		var allowed atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 40 {
			wg.Go(func() {
				<-start
				ok, err := st.RateLimitHit(ctx, key, time.Minute, 5)
				if err != nil {
					t.Error(err)
				}
				if ok {
					allowed.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if n := allowed.Load(); n != 5 {
			t.Fatalf("round %d: %d allowed at once, want 5", round, n)
		}
	}
}

// warmPool opens every connection of the pool, so that requests sent at once
// run at once instead of waiting for connections to be made one by one.
func warmPool(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	var conns []*pgxpool.Conn
	for range st.Pool().Config().MaxConns {
		c, err := st.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
}
