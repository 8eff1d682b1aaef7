package store_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"partneradmin/store"
)

func newStaff(t *testing.T, st *store.Store, email string, role store.Role) store.Staff {
	t.Helper()
	s, err := st.CreateStaff(context.Background(), store.NewStaff{Email: email, Name: "Cached", PasswordHash: "argon2id$secret-hash", Role: role}, store.Actor{Email: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// setRoleQuietly changes a role behind the cache's back: the trigger that
// announces changes is off for the update.
func setRoleQuietly(t *testing.T, st *store.Store, id int64, role store.Role) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{`ALTER TABLE staff DISABLE TRIGGER staff_changed`, `UPDATE staff SET role = '` + string(role) + `' WHERE id = $1`, `ALTER TABLE staff ENABLE TRIGGER staff_changed`} {
		var err error
		if sql[0] == 'U' {
			_, err = st.Pool().Exec(ctx, sql, id)
		} else {
			_, err = st.Pool().Exec(ctx, sql)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func roleOf(t *testing.T, c *store.StaffCache, id int64) store.Role {
	t.Helper()
	s, err := c.StaffByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Role
}

func TestStaffCacheReadsThroughUntilItListens(t *testing.T) {
	st := migratedStore(t)
	s := newStaff(t, st, "through@example.com", store.RoleSupport)
	c := store.NewStaffCache(st, store.NewListener(st, slog.New(slog.NewTextHandler(io.Discard, nil))))
	if roleOf(t, c, s.ID) != store.RoleSupport {
		t.Fatal("first read")
	}
	setRoleQuietly(t, st, s.ID, store.RoleHRAdmin)
	if got := roleOf(t, c, s.ID); got != store.RoleHRAdmin {
		t.Fatalf("not listening, yet served %s from memory", got)
	}
}

func TestStaffCacheServesFromMemoryAndDropsChangedRows(t *testing.T) {
	st := migratedStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newStaff(t, st, "cached@example.com", store.RoleSupport)
	other := newStaff(t, st, "other@example.com", store.RoleSupport)
	l := store.NewListener(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	c := store.NewStaffCache(st, l)
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	select {
	case <-l.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("not listening after 5 s")
	}

	got, err := c.StaffByID(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.PasswordHash != "" {
		t.Error("the cache returned (and so kept) a password hash")
	}
	// Served from memory: a change nobody announced is not seen.
	setRoleQuietly(t, st, s.ID, store.RoleHRAdmin)
	if got := roleOf(t, c, s.ID); got != store.RoleSupport {
		t.Fatalf("role %s: the second read did not come from memory", got)
	}

	// A change made through the store is seen on the next read.
	if _, err := st.UpdateStaffAccess(ctx, s.ID, store.RoleFinanceApprover, true, store.Actor{Email: "test"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.StaffByID(ctx, s.ID); got.Role != store.RoleFinanceApprover || !got.Disabled {
		t.Fatalf("after UpdateStaffAccess: %s disabled=%v", got.Role, got.Disabled)
	}

	// A change made by anyone else (another replica: plain SQL here) is
	// announced by the trigger and seen shortly after.
	if roleOf(t, c, other.ID) != store.RoleSupport {
		t.Fatal("other: first read")
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE staff SET disabled = true WHERE id = $1`, other.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a disabled account was still served as enabled", func() bool {
		got, err := c.StaffByID(ctx, other.ID)
		return err == nil && got.Disabled
	})

	// The listening connection dies: the cache reads through (or starts
	// again empty once it listens again); it never serves the stale row.
	if roleOf(t, c, other.ID) != store.RoleSupport {
		t.Fatal("other: warm the cache")
	}
	if _, err := st.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	setRoleQuietly(t, st, other.ID, store.RoleOwner)
	eventually(t, "after losing its connection the cache kept serving a row it could not hear about", func() bool {
		return roleOf(t, c, other.ID) == store.RoleOwner
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop with its context")
	}
}
