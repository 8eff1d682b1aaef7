package handlers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestPasswordHashRoundTrip(t *testing.T) {
	ctx := context.Background()
	hash, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := CheckPassword(ctx, hash, "correct horse battery"); err != nil || !ok {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, err := CheckPassword(ctx, hash, "wrong horse battery"); err != nil || ok {
		t.Fatalf("wrong password: %v %v", ok, err)
	}
	// A hash asking for more memory than the whole budget is refused
	// instead of run.
	huge := "$argon2id$v=19$m=4194304,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	if _, err := CheckPassword(ctx, huge, "x"); !errors.Is(err, errBadHash) {
		t.Fatalf("4 GiB hash: %v, want refused", err)
	}
}

// TestPasswordHashesShareTheMemoryBudget: no more argon2id computations run
// at once than the budget holds, and one that finds no room within the wait
// is refused as busy.
func TestPasswordHashesShareTheMemoryBudget(t *testing.T) {
	b := newMemoryBudget(4 * argonMemory)
	var running, most atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			release, err := b.acquire(context.Background(), argonMemory, 0)
			if err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			// Some real work while holding the memory.
			_ = HashLinkToken(GeneratePassword())
			running.Add(-1)
			release()
		})
	}
	wg.Wait()
	if m := most.Load(); m < 1 || m > 4 {
		t.Fatalf("%d ran at once, want at most 4", m)
	}

	// Full budget: a check waits, then is refused as busy, without hashing.
	var held []func()
	for range 4 {
		release, err := passwordMemory.acquire(context.Background(), argonMemory, 0)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	hash := "$argon2id$v=19$m=32768,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	if _, err := CheckPassword(context.Background(), hash, "x"); !errors.Is(err, ErrPasswordBusy) {
		t.Fatalf("check with the budget full: %v, want ErrPasswordBusy", err)
	}
	if _, err := HashPasswordContext(context.Background(), "x"); !errors.Is(err, ErrPasswordBusy) {
		t.Fatalf("hash with the budget full: %v, want ErrPasswordBusy", err)
	}
	// Room made while one waits lets it through.
	done := make(chan error)
	go func() {
		_, err := CheckPassword(context.Background(), hash, "x")
		done <- err
	}()
	held[0]()
	if err := <-done; err != nil {
		t.Fatalf("check after room was made: %v", err)
	}
	for _, release := range held[1:] {
		release()
	}
}
