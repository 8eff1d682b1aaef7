package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"partneradmin/store"
)

func auditCount(t *testing.T, st *store.Store, action string) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE action = $1`, action).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Five concurrent begins with one key: one is fresh, the others see it.
func TestBeginActionOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	fresh := 0
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, isNew, err := st.BeginAction(ctx, store.NewAction{Key: "form:k1", Kind: "test.write", Target: "thing:1", Request: map[string]string{"amount": "1.50"}})
			if err != nil {
				t.Error(err)
				return
			}
			if a.Key != "form:k1" || a.State != store.ActionBegun {
				t.Errorf("action: %+v", a)
			}
			if isNew {
				mu.Lock()
				fresh++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if fresh != 1 {
		t.Fatalf("%d fresh begins, want 1", fresh)
	}
}

// Finishing writes the ledger row, the local change and the audit row
// together; a second finish changes nothing.
func TestFinishActionCommitsChangeAndAuditTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: "k", Kind: "test.write"}); err != nil {
		t.Fatal(err)
	}
	applied := false
	a, err := st.FinishAction(ctx, "k", store.Finish{State: store.ActionDone, Target: "thing:9", Result: map[string]string{"id": "9"},
		Detail: "made thing 9", Apply: func(ctx context.Context, tx *store.Store) error {
			applied = true
			_, err := tx.UpsertEmployee(ctx, store.Employee{Email: "made@partner.example", FirstName: "Made"})
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !applied || a.State != store.ActionDone || a.Target != "thing:9" || a.FinishedAt == nil {
		t.Fatalf("finished: %+v", a)
	}
	var res struct{ ID string }
	if err := a.DecodeResult(&res); err != nil || res.ID != "9" {
		t.Fatalf("result %+v %v", res, err)
	}
	if n := auditCount(t, st, "test.write"); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
	again, err := st.FinishAction(ctx, "k", store.Finish{State: store.ActionRefused, Message: "late"})
	if !errors.Is(err, store.ErrActionFinished) || again.State != store.ActionDone {
		t.Fatalf("second finish: %+v %v", again, err)
	}
	if n := auditCount(t, st, "test.write"); n != 1 {
		t.Fatalf("%d audit rows after a second finish", n)
	}
}

// An audit write that fails fails the whole finish: the local change rolls
// back and the action stays open for the recovery job.
func TestFinishActionFailsWithItsAuditRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	if _, err := st.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'audit refused'; END $$;
		CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: "k", Kind: "test.write"}); err != nil {
		t.Fatal(err)
	}
	_, err := st.FinishAction(ctx, "k", store.Finish{State: store.ActionDone, Apply: func(ctx context.Context, tx *store.Store) error {
		_, err := tx.UpsertEmployee(ctx, store.Employee{Email: "ghost@partner.example", FirstName: "Ghost"})
		return err
	}})
	if err == nil {
		t.Fatal("finish succeeded without its audit row")
	}
	if _, err := st.EmployeeByEmail(ctx, "ghost@partner.example"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the local change was kept without its audit row: %v", err)
	}
	a, err := st.ActionByKey(ctx, "k")
	if err != nil || a.State != store.ActionBegun {
		t.Fatalf("action after a failed finish: %+v %v", a, err)
	}
}

// An unknown outcome is audited once however often it is read back.
func TestUnknownActionAuditedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: "k", Kind: "test.write"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := st.FinishAction(ctx, "k", store.Finish{State: store.ActionUnknown, Message: "no answer"}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := st.ActionByKey(ctx, "k")
	if a.State != store.ActionUnknown || a.ReadBacks != 2 {
		t.Fatalf("action: %+v", a)
	}
	if n := auditCount(t, st, "test.write"); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
	if _, err := st.FinishAction(ctx, "k", store.Finish{State: store.ActionDone}); err != nil {
		t.Fatal(err)
	}
	if n := auditCount(t, st, "test.write"); n != 2 {
		t.Fatalf("%d audit rows after it settled", n)
	}
}
