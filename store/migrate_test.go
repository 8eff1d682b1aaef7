package store_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/store/pgtest"
)

func TestMigrateEmptyDatabaseTwiceThenRefuseNewer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := store.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	logger := slog.New(slog.DiscardHandler)
	if err := store.Migrate(ctx, pool, logger); err != nil {
		t.Fatalf("first migrate: %v", err)
	}
	// Running again is a no-op.
	if err := store.Migrate(ctx, pool, logger); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	for _, table := range []string{"staff", "sessions", "audit_log", "login_failures", "river_job"} {
		var exists bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil || !exists {
			t.Fatalf("table %s missing (%v)", table, err)
		}
	}
	// A schema from a newer build is refused.
	if _, err := pool.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)`); err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(ctx, pool, logger); !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("newer schema: %v, want ErrSchemaTooNew", err)
	}
}

// Three replicas starting at once on an empty database all finish
// migrating: the ones waiting for the lock hold no transaction open, which
// a CREATE INDEX CONCURRENTLY in the first one's migrations would wait for
// (each replica here is a pool of its own, as a process would have).
func TestMigrateThreeAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dsn := pgtest.NewDatabase(t)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			pool, err := store.Open(ctx, dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			errs[i] = store.Migrate(ctx, pool, slog.New(slog.DiscardHandler))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("three at once: %v", err)
	}
}

func TestRolePermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role store.Role
		perm store.Permission
		want bool
	}{
		{store.RoleOwner, store.PermStaffManage, true},
		{store.RoleOwner, store.PermCardsWrite, true},
		{store.RoleHRAdmin, store.PermEmployeesWrite, true},
		{store.RoleHRAdmin, store.PermCardsWrite, false},
		{store.RoleHRAdmin, store.PermApprovalsAct, false},
		{store.RoleFinanceApprover, store.PermApprovalsAct, true},
		{store.RoleFinanceApprover, store.PermCardsWrite, false},
		{store.RoleSupport, store.PermCardsWrite, true},
		{store.RoleSupport, store.PermStaffManage, false},
		{store.Role("intruder"), store.PermSignedIn, false},
	}
	for _, tt := range tests {
		if got := tt.role.Can(tt.perm); got != tt.want {
			t.Errorf("%s.Can(%s) = %v, want %v", tt.role, tt.perm, got, tt.want)
		}
	}
}
