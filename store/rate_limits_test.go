package store_test

import (
	"context"
	"testing"
	"time"
)

func TestRateLimitHitCountsPerKeyWithinTheWindow(t *testing.T) {
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
