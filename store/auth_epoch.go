package store

import (
	"context"
	"fmt"
)

// AuthEpoch is the count of committed changes that can end or narrow a
// signed-in session (migration 0051): a staff row updated or deleted, a
// session deleted. In-memory copies of sessions and staff are emptied
// whenever it moves.
func (s *Store) AuthEpoch(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRow(ctx, `SELECT n FROM auth_epoch WHERE id = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: auth epoch: %w", err)
	}
	return n, nil
}
