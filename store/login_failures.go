package store

import (
	"context"
	"fmt"
	"github.com/jackc/pgx/v5"
	"time"
)

// CountLoginFailures returns how many failures were recorded for each key
// since the given time. Keys are 'account:<email>' and 'addr:<ip>'.
func (s *Store) CountLoginFailures(ctx context.Context, since time.Time, keys ...string) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT key, count(*) FROM login_failures
		WHERE key = ANY($1) AND at > $2
		GROUP BY key`, keys, since)
	if err != nil {
		return nil, fmt.Errorf("store: count login failures: %w", err)
	}
	defer rows.Close()
	counts := make(map[string]int, len(keys))
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("store: count login failures: %w", err)
		}
		counts[k] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count login failures: %w", err)
	}
	return counts, nil
}

// RecordLoginFailure records a failed attempt against each key, and the
// audit row, in one transaction.
func (s *Store) RecordLoginFailure(ctx context.Context, e AuditEntry, keys ...string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		for _, k := range keys {
			if _, err := tx.Exec(ctx, `INSERT INTO login_failures (key) VALUES ($1)`, k); err != nil {
				return fmt.Errorf("store: record login failure: %w", err)
			}
		}
		return writeAudit(ctx, tx, e)
	})
}

// ClearLoginFailures forgets an account's failures after a successful
// sign-in, and records the sign-in.
func (s *Store) ClearLoginFailures(ctx context.Context, key string, e AuditEntry) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM login_failures WHERE key = $1`, key); err != nil {
			return fmt.Errorf("store: clear login failures: %w", err)
		}
		return writeAudit(ctx, tx, e)
	})
}

// PruneLoginFailures deletes failures older than the given time. It returns
// how many rows went.
func (s *Store) PruneLoginFailures(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune login failures: %w", err)
	}
	return tag.RowsAffected(), nil
}
