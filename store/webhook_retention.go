package store

import (
	"context"
	"fmt"
	"time"
)

// RemoveWebhookBodies blanks the bodies of at most limit processed events
// received before cutoff, recording now as when; the rows stay, so a late
// duplicate of one is still recognised. It returns how many it blanked:
// call it again while that is limit.
func (s *Store) RemoveWebhookBodies(ctx context.Context, cutoff, now time.Time, limit int) (int, error) {
	tag, err := s.db.Exec(ctx, `
		UPDATE webhook_events SET body = ''::bytea, body_removed_at = $2
		WHERE id IN (
			SELECT id FROM webhook_events
			WHERE body_removed_at IS NULL AND received_at < $1 AND state = 'processed'
			ORDER BY received_at LIMIT $3
			FOR UPDATE SKIP LOCKED)`, cutoff, now, limit)
	if err != nil {
		return 0, fmt.Errorf("store: remove webhook bodies: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
