package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// The start page's queries: what needs someone now, per role. Each reads a
// bounded window (a day, a week, 30 days) or a short list, so a page costs
// the same with a year of history behind it as with a week.

// InviteFunnel counts employees (not deleted) by how far they got: each
// stage is a subset of the one before.
type InviteFunnel struct {
	Invited        int
	Linked         int // linked their account (the API knows them)
	KYCSubmitted   int // and submitted KYC
	CurrencyActive int // and have at least one currency active
	FirstDeposit   int // and received a completed deposit
}

// Reasons an employee needs HR's action, most urgent first.
const (
	NeedActionRequired = "action_required" // the API asks for something
	NeedOnboardingStop = "onboarding_stop" // a currency failed or was rejected
	NeedNotLinked      = "not_linked"      // invited a week ago or more, not linked
)

// EmployeeNeed is one employee who needs HR's action, and why.
type EmployeeNeed struct {
	EmployeeID int64
	Name       string
	Email      string
	Reason     string // Need*
	// Detail is what the API said (action required), or the currency and
	// its state (onboarding stop: "EUR failed").
	Detail string
	Since  time.Time
}

// HRDashboard is the HR part of the start page.
type HRDashboard struct {
	Funnel InviteFunnel
	// Needs lists at most the limit asked, one line per employee, the
	// most urgent reason first; NeedCounts counts every employee per
	// reason (an employee with two reasons counts in both).
	Needs      []EmployeeNeed
	NeedCounts map[string]int
	// NeedTotal counts the employees needing action (each once).
	NeedTotal int
	// Readiness counts employees per currency and state, as
	// ReadinessCounts does.
	Readiness map[string]map[string]int
}

// notLinkedAfter is how long an invite may wait before HR is asked to
// follow it up.
const notLinkedAfter = 7 * 24 * time.Hour

// HRDashboard reads the invite funnel, the employees needing action (at
// most limit of them) and the readiness counts of currencies in one round
// trip. Nothing here reads every employee: dashboard_employees keeps each
// employee's funnel stage and reasons, and dashboard_counts their counts,
// as rows change (migration 0037). "Invited a week ago or more" depends on
// the time: the kept count of everyone invited and not linked, less those
// invited within the week (an index range of a week).
func (s *Store) HRDashboard(ctx context.Context, now time.Time, limit int, currencies []string) (HRDashboard, error) {
	out := HRDashboard{NeedCounts: map[string]int{}}
	cutoff := now.Add(-notLinkedAfter)
	counts := map[string]int{}
	b := &pgx.Batch{}
	b.Queue(`SELECT name, n FROM dashboard_counts
		UNION ALL
		SELECT 'week:unlinked', count(*) FROM dashboard_employees WHERE unlinked_since IS NOT NULL AND unlinked_since >= $1
		UNION ALL
		SELECT 'week:unlinked_only', count(*) FROM dashboard_employees
		WHERE unlinked_since IS NOT NULL AND unlinked_since >= $1 AND need_rank IS NULL`, cutoff).Query(func(rows pgx.Rows) error {
		var name string
		var n int
		_, err := pgx.ForEachRow(rows, []any{&name, &n}, func() error {
			counts[name] = n
			return nil
		})
		return err
	})
	// The most urgent first: the time-independent reasons by rank, then
	// invites a week old; each part stops at limit on its index.
	b.Queue(`SELECT n.employee_id, e.first_name, e.last_name, e.email, n.rank, n.detail, n.since FROM (
			(SELECT employee_id, need_rank AS rank, need_detail AS detail, need_since AS since FROM dashboard_employees
			WHERE need_rank IS NOT NULL ORDER BY need_rank, need_since DESC, employee_id LIMIT $2)
			UNION ALL
			(SELECT employee_id, 3, '', unlinked_since FROM dashboard_employees
			WHERE unlinked_since IS NOT NULL AND unlinked_since < $1 AND need_rank IS NULL
			ORDER BY unlinked_since DESC, employee_id LIMIT $2)
		) n JOIN employees e ON e.id = n.employee_id
		ORDER BY n.rank, n.since DESC, n.employee_id LIMIT $2`, cutoff, limit).Query(func(rows pgx.Rows) error {
		var n EmployeeNeed
		var e Employee
		var rank int
		_, err := pgx.ForEachRow(rows, []any{&n.EmployeeID, &e.FirstName, &e.LastName, &e.Email, &rank, &n.Detail, &n.Since}, func() error {
			n.Name, n.Email = e.Name(), e.Email
			switch rank {
			case 1:
				n.Reason = NeedActionRequired
			case 2:
				n.Reason = NeedOnboardingStop
			default:
				n.Reason = NeedNotLinked
			}
			out.Needs = append(out.Needs, n)
			return nil
		})
		return err
	})
	queueReadinessCounts(b, currencies, &out.Readiness)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return out, fmt.Errorf("store: hr dashboard: %w", err)
	}
	// Stages are kept exclusive (an employee counts at their furthest);
	// the funnel's are each the sum of those at or past it.
	stage := func(k int) int {
		n := 0
		for i := k; i <= 5; i++ {
			n += counts["stage:"+strconv.Itoa(i)]
		}
		return n
	}
	out.Funnel = InviteFunnel{Invited: stage(1), Linked: stage(2), KYCSubmitted: stage(3), CurrencyActive: stage(4), FirstDeposit: stage(5)}
	out.NeedCounts[NeedActionRequired] = counts["need:action"]
	out.NeedCounts[NeedOnboardingStop] = counts["need:stop"]
	out.NeedCounts[NeedNotLinked] = counts["need:unlinked"] - counts["week:unlinked"]
	out.NeedTotal = counts["need:any"] + counts["need:unlinked_only"] - counts["week:unlinked_only"]
	return out, nil
}

