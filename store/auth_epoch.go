package store

import (
	"context"
	"fmt"
)

// Epochs are the counters a request reads before anything else, in one
// round trip.
type Epochs struct {
	// Auth is the count of committed changes that can end or narrow a
	// signed-in session (migration 0051): a staff row updated or deleted,
	// a session deleted. In-memory copies of sessions and staff are
	// emptied whenever it moves.
	Auth int64
	// Data are the versions of the data behind cached reads (migration
	// 0071, read_cache.go).
	Data Versions
}

// Epochs reads the auth epoch and the data versions.
func (s *Store) Epochs(ctx context.Context) (Epochs, error) {
	var e Epochs
	d := &e.Data
	err := s.db.QueryRow(ctx, `SELECT a.n, d.* FROM auth_epoch a, (SELECT sum(employees)::bigint, sum(readiness)::bigint,
		sum(proposals)::bigint, sum(cards)::bigint, sum(activity)::bigint, sum(wallets)::bigint, sum(payroll)::bigint
		FROM data_versions) d WHERE a.id = 1`).
		Scan(&e.Auth, &d[groupEmployees], &d[groupReadiness], &d[groupProposals], &d[groupCards], &d[groupActivity],
			&d[groupWallets], &d[groupPayroll])
	if err != nil {
		return Epochs{}, fmt.Errorf("store: epochs: %w", err)
	}
	return e, nil
}
