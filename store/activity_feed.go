package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// FeedKinds are the kinds of the company activity feed: money events the
// webhooks recorded, and proposals that completed (a transfer, a send, a
// swap, an offramp, a payroll row), by their type in lower case.
func FeedKinds() []string {
	return []string{ActivityDeposit, ActivityWithdrawal, ActivityCardTransaction, ActivityCardFulfillment,
		"transfer", "send", "swap", "nigerian_offramp"}
}

// FeedEntry is one line of the company activity feed.
type FeedEntry struct {
	// Key orders and pages the feed: "a<id>" for a webhook's money event,
	// "p<id>" for a completed proposal.
	Key           string
	At            time.Time
	Kind          string
	ServiceUserID string
	Employee      string // the employee's name, "" when not in the mirror
	Amount        *decimal.Decimal
	Fee           *decimal.Decimal
	Currency      string
	Reference     string
	Status        string
	Description   string
}

// FeedFilter selects feed lines: each field narrows when set. Before pages:
// lines strictly older than (BeforeAt, BeforeKey).
type FeedFilter struct {
	Kind          string
	Currency      string
	ServiceUserID string
	From, To      time.Time // To is exclusive
	BeforeAt      time.Time
	BeforeKey     string
	Limit         int
}

// ActivityFeed lists the company's money activity, newest first: deposits,
// withdrawals (payouts and offramps paid out are withdrawals on the rail),
// card spends and fulfilments from the webhooks, and every proposal that
// completed (transfers, payroll rows, swaps, offramps) from the approvals
// mirror. Amounts are decimals.
func (s *Store) ActivityFeed(ctx context.Context, f FeedFilter) ([]FeedEntry, error) {
	if f.Limit <= 0 || f.Limit > 10000 {
		f.Limit = 100
	}
	var from, to, before *time.Time
	if !f.From.IsZero() {
		from = &f.From
	}
	if !f.To.IsZero() {
		to = &f.To
	}
	if !f.BeforeAt.IsZero() {
		before = &f.BeforeAt
	}
	rows, err := s.db.Query(ctx, `
		SELECT x.key, x.at, x.kind, x.user_id, coalesce(nullif(trim(e.first_name || ' ' || e.last_name), ''), ''),
			x.amount, x.fee, x.currency, x.reference, x.status, x.description
		FROM (
			SELECT 'a' || a.id AS key, a.occurred_at AS at, a.kind, a.service_user_id AS user_id, a.amount::text AS amount,
				a.fee::text AS fee, a.currency, a.reference, a.status, a.description
			FROM activity a
			UNION ALL
			SELECT 'p' || p.id, coalesce(p.upstream_updated_at, p.synced_at), lower(p.type),
				coalesce(nullif(p.to_user_id, ''), p.owner_user_id), p.amount::text, NULL, p.currency, p.id, 'completed', p.description
			FROM proposals p WHERE p.status = 'COMPLETED'
		) x
		LEFT JOIN employees e ON e.service_user_id = x.user_id
		WHERE ($1 = '' OR x.kind = $1) AND ($2 = '' OR x.currency = $2) AND ($3 = '' OR x.user_id = $3)
		  AND ($4::timestamptz IS NULL OR x.at >= $4) AND ($5::timestamptz IS NULL OR x.at < $5)
		  AND ($6::timestamptz IS NULL OR (x.at, x.key) < ($6, $7))
		ORDER BY x.at DESC, x.key DESC LIMIT $8`,
		f.Kind, f.Currency, f.ServiceUserID, from, to, before, f.BeforeKey, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: activity feed: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FeedEntry, error) {
		var e FeedEntry
		var amount, fee *string
		if err := r.Scan(&e.Key, &e.At, &e.Kind, &e.ServiceUserID, &e.Employee, &amount, &fee, &e.Currency, &e.Reference,
			&e.Status, &e.Description); err != nil {
			return e, err
		}
		var err error
		if e.Amount, err = scanDecimal(amount); err != nil {
			return e, err
		}
		e.Fee, err = scanDecimal(fee)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: activity feed: %w", err)
	}
	return out, nil
}
