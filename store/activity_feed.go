package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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
//
// Each source is read in the feed's order from an index of its own
// (activity_feed_idx, proposals_feed_idx: time, then the line's key), from
// the page's cursor on, and stops after a page; the two pages are merged
// and only the lines shown look up their employees' names. Only the
// filters that are set become conditions, so each combination is planned
// for what it asks.
func (s *Store) ActivityFeed(ctx context.Context, f FeedFilter) ([]FeedEntry, error) {
	if f.Limit <= 0 || f.Limit > 10000 {
		f.Limit = 100
	}
	q := &feedQuery{f: f}
	const (
		aAt, aKey = "a.occurred_at", "('a' || a.id::text)"
		// upstream_updated_at is never null; synced_at stays out of every
		// index, so the sync's stamping of it remains a heap-only update.
		pAt, pKey = "p.upstream_updated_at", "('p' || p.id)"
		pUser     = "coalesce(nullif(p.to_user_id, ''), p.owner_user_id)"
	)
	aWhere := q.where(aAt, aKey, "a.kind", "a.currency", "a.service_user_id")
	pWhere := q.where(pAt, pKey, "lower(p.type)", "p.currency", pUser)
	// The page size is a number of the code's, written into the statement
	// so that its cached plan is made for it.
	limit := strconv.Itoa(f.Limit)
	// Each line of the page looks its employee up: one index read a line.
	sql := `
		SELECT x.key, x.at, x.kind, x.user_id,
			coalesce((SELECT nullif(trim(e.first_name || ' ' || e.last_name), '') FROM employees e WHERE e.service_user_id = x.user_id), ''),
			x.amount, x.fee, x.currency, x.reference, x.status, x.description
		FROM (
			(SELECT ` + aKey + ` AS key, ` + aAt + ` AS at, a.kind, a.service_user_id AS user_id, a.amount::text AS amount,
				a.fee::text AS fee, a.currency, a.reference, a.status, a.description
			FROM activity a WHERE ` + aWhere + `
			ORDER BY ` + aAt + ` DESC, ` + aKey + ` DESC LIMIT ` + limit + `)
			UNION ALL
			(SELECT ` + pKey + `, ` + pAt + `, lower(p.type), ` + pUser + `, p.amount::text, NULL, p.currency, p.id, 'completed', p.description
			FROM proposals p WHERE p.status = 'COMPLETED' AND ` + pWhere + `
			ORDER BY ` + pAt + ` DESC, ` + pKey + ` DESC LIMIT ` + limit + `)
			ORDER BY 2 DESC, 1 DESC LIMIT ` + limit + `
		) x
		ORDER BY x.at DESC, x.key DESC`
	rows, err := s.db.Query(ctx, sql, q.args...)
	if err != nil {
		return nil, fmt.Errorf("store: activity feed: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanFeedEntry)
	if err != nil {
		return nil, fmt.Errorf("store: activity feed: %w", err)
	}
	return out, nil
}

// feedQuery gathers a feed statement's arguments.
type feedQuery struct {
	f    FeedFilter
	args []any
}

// arg adds v and returns its placeholder.
func (q *feedQuery) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// where is the filter's conditions on one source, given its time, key,
// kind, currency and employee expressions.
func (q *feedQuery) where(at, key, kind, currency, user string) string {
	f := q.f
	var c []string
	if f.Kind != "" {
		c = append(c, kind+" = "+q.arg(f.Kind))
	}
	if f.Currency != "" {
		c = append(c, currency+" = "+q.arg(f.Currency))
	}
	if f.ServiceUserID != "" {
		c = append(c, user+" = "+q.arg(f.ServiceUserID))
	}
	if !f.From.IsZero() {
		c = append(c, at+" >= "+q.arg(f.From))
	}
	if !f.To.IsZero() {
		c = append(c, at+" < "+q.arg(f.To))
	}
	if !f.BeforeAt.IsZero() {
		c = append(c, "("+at+", "+key+") < ("+q.arg(f.BeforeAt)+"::timestamptz, "+q.arg(f.BeforeKey)+"::text)")
	}
	if len(c) == 0 {
		return "true"
	}
	return strings.Join(c, " AND ")
}

func scanFeedEntry(r pgx.CollectableRow) (FeedEntry, error) {
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
}
