package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// RequestJob inserts a background job someone asked for (insert runs in
// the transaction) and writes the request's audit row with it: both commit
// or neither.
func (s *Store) RequestJob(ctx context.Context, e AuditEntry, insert func(ctx context.Context, tx pgx.Tx) error) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if err := insert(ctx, tx); err != nil {
			return err
		}
		return writeAudit(ctx, tx, e)
	})
}