// OpenSignLink is a sign link a device may still use: one proposal's or
// workflow's (Items 1), or a batch's (Items waiting in it).
type OpenSignLink struct {
	ID         int64
	Batch      bool
	Kind       string // SignKind*, or "batch"
	ProposalID string // a proposal's link
	Items      int
	ExpiresAt  time.Time
	Opened     bool
	CreatedBy  string // staff email
}

// OpenSignLinks lists the links still open at now, soonest to expire
// first (at most limit), and how many there are.
func (s *Store) OpenSignLinks(ctx context.Context, now time.Time, limit int) ([]OpenSignLink, int, error) {
	rows, err := s.db.Query(ctx, `
		SELECT x.id, x.batch, x.kind, x.proposal_id, x.items, x.expires_at, x.opened, coalesce(st.email, ''), count(*) OVER ()
		FROM (
			SELECT sr.id, false AS batch, sr.kind, sr.proposal_id, 1 AS items, sr.expires_at, sr.state = 'opened' AS opened,
				sr.created_by_staff_id AS staff_id
			FROM sign_requests sr
			WHERE sr.state IN ('waiting', 'opened') AND sr.expires_at > $1
				AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.key = 'sign:' || sr.id)
			UNION ALL
			SELECT b.id, true, 'batch', '', (SELECT count(*) FROM sign_batch_items i WHERE i.batch_id = b.id AND i.state = 'waiting'),
				b.expires_at, b.opened_at IS NOT NULL, b.created_by_staff_id
			FROM sign_batches b
			WHERE b.expires_at > $1 AND EXISTS (SELECT 1 FROM sign_batch_items i WHERE i.batch_id = b.id AND i.state = 'waiting')
		) x LEFT JOIN staff st ON st.id = x.staff_id
		ORDER BY x.expires_at, x.id LIMIT $2`, now, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("store: open sign links: %w", err)
	}
	var list []OpenSignLink
	total := 0
	var l OpenSignLink
	_, err = pgx.ForEachRow(rows, []any{&l.ID, &l.Batch, &l.Kind, &l.ProposalID, &l.Items, &l.ExpiresAt, &l.Opened, &l.CreatedBy, &total},
		func() error {
			list = append(list, l)
			return nil
		})
	if err != nil {
		return nil, 0, fmt.Errorf("store: open sign links: %w", err)
	}
	return list, total, nil
}

// MoneyDay is one day's completed deposits (in) and withdrawals (out) in
// one currency, as the activity feed recorded them.
type MoneyDay struct {
	Day      time.Time // midnight UTC
	Currency string
	In, Out  decimal.Decimal
}

