package store

import (
	"context"
	"fmt"
	"time"
)

// RateLimitHit records a request under key and reports whether fewer than
// max requests were recorded under it in the window before this one. The
// count lives in PostgreSQL so the limit holds across replicas.
func (s *Store) RateLimitHit(ctx context.Context, key string, window time.Duration, max int) (bool, error) {
	var n int
	// The CTE's insert is not visible to the count in the same statement:
	// the count is of the earlier requests.
	err := s.pool.QueryRow(ctx, `
		WITH hit AS (INSERT INTO rate_limit_hits (key) VALUES ($1))
		SELECT count(*) FROM rate_limit_hits WHERE key = $1 AND at > now() - $2 * interval '1 millisecond'`,
		key, window.Milliseconds()).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: rate limit %s: %w", key, err)
	}
	return n < max, nil
}

// PruneRateLimitHits deletes hits older than the given time.
func (s *Store) PruneRateLimitHits(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM rate_limit_hits WHERE at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune rate limit hits: %w", err)
	}
	return tag.RowsAffected(), nil
}
