package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// rateLimitLockClass is the first half of the advisory locks that serialise
// hits under one key.
const rateLimitLockClass = 0x726174 // "rat"

// RateLimitHit records a request under key and reports whether fewer than
// max requests were recorded under it in the window before this one. The
// count lives in PostgreSQL so the limit holds across replicas, and hits
// under one key take their turn (an advisory lock held until the hit is
// committed), so requests arriving at once cannot all count zero.
func (s *Store) RateLimitHit(ctx context.Context, key string, window time.Duration, max int) (bool, error) {
	var n int
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, rateLimitLockClass, key)
		// The CTE's insert is not visible to the count in the same
		// statement: the count is of the earlier requests.
		b.Queue(`
			WITH hit AS (INSERT INTO rate_limit_hits (key) VALUES ($1))
			SELECT count(*) FROM rate_limit_hits WHERE key = $1 AND at > now() - $2 * interval '1 millisecond'`,
			key, window.Milliseconds())
		res := tx.SendBatch(ctx, b)
		_, err := res.Exec()
		if err == nil {
			err = res.QueryRow().Scan(&n)
		}
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: rate limit %s: %w", key, err)
	}
	return n < max, nil
}

// PruneRateLimitHits deletes hits older than the given time.
func (s *Store) PruneRateLimitHits(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM rate_limit_hits WHERE at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune rate limit hits: %w", err)
	}
	return tag.RowsAffected(), nil
}
