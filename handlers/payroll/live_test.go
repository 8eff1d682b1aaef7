package payroll

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
)

// The poll's memo answers from one read for liveTTL, then reads again: a
// change is shown at most liveTTL late, on every replica (each keeps its
// own); concurrent polls share one read; a failed read is not kept.
func TestLiveMemoStaysHonest(t *testing.T) {
	var lm liveMemo
	var reads atomic.Int64
	state := "sending"
	load := func(context.Context) (liveData, error) {
		reads.Add(1)
		return liveData{sum: store.PayrollSummary{States: []store.PayrollStateSum{{State: state}}}}, nil
	}
	key := liveKey{run: 1}
	t0 := time.Unix(1_800_000_000, 0)
	ctx := context.Background()
	get := func(at time.Time) string {
		t.Helper()
		d, err := lm.get(ctx, key, at, load)
		if err != nil {
			t.Fatal(err)
		}
		return d.sum.States[0].State
	}
	if got := get(t0); got != "sending" || reads.Load() != 1 {
		t.Fatalf("first: %s, %d reads", got, reads.Load())
	}
	state = "sent"
	if got := get(t0.Add(liveTTL - time.Millisecond)); got != "sending" || reads.Load() != 1 {
		t.Fatalf("within the TTL: %s, %d reads", got, reads.Load())
	}
	if got := get(t0.Add(liveTTL)); got != "sent" || reads.Load() != 2 {
		t.Fatalf("after the TTL the change must show: %s, %d reads", got, reads.Load())
	}
	// A clock that went back reads again rather than trusting the future.
	if got := get(t0); got != "sent" || reads.Load() != 3 {
		t.Fatalf("clock back: %s, %d reads", got, reads.Load())
	}
	// Another window of the same run is another read.
	if _, err := lm.get(ctx, liveKey{run: 1, win: rowWindow{State: "refused"}}, t0, load); err != nil || reads.Load() != 4 {
		t.Fatalf("other window: %v, %d reads", err, reads.Load())
	}

	// Concurrent polls share one read.
	var slow liveMemo
	var n atomic.Int64
	release := make(chan struct{})
	blocking := func(context.Context) (liveData, error) {
		n.Add(1)
		<-release
		return liveData{}, nil
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := slow.get(ctx, key, t0, blocking); err != nil {
				t.Error(err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n.Load() != 1 {
		t.Fatalf("%d reads for 8 concurrent polls", n.Load())
	}

	// A failed read is not kept.
	var failing liveMemo
	boom := errors.New("boom")
	if _, err := failing.get(ctx, key, t0, func(context.Context) (liveData, error) { return liveData{}, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if _, err := failing.get(ctx, key, t0, load); err != nil {
		t.Fatalf("a failed read was kept: %v", err)
	}
}
