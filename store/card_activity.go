package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Card activity kinds.
const (
	CardActivityTransaction = "transaction" // card.transaction.created
	CardActivityFulfillment = "fulfillment" // card.fulfillment.updated
)

// CardActivity is one entry of a card's activity feed, from the
// card.transaction.created and card.fulfillment.updated webhooks. Amount and
// Fee are decimals in major units (spec: "amount and fee as decimal
// strings"); nil for a fulfilment change.
type CardActivity struct {
	ID int64
	// EventKey makes recording idempotent: the webhook's X-Webhook-Id.
	EventKey   string
	CardID     string
	Kind       string
	Status     string
	Amount     *decimal.Decimal
	Fee        *decimal.Decimal
	Currency   string
	Merchant   string
	Detail     string
	OccurredAt time.Time
	RecordedAt time.Time
}

// RecordCardActivity adds an entry to a card's activity feed inside tx (the
// webhook receiver's processing transaction). A second call with the same
// EventKey changes nothing and returns false. Never pass card numbers in
// Detail.
func RecordCardActivity(ctx context.Context, tx pgx.Tx, a CardActivity) (bool, error) {
	if a.EventKey == "" || a.CardID == "" {
		return false, fmt.Errorf("store: record card activity: event key and card id are required")
	}
	if a.Kind != CardActivityTransaction && a.Kind != CardActivityFulfillment {
		return false, fmt.Errorf("store: record card activity: unknown kind %q", a.Kind)
	}
	if a.OccurredAt.IsZero() {
		a.OccurredAt = time.Now()
	}
	tag, err := tx.Exec(ctx, `
		INSERT INTO card_activity (event_key, card_id, kind, status, amount, fee, currency, merchant, detail, occurred_at)
		VALUES ($1, $2, $3, $4, $5::text::numeric, $6::text::numeric, $7, $8, $9, $10)
		ON CONFLICT (event_key) DO NOTHING`,
		a.EventKey, a.CardID, a.Kind, a.Status, decimalPtrText(a.Amount), decimalPtrText(a.Fee), a.Currency,
		cardCut(a.Merchant, 200), cardCut(a.Detail, 500), a.OccurredAt)
	if err != nil {
		return false, fmt.Errorf("store: record card activity %s: %w", a.EventKey, err)
	}
	return tag.RowsAffected() == 1, nil
}

// RecordCardActivity is RecordCardActivity in its own transaction.
func (s *Store) RecordCardActivity(ctx context.Context, a CardActivity) (bool, error) {
	var added bool
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		added, err = RecordCardActivity(ctx, tx, a)
		return err
	})
	return added, err
}

// CardActivityFeed returns a card's activity, newest first.
func (s *Store) CardActivityFeed(ctx context.Context, cardID string, limit int) ([]CardActivity, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, event_key, card_id, kind, status, amount::text, fee::text, currency, merchant, detail, occurred_at, recorded_at
		FROM card_activity WHERE card_id = $1
		ORDER BY occurred_at DESC, id DESC LIMIT $2`, cardID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: card %s activity: %w", cardID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CardActivity, error) {
		var a CardActivity
		var amount, fee *string
		if err := r.Scan(&a.ID, &a.EventKey, &a.CardID, &a.Kind, &a.Status, &amount, &fee, &a.Currency, &a.Merchant,
			&a.Detail, &a.OccurredAt, &a.RecordedAt); err != nil {
			return a, err
		}
		var err error
		if a.Amount, err = parseDecimalPtr(amount); err != nil {
			return a, err
		}
		a.Fee, err = parseDecimalPtr(fee)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: card %s activity: %w", cardID, err)
	}
	return list, nil
}

func decimalPtrText(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func parseDecimalPtr(s *string) (*decimal.Decimal, error) {
	if s == nil {
		return nil, nil
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return nil, fmt.Errorf("decimal %q: %w", *s, err)
	}
	return &d, nil
}

func cardCut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
