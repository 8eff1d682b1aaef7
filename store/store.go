// Package store keeps what the partner must remember in PostgreSQL, through
// pgx with plain SQL: one file per aggregate, transactions, the audit log.
package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when a row asked for by key does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a unique constraint refuses a write.
var ErrConflict = errors.New("store: already exists")

// defaultMaxConns is the pool size when DATABASE_URL does not set one:
// three connections per CPU, at least six. More connections than that do
// not add throughput on a small machine — they add runnable backends that
// the kernel time-slices, which is what the p99 of a busy page is made of
// (the README has the measurements).
func defaultMaxConns() int32 { return int32(max(6, 3*runtime.GOMAXPROCS(0))) }

// dbtx is what the store's statements run on: the pool, or one
// transaction when a store is bound to it (see InTx).
type dbtx interface {
	Begin(ctx context.Context) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Store wraps the connection pool, or one transaction of it.
type Store struct {
	pool *pgxpool.Pool
	db   dbtx
}

// New returns a store over an open pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, db: pool}
}

// bound is a store whose statements run in tx. Its own InTx calls nest as
// savepoints, so any store method can take part in a caller's transaction.
func (s *Store) bound(tx pgx.Tx) *Store {
	return &Store{pool: s.pool, db: tx}
}

// Pool exposes the pool for the parts that need it directly (sessions, river).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Open connects to PostgreSQL and checks the connection.
func Open(ctx context.Context, connString string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("store: parse database url: %w", err)
	}
	// pgxpool's default (the larger of 4 and the CPU count) is too few for
	// the web handlers, the webhook receiver and river's workers together;
	// pool_max_conns in DATABASE_URL still wins.
	if !strings.Contains(connString, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns()
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: ping: %w", err)
	}
	return pool, nil
}

// InTx runs fn in a transaction, committing when it returns nil. On a store
// bound to a transaction it is a savepoint of that transaction.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// Tx runs fn with a store bound to one transaction, committing when fn
// returns nil: every method fn calls on it commits or rolls back together.
func (s *Store) Tx(ctx context.Context, fn func(tx *Store) error) error {
	return s.InTx(ctx, func(tx pgx.Tx) error { return fn(s.bound(tx)) })
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// notFound maps pgx.ErrNoRows to ErrNotFound, leaving other errors as they are.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
