package handlers_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func newActions(t *testing.T) (*handlers.Actions, *store.Store) {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	return handlers.NewActions(st, slog.New(slog.DiscardHandler)), st
}

func audits(t *testing.T, st *store.Store, kind string) []string {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT outcome FROM audit_log WHERE action = $1 ORDER BY id`, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// made records a local change in the finishing transaction.
func made(email string) func(ctx context.Context, tx *store.Store) error {
	return func(ctx context.Context, tx *store.Store) error {
		_, err := tx.UpsertEmployee(ctx, store.Employee{Email: email, FirstName: "Made"})
		return err
	}
}

func exists(t *testing.T, st *store.Store, email string) bool {
	t.Helper()
	_, err := st.EmployeeByEmail(context.Background(), email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// Five concurrent runs of one key make one call and one audit row; the
// others learn what the first did. A new key is a new action.
func TestRunCallsOnceForOneKey(t *testing.T) {
	ctx := context.Background()
	x, st := newActions(t)
	var calls atomic.Int32
	release := make(chan struct{})
	w := handlers.Write{Key: "form:one", Kind: "test.create", Target: "thing:", Actor: store.Actor{},
		Request: map[string]string{"amount": "1.50"},
		Call: func(ctx context.Context) (handlers.Effect, error) {
			calls.Add(1)
			<-release
			return handlers.Effect{Target: "thing:7", Result: map[string]string{"id": "7"}, Apply: made("one@partner.example")}, nil
		}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var repeats, fresh int
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := x.Run(ctx, w)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if d.Repeat {
				repeats++
			} else {
				fresh++
			}
		}()
	}
	// Let the repeats see the first action while its call is in flight.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		r := repeats
		mu.Unlock()
		if r == 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	if calls.Load() != 1 || fresh != 1 || repeats != 4 {
		t.Fatalf("calls %d, fresh %d, repeats %d", calls.Load(), fresh, repeats)
	}
	a, err := st.ActionByKey(ctx, "form:one")
	if err != nil || a.State != store.ActionDone || a.Target != "thing:7" {
		t.Fatalf("action %+v %v", a, err)
	}
	if got := audits(t, st, "test.create"); len(got) != 1 || got[0] != store.OutcomeOK {
		t.Fatalf("audit rows %v", got)
	}
	if !exists(t, st, "one@partner.example") {
		t.Fatal("the done action's local change is missing")
	}
	// A second token for the same intent is a new action.
	w.Key = "form:two"
	w.Call = func(ctx context.Context) (handlers.Effect, error) { calls.Add(1); return handlers.Effect{}, nil }
	d, err := x.Run(ctx, w)
	if err != nil || d.Repeat || calls.Load() != 2 {
		t.Fatalf("second token: %+v %v calls %d", d, err, calls.Load())
	}
	// The same key for another kind of write is refused.
	w.Kind = "test.other"
	if _, err := x.Run(ctx, w); !errors.Is(err, handlers.ErrKeyReused) {
		t.Fatalf("key reused for another kind: %v", err)
	}
}

// A refusal is recorded in words, changes nothing else, and is audited.
func TestRunRecordsARefusal(t *testing.T) {
	ctx := context.Background()
	x, st := newActions(t)
	refusal := &apiclient.Error{Op: "CreateTransferProposal", StatusCode: http.StatusBadRequest, Messages: []string{"amount must be positive"}}
	d, err := x.Run(ctx, handlers.Write{Key: "k", Kind: "test.create", Call: func(ctx context.Context) (handlers.Effect, error) {
		return handlers.Effect{Apply: made("never@partner.example")}, refusal
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d.State() != store.ActionRefused || d.Problem.Kind != apiclient.Refused || d.Action.Message == "" || d.Err == nil {
		t.Fatalf("refused: %+v", d)
	}
	if exists(t, st, "never@partner.example") {
		t.Fatal("a refused action applied its change")
	}
	if got := audits(t, st, "test.create"); len(got) != 1 || got[0] != store.OutcomeRefused {
		t.Fatalf("audit rows %v", got)
	}
}

// No answer: the write is read back, never sent again. Recorded upstream →
// done with its change; not recorded → unknown until the recovery job
// concludes.
func TestRunReadsBackAnUnknownOutcome(t *testing.T) {
	ctx := context.Background()
	x, st := newActions(t)
	var recorded atomic.Bool
	x.ReadBackFor("test.create", func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req struct{ Email string }
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if !recorded.Load() {
			return handlers.Effect{}, false, nil
		}
		return handlers.Effect{Target: "thing:read", Apply: made(req.Email)}, true, nil
	})
	var calls atomic.Int32
	timeout := func(ctx context.Context) (handlers.Effect, error) {
		calls.Add(1)
		return handlers.Effect{}, errors.New("read tcp: i/o timeout")
	}

	recorded.Store(true)
	d, err := x.Run(ctx, handlers.Write{Key: "a", Kind: "test.create", Request: map[string]string{"Email": "a@partner.example"}, Call: timeout})
	if err != nil {
		t.Fatal(err)
	}
	if d.State() != store.ActionDone || d.Action.Target != "thing:read" || !exists(t, st, "a@partner.example") {
		t.Fatalf("recorded upstream: %+v", d)
	}

	recorded.Store(false)
	d, err = x.Run(ctx, handlers.Write{Key: "b", Kind: "test.create", Request: map[string]string{"Email": "b@partner.example"}, Call: timeout})
	if err != nil {
		t.Fatal(err)
	}
	if d.State() != store.ActionUnknown || d.Problem.Kind != apiclient.Unknown || d.Action.Message == "" {
		t.Fatalf("not recorded yet: %+v", d)
	}
	if calls.Load() != 2 {
		t.Fatalf("%d calls", calls.Load())
	}
	// Too early to conclude: nothing changes.
	if n, err := x.Recover(ctx, time.Now()); err != nil || n != 0 {
		t.Fatalf("early recovery settled %d: %v", n, err)
	}
	// Later, still not recorded: the recovery job concludes nothing happened.
	if n, err := x.Recover(ctx, time.Now().Add(10*time.Minute)); err != nil || n != 1 {
		t.Fatalf("recovery settled %d: %v", n, err)
	}
	a, _ := st.ActionByKey(ctx, "b")
	if a.State != store.ActionRefused || exists(t, st, "b@partner.example") {
		t.Fatalf("after recovery: %+v", a)
	}
	if calls.Load() != 2 {
		t.Fatalf("recovery called upstream: %d calls", calls.Load())
	}
	if got := audits(t, st, "test.create"); len(got) != 3 {
		t.Fatalf("audit rows %v (want done, unknown, refused)", got)
	}
}

// A process that died between begin and call leaves a begun action; the
// recovery job reads it back and finishes it.
func TestRecoverFinishesABegunAction(t *testing.T) {
	ctx := context.Background()
	x, st := newActions(t)
	x.ReadBackFor("test.create", func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		return handlers.Effect{Apply: made("late@partner.example")}, true, nil
	})
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: "crashed", Kind: "test.create"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: "no-read-back", Kind: "test.opaque"}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Recover(ctx, time.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	a, _ := st.ActionByKey(ctx, "crashed")
	if a.State != store.ActionDone || !exists(t, st, "late@partner.example") {
		t.Fatalf("crashed action: %+v", a)
	}
	// A kind that cannot be read back waits for a person, in words.
	b, _ := st.ActionByKey(ctx, "no-read-back")
	if b.State != store.ActionUnknown || b.Message == "" {
		t.Fatalf("opaque action: %+v", b)
	}
}

// A local change under a key is made once, with its audit row; a refusal
// from the change is recorded refused and changes nothing; the key found
// again is a repeat, and another person's post of it is a reused form.
func TestRunLocalOnceAndSeen(t *testing.T) {
	ctx := context.Background()
	x, st := newActions(t)
	ann, err := st.CreateStaff(ctx, store.NewStaff{Email: "ann@example.com", Name: "Ann", PasswordHash: "x", Role: store.RoleFinanceApprover}, store.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := st.CreateStaff(ctx, store.NewStaff{Email: "bob@example.com", Name: "Bob", PasswordHash: "x", Role: store.RoleFinanceApprover}, store.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	changes := 0
	l := handlers.Local{Key: "form:local", Kind: "test.local", Target: "thing:1", Actor: ann.Actor(), Detail: "made",
		Change: func(ctx context.Context, tx *store.Store) error {
			changes++
			return made("local@partner.example")(ctx, tx)
		}}
	if _, seen, err := x.Seen(ctx, l.Key, l.Kind, ann.Actor()); seen || err != nil {
		t.Fatalf("new key seen %v %v", seen, err)
	}
	d, err := x.RunLocal(ctx, l)
	if err != nil || d.Repeat || d.State() != store.ActionDone || !exists(t, st, "local@partner.example") {
		t.Fatalf("first: %+v %v", d, err)
	}
	d, err = x.RunLocal(ctx, l)
	if err != nil || !d.Repeat || changes != 1 {
		t.Fatalf("again: %+v %v changes %d", d, err, changes)
	}
	if a, seen, err := x.Seen(ctx, l.Key, l.Kind, ann.Actor()); !seen || err != nil || a.State != store.ActionDone {
		t.Fatalf("seen %+v %v %v", a, seen, err)
	}
	if _, seen, err := x.Seen(ctx, l.Key, l.Kind, bob.Actor()); !seen || !errors.Is(err, handlers.ErrKeyReused) {
		t.Fatalf("another person's post: %v %v", seen, err)
	}
	l.Actor = bob.Actor()
	if _, err := x.RunLocal(ctx, l); !errors.Is(err, handlers.ErrKeyReused) {
		t.Fatalf("another person's run: %v", err)
	}
	no := handlers.Local{Key: "form:no", Kind: "test.local", Actor: ann.Actor(), Detail: "made",
		Change: func(ctx context.Context, tx *store.Store) error {
			if err := made("never@partner.example")(ctx, tx); err != nil {
				return err
			}
			return handlers.Refusal("not now")
		}}
	d, err = x.RunLocal(ctx, no)
	if err != nil || d.State() != store.ActionRefused || d.Action.Message != "not now" || exists(t, st, "never@partner.example") {
		t.Fatalf("refused: %+v %v", d, err)
	}
	if got := audits(t, st, "test.local"); len(got) != 2 || got[0] != store.OutcomeOK || got[1] != store.OutcomeRefused {
		t.Fatalf("audit rows %v", got)
	}
}

// A shared key (a natural key any person may reach) found again by another
// person is a repeat; a form key is not.
func TestRunSharedKey(t *testing.T) {
	ctx := context.Background()
	x, st := newActions(t)
	ann, err := st.CreateStaff(ctx, store.NewStaff{Email: "ann@example.com", Name: "Ann", PasswordHash: "x", Role: store.RoleFinanceApprover}, store.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := st.CreateStaff(ctx, store.NewStaff{Email: "bob@example.com", Name: "Bob", PasswordHash: "x", Role: store.RoleFinanceApprover}, store.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	call := func(ctx context.Context) (handlers.Effect, error) { calls++; return handlers.Effect{}, nil }
	for _, key := range []string{"natural:1", "form:1"} {
		shared := key == "natural:1"
		w := handlers.Write{Key: key, Kind: "test.approve", Actor: ann.Actor(), Shared: shared, Call: call}
		if _, err := x.Run(ctx, w); err != nil {
			t.Fatal(err)
		}
		w.Actor = bob.Actor()
		d, err := x.Run(ctx, w)
		if !d.Repeat || (err == nil) != shared || (err != nil && !errors.Is(err, handlers.ErrKeyReused)) {
			t.Fatalf("%s by another person: %+v %v", key, d, err)
		}
	}
	if calls != 2 {
		t.Fatalf("%d calls, want one per key", calls)
	}
}
