package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SyncTarget is a wallet the approvals sync lists the proposals of, with
// its owner's serviceUserId (the API lists a wallet's proposals under its
// owner).
type SyncTarget struct {
	WalletID string
	Owner    string
	// Busy: something is happening in the wallet (as opposed to a wallet
	// read by the sweep).
	Busy bool
}

// ApprovalSyncTargets are the wallets one period of the approvals sync
// reads: the busy ones — with a proposal not yet final, a proposal
// changed since since or an event that follows a proposal (a withdrawal,
// a card's fulfilment) since since, or the treasury's — and the sweep
// wallets of the others read least recently (never read first). A deposit
// or a card payment makes no proposal, so it does not make a wallet busy.
// Only wallets of linked, not deleted employees are listed, as
// WalletOwners lists them.
func (s *Store) ApprovalSyncTargets(ctx context.Context, since time.Time, sweep int) ([]SyncTarget, error) {
	rows, err := s.db.Query(ctx, `
		WITH busy AS (
			SELECT wallet_id AS id FROM proposals WHERE status NOT IN ('COMPLETED', 'REJECTED', 'EXPIRED')
			UNION SELECT wallet_id FROM proposals WHERE upstream_updated_at >= $1
			UNION SELECT id FROM wallets WHERE employee_id = (`+treasuryUserIDSQL+`)
			UNION SELECT w.id FROM activity a
				JOIN employees e ON e.service_user_id = a.service_user_id
				JOIN wallets w ON w.employee_id = e.id
				WHERE a.kind IN ('withdrawal', 'card_fulfillment') AND a.occurred_at >= $1
		)
		SELECT w.id, e.service_user_id, true FROM busy b
			JOIN wallets w ON w.id = b.id JOIN employees e ON e.id = w.employee_id
			WHERE e.service_user_id IS NOT NULL AND e.deleted_at IS NULL
		UNION ALL
		(SELECT w.id, e.service_user_id, false FROM wallets w JOIN employees e ON e.id = w.employee_id
			WHERE e.service_user_id IS NOT NULL AND e.deleted_at IS NULL AND w.id NOT IN (SELECT id FROM busy WHERE id IS NOT NULL)
			ORDER BY w.proposals_read_at NULLS FIRST, w.id LIMIT $2)`, since, sweep)
	if err != nil {
		return nil, fmt.Errorf("store: approval sync targets: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SyncTarget, error) {
		var t SyncTarget
		return t, r.Scan(&t.WalletID, &t.Owner, &t.Busy)
	})
	if err != nil {
		return nil, fmt.Errorf("store: approval sync targets: %w", err)
	}
	return out, nil
}

// StampWalletsRead records that the sync listed these wallets' proposals
// at at, so that the sweep reads the others first.
func (s *Store) StampWalletsRead(ctx context.Context, walletIDs []string, at time.Time) error {
	if len(walletIDs) == 0 {
		return nil
	}
	if _, err := s.db.Exec(ctx, `UPDATE wallets SET proposals_read_at = $2 WHERE id = ANY($1)`, walletIDs, at); err != nil {
		return fmt.Errorf("store: stamp wallets read: %w", err)
	}
	return nil
}