// MoneyInOut sums completed deposits and withdrawals per UTC day and
// currency, for the days from first to last (dates, UTC), from the daily
// totals kept as activity is recorded (migration 0037).
func (s *Store) MoneyInOut(ctx context.Context, first, last time.Time) ([]MoneyDay, error) {
	rows, err := s.db.Query(ctx, `
		SELECT day::timestamp AT TIME ZONE 'UTC', currency,
			coalesce(sum(amount_sum) FILTER (WHERE kind = 'deposit'), 0)::text,
			coalesce(sum(amount_sum) FILTER (WHERE kind = 'withdrawal'), 0)::text
		FROM activity_days
		WHERE kind IN ('deposit', 'withdrawal') AND day >= $1::date AND day <= $2::date AND status = 'completed' AND amount_n > 0
		GROUP BY 1, 2 ORDER BY 1, 2`, utcDate(first), utcDate(last))
	if err != nil {
		return nil, fmt.Errorf("store: money in and out: %w", err)
	}
	var out []MoneyDay
	var d MoneyDay
	var in, outText string
	_, err = pgx.ForEachRow(rows, []any{&d.Day, &d.Currency, &in, &outText}, func() error {
		var err error
		if d.In, err = decimal.NewFromString(in); err != nil {
			return err
		}
		if d.Out, err = decimal.NewFromString(outText); err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: money in and out: %w", err)
	}
	return out, nil
}

// utcDate is t's UTC date, as PostgreSQL reads 2006-01-02.
func utcDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// PayrollInProgress is a run still under way: sending its proposals, or
// with proposals waiting for approvals or signatures.
type PayrollInProgress struct {
	ID        int64
	Name      string
	State     string
	StartedAt *time.Time
	Rows      int // valid rows
	Open      int // proposals still open (waiting, executing or failed)
}

// PayrollRunsInProgress lists runs in progress, newest first (at most
// limit). A run's open proposals are found from the open proposals (the
// queue's partial index), not by reading every row of every run.
func (s *Store) PayrollRunsInProgress(ctx context.Context, limit int) ([]PayrollInProgress, error) {
	rows, err := s.db.Query(ctx, `
		WITH open_rows AS (
			SELECT w.run_id, count(*) AS n FROM proposals p JOIN payroll_rows w ON w.proposal_id = p.id
			WHERE p.`+queueStatusCondition()+` GROUP BY w.run_id
		)
		SELECT r.id, r.name, r.state, r.started_at, r.rows_valid, coalesce(o.n, 0)
		FROM payroll_runs r LEFT JOIN open_rows o ON o.run_id = r.id
		WHERE r.state = 'sending' OR o.n > 0
		ORDER BY r.created_at DESC, r.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: payroll runs in progress: %w", err)
	}
	var out []PayrollInProgress
	var p PayrollInProgress
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.Name, &p.State, &p.StartedAt, &p.Rows, &p.Open}, func() error {
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: payroll runs in progress: %w", err)
	}
	return out, nil
}

// StoppedCard is a card last seen frozen or cancelled.
type StoppedCard struct {
	CardID     string
	Last4      string
	CardName   string
	Currency   string
	EmployeeID int64
	Employee   string
	Status     string    // as the API spelled it
	SeenAt     time.Time // when the status took its value
}

// stoppedStatuses are the card statuses (lower case) of a frozen or
// cancelled card (views.CardStatus: Frozen, Canceled).
const stoppedStatuses = `('frozen', 'blocked', 'canceled', 'cancelled', 'deactivated')`

// RecentlyStoppedCards lists cards frozen or cancelled since since (their
// status took that value then, migration 0038), most recent first (at most
// limit), and how many there are.
func (s *Store) RecentlyStoppedCards(ctx context.Context, since time.Time, limit int) ([]StoppedCard, int, error) {
	rows, err := s.db.Query(ctx, `
		SELECT c.id, c.last4, c.card_name, c.currency, c.employee_id, e.first_name, e.last_name, e.email, c.status, c.status_changed_at,
			count(*) OVER ()
		FROM cards c JOIN employees e ON e.id = c.employee_id
		WHERE lower(c.status) IN `+stoppedStatuses+` AND NOT c.gone AND c.status_changed_at >= $1
		ORDER BY c.status_changed_at DESC, c.id LIMIT $2`, since, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("store: stopped cards: %w", err)
	}
	var out []StoppedCard
	total := 0
	var c StoppedCard
	var e Employee
	_, err = pgx.ForEachRow(rows, []any{&c.CardID, &c.Last4, &c.CardName, &c.Currency, &c.EmployeeID, &e.FirstName, &e.LastName, &e.Email,
		&c.Status, &c.SeenAt, &total}, func() error {
		c.Employee = e.Name()
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: stopped cards: %w", err)
	}
	return out, total, nil
}

// CardDay is one UTC day of card transactions in one currency: spends
// (every transaction not declined or reversed), their sum, and declines.
type CardDay struct {
	Day      time.Time
	Currency string
	Spends   int
	Spent    decimal.Decimal
	Declines int
}

// CardSpendByDay counts card transactions per UTC day and currency for
// the days from first to last (dates, UTC), from the daily totals kept as
// activity is recorded (migration 0037).
func (s *Store) CardSpendByDay(ctx context.Context, first, last time.Time) ([]CardDay, error) {
	rows, err := s.db.Query(ctx, `
		SELECT day::timestamp AT TIME ZONE 'UTC', currency,
			coalesce(sum(n) FILTER (WHERE upper(status) NOT IN ('DECLINED', 'REVERSED')), 0),
			coalesce(sum(amount_sum) FILTER (WHERE upper(status) NOT IN ('DECLINED', 'REVERSED')), 0)::text,
			coalesce(sum(n) FILTER (WHERE upper(status) = 'DECLINED'), 0)
		FROM activity_days
		WHERE kind = 'card_transaction' AND day >= $1::date AND day <= $2::date
		GROUP BY 1, 2 ORDER BY 1, 2`, utcDate(first), utcDate(last))
	if err != nil {
		return nil, fmt.Errorf("store: card spend: %w", err)
	}
	var out []CardDay
	var d CardDay
	var spent string
	_, err = pgx.ForEachRow(rows, []any{&d.Day, &d.Currency, &d.Spends, &spent, &d.Declines}, func() error {
		var err error
		if d.Spent, err = decimal.NewFromString(spent); err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: card spend: %w", err)
	}
	return out, nil
}

// WebhookHour is one hour of webhook deliveries: how many were received
// and how many of those failed (processing failed or the body could not be
// read).
type WebhookHour struct {
	Hour       time.Time
	Deliveries int
	Failures   int
}

// WebhookHealth is how the Partner API's deliveries have fared.
type WebhookHealth struct {
	Hours []WebhookHour // hours with deliveries in the window, oldest first
	// Failures counts failed deliveries in the window; SignatureFailures
	// deliveries refused for a bad signature; Waiting events still queued
	// or deferred.
	Failures          int
	SignatureFailures int
	Waiting           int
	// LastReceived is when the newest delivery arrived (nil: never).
	LastReceived *time.Time
}

// WebhookHealth reads deliveries received since since, per hour, in one
// round trip.
func (s *Store) WebhookHealth(ctx context.Context, since time.Time) (WebhookHealth, error) {
	var out WebhookHealth
	b := &pgx.Batch{}
	b.Queue(`SELECT date_trunc('hour', received_at, 'UTC'), count(*), count(*) FILTER (WHERE state IN ('failed', 'unparseable')),
			count(*) FILTER (WHERE state IN ('queued', 'deferred'))
		FROM webhook_events WHERE received_at >= $1 GROUP BY 1 ORDER BY 1`, since).Query(func(rows pgx.Rows) error {
		var h WebhookHour
		var waiting int
		_, err := pgx.ForEachRow(rows, []any{&h.Hour, &h.Deliveries, &h.Failures, &waiting}, func() error {
			out.Hours = append(out.Hours, h)
			out.Failures += h.Failures
			out.Waiting += waiting
			return nil
		})
		return err
	})
	b.Queue(`SELECT count(*) FROM webhook_signature_failures WHERE at >= $1`, since).QueryRow(func(row pgx.Row) error {
		return row.Scan(&out.SignatureFailures)
	})
	// The newest row by key is the newest delivery: no index on the time
	// is needed for it.
	b.Queue(`SELECT received_at FROM webhook_events ORDER BY id DESC LIMIT 1`).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var t time.Time
			if err := rows.Scan(&t); err != nil {
				return err
			}
			out.LastReceived = &t
		}
		return rows.Err()
	})
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return out, fmt.Errorf("store: webhook health: %w", err)
	}
	return out, nil
}
