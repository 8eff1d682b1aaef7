package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"partneradmin/migrations"
)

// ErrSchemaTooNew means the database was migrated by a newer build of the app.
var ErrSchemaTooNew = errors.New("store: database schema is newer than this build knows")

// migrateLockKey is the advisory lock migrations hold ("partner-admin
// migrate" in no particular encoding: any constant other code does not use).
const migrateLockKey int64 = 0x70615f6d69677261

// Migrate applies the app's migrations (goose, embedded SQL) and river's
// (rivermigrate). It refuses to run against a schema newer than it knows, so
// an old binary never writes to a database shaped for a newer one.
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	// Replicas starting together migrate one at a time: the others wait
	// here, then find nothing left to apply.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	defer conn.Release()
	if err := waitMigrateLock(ctx, conn); err != nil {
		return fmt.Errorf("store: migrations: wait for another replica's: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLockKey); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // closing the session releases the lock
		}
	}()
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	current, err := provider.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	sources := provider.ListSources()
	known := int64(0)
	if len(sources) > 0 {
		known = sources[len(sources)-1].Version
	}
	if current > known {
		return fmt.Errorf("%w: database at version %d, this build knows up to %d", ErrSchemaTooNew, current, known)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("store: apply migrations: %w", err)
	}
	for _, r := range results {
		logger.Info("migration applied", "version", r.Source.Version, "duration", r.Duration)
	}

	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("store: river migrator: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("store: river migrations: %w", err)
	}
	for _, v := range res.Versions {
		logger.Info("river migration applied", "version", v.Version)
	}
	return nil
}

// migrateLockRetry is how long a replica waits between tries for the
// migration lock.
const migrateLockRetry = 200 * time.Millisecond

// waitMigrateLock takes the migration lock, trying again until it is free.
// It never waits inside PostgreSQL (pg_advisory_lock): a session blocked
// there is a transaction in progress, and CREATE INDEX CONCURRENTLY in the
// lock holder's migrations waits for every transaction in progress to end,
// while the holder's lock is released only when its migrations end, so
// replicas starting together would wait on each other for ever.
func waitMigrateLock(ctx context.Context, conn *pgxpool.Conn) error {
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, migrateLockKey).Scan(&got); err != nil {
			return err
		}
		if got {
			return nil
		}
		t := time.NewTimer(migrateLockRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
