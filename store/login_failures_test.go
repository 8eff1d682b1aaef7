package store_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
)

// TestLoginAttemptsArrivingAtOnceAreCountedInTurn: of many attempts under
// one key sent at once, no more than the limit are let through.
func TestLoginAttemptsArrivingAtOnceAreCountedInTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	warmPool(t, st)
	var allowed, limited atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 40 {
		wg.Go(func() {
			<-start
			// Keys in different orders must not deadlock.
			limits := []store.LoginLimit{{Key: "pair:a", Max: 5}, {Key: "addr:a", Max: 20}}
			if i%2 == 1 {
				limits = []store.LoginLimit{{Key: "addr:a", Max: 20}, {Key: "pair:a", Max: 5}}
			}
			a, err := st.BeginLoginAttempt(ctx, time.Minute, limits...)
			switch {
			case err != nil:
				t.Error(err)
			case a.Limited == "":
				allowed.Add(1)
			case a.Limited != "pair:a":
				t.Errorf("limited by %q", a.Limited)
			default:
				limited.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if allowed.Load() != 5 || limited.Load() != 35 {
		t.Fatalf("allowed %d, limited %d; want 5 and 35", allowed.Load(), limited.Load())
	}
}

func TestFinishLoginAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	count := func(key string) int {
		t.Helper()
		var n int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM login_failures WHERE key = $1`, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	limits := []store.LoginLimit{{Key: "pair:a", Max: 3}, {Key: "account:a", Max: 10}}
	begin := func() store.LoginAttempt {
		t.Helper()
		a, err := st.BeginLoginAttempt(ctx, time.Minute, limits...)
		if err != nil || a.Limited != "" {
			t.Fatalf("begin: %+v %v", a, err)
		}
		return a
	}
	// A failure stays counted, with its audit row.
	failed := begin()
	if err := st.FinishLoginAttempt(ctx, failed, store.LoginFailed, store.AuditEntry{Action: "auth.login", Outcome: store.OutcomeFailed}); err != nil {
		t.Fatal(err)
	}
	// An attempt never checked is taken back.
	if err := st.FinishLoginAttempt(ctx, begin(), store.LoginNotChecked, store.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	if count("pair:a") != 1 || count("account:a") != 1 {
		t.Fatalf("after a failure and an unchecked attempt: pair %d, account %d; want 1 and 1", count("pair:a"), count("account:a"))
	}
	// A success takes itself back and forgets the failures of the keys
	// named, not the others.
	if err := st.FinishLoginAttempt(ctx, begin(), store.LoginSucceeded, store.AuditEntry{Action: "auth.login", Outcome: store.OutcomeOK}, "pair:a"); err != nil {
		t.Fatal(err)
	}
	if count("pair:a") != 0 || count("account:a") != 1 {
		t.Fatalf("after a success: pair %d, account %d; want 0 and 1", count("pair:a"), count("account:a"))
	}
	rows, err := st.ListAudit(ctx, store.AuditFilter{Action: "auth.login"})
	if err != nil || len(rows) != 2 {
		t.Fatalf("audit: %d rows, %v; want 2", len(rows), err)
	}
	// Failures past the window no longer count.
	for range 3 {
		if err := st.FinishLoginAttempt(ctx, begin(), store.LoginFailed, store.AuditEntry{}); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := st.BeginLoginAttempt(ctx, time.Minute, limits...); err != nil || a.Limited != "pair:a" {
		t.Fatalf("fourth failure: %+v %v, want limited by pair:a", a, err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE login_failures SET at = now() - interval '2 minutes'`); err != nil {
		t.Fatal(err)
	}
	begin()
}

// A limit with no Max counts failures without ever refusing, and each
// attempt learns how many failures its keys had before it.
func TestLoginLimitWithoutMaxCountsAndNeverRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	for i := range 30 {
		a, err := st.BeginLoginAttempt(ctx, time.Minute, store.LoginLimit{Key: fmt.Sprintf("account:%d", i), Max: 3},
			store.LoginLimit{Key: "addr:a"})
		if err != nil {
			t.Fatal(err)
		}
		if a.Limited != "" {
			t.Fatalf("attempt %d limited by %q", i, a.Limited)
		}
		if len(a.Failures) != 2 || a.Failures[0] != 0 || a.Failures[1] != i {
			t.Fatalf("attempt %d: failures %v, want [0 %d]", i, a.Failures, i)
		}
		if err := st.FinishLoginAttempt(ctx, a, store.LoginFailed, store.AuditEntry{}); err != nil {
			t.Fatal(err)
		}
	}
}
