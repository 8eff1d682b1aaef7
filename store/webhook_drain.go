package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ClaimQueuedEvents claims up to limit of the oldest queued events for
// lease: until it ends, no other claim returns them, so concurrent workers
// take different events. An event whose claim ran out (its worker died) is
// claimed again. Rows locked by another claim or by a receiver counting a
// duplicate are waited for, not skipped: a skipped event could be left
// with no worker coming; a second claim of the same rows finds them
// claimed when it gets them and takes fewer.
func (s *Store) ClaimQueuedEvents(ctx context.Context, limit int, lease time.Duration) ([]WebhookEvent, error) {
	rows, err := s.db.Query(ctx, `
		WITH claim AS (
			SELECT id FROM webhook_events
			WHERE state = 'queued' AND (claimed_until IS NULL OR claimed_until < now())
			ORDER BY id LIMIT $1
			FOR UPDATE
		)
		UPDATE webhook_events e SET claimed_until = now() + make_interval(secs => $2)
		FROM claim WHERE e.id = claim.id
		RETURNING `+prefixed("e.", eventColumns), limit, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("store: claim queued webhook events: %w", err)
	}
	evs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WebhookEvent, error) { return scanEvent(r) })
	if err != nil {
		return nil, fmt.Errorf("store: claim queued webhook events: %w", err)
	}
	return evs, nil
}

// ApplyEvents writes several applications in one round trip and one
// transaction, all or none. It reports, for each, whether this run
// recorded the outcome (false: another run had settled the event).
func (s *Store) ApplyEvents(ctx context.Context, apps []EventApplication) ([]bool, error) {
	out := make([]bool, len(apps))
	if len(apps) == 0 {
		return out, nil
	}
	b := &pgx.Batch{}
	for _, a := range apps {
		if err := queueApplication(b, a); err != nil {
			return nil, err
		}
	}
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		br := tx.SendBatch(ctx, b)
		for i, a := range apps {
			applied, err := readApplication(br, a)
			if err != nil {
				_ = br.Close()
				return err
			}
			out[i] = applied
		}
		return br.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("store: apply webhook events: %w", err)
	}
	return out, nil
}

// prefixed qualifies each column of a comma-separated list with p.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
