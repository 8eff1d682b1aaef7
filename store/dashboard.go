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
// invited within the week (kept per hour, migration 0067, and the
// cutoff's hour an index range).
func (s *Store) HRDashboard(ctx context.Context, now time.Time, limit int, currencies []string) (HRDashboard, error) {
	b := &pgx.Batch{}
	out := queueHRDashboard(b, now, limit, currencies)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return HRDashboard{}, fmt.Errorf("store: hr dashboard: %w", err)
	}
	out.finish()
	return *out.HRDashboard, nil
}

// hrRead is an HRDashboard being read by a batch: finish sums the counts
// once the batch is read.
type hrRead struct {
	*HRDashboard
	counts map[string]int
}

// queueHRDashboard adds HRDashboard's statements to a batch.
func queueHRDashboard(b *pgx.Batch, now time.Time, limit int, currencies []string) hrRead {
	out := hrRead{HRDashboard: &HRDashboard{NeedCounts: map[string]int{}}, counts: map[string]int{}}
	cutoff := now.Add(-notLinkedAfter)
	counts := out.counts
	// The kept counts: a statement without parameters, planned once per
	// connection.
	b.Queue(`SELECT name, n FROM dashboard_counts`).Query(func(rows pgx.Rows) error {
		var name string
		var n int
		_, err := pgx.ForEachRow(rows, []any{&name, &n}, func() error {
			counts[name] = n
			return nil
		})
		return err
	})
	// The week's invites, and those of them with no other reason: the
	// whole hours after the cutoff's from the counts kept per hour
	// (migration 0067), and the cutoff's own hour from the index.
	cutoffHour := cutoff.UTC().Truncate(time.Hour)
	b.Queue(`SELECT coalesce(sum(n), 0)::bigint, coalesce(sum(n_only), 0)::bigint FROM dashboard_unlinked_hours WHERE hour > $1
		UNION ALL
		SELECT count(*), count(*) FILTER (WHERE need_rank IS NULL) FROM dashboard_employees
		WHERE unlinked_since IS NOT NULL AND unlinked_since >= $2 AND unlinked_since < $3`,
		cutoffHour, cutoff, cutoffHour.Add(time.Hour)).Query(func(rows pgx.Rows) error {
		var week, weekOnly int
		_, err := pgx.ForEachRow(rows, []any{&week, &weekOnly}, func() error {
			counts["week:unlinked"] += week
			counts["week:unlinked_only"] += weekOnly
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
	return out
}

// finish sums the kept counts into the funnel and the reasons.
func (out hrRead) finish() {
	counts := out.counts
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
	b := &pgx.Batch{}
	var list []OpenSignLink
	total := 0
	queueOpenSignLinks(b, now, limit, &list, &total)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, 0, fmt.Errorf("store: open sign links: %w", err)
	}
	return list, total, nil
}

func queueOpenSignLinks(b *pgx.Batch, now time.Time, limit int, list *[]OpenSignLink, total *int) {
	b.Queue(`
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
		ORDER BY x.expires_at, x.id LIMIT $2`, now, limit).Query(func(rows pgx.Rows) error {
		var l OpenSignLink
		_, err := pgx.ForEachRow(rows, []any{&l.ID, &l.Batch, &l.Kind, &l.ProposalID, &l.Items, &l.ExpiresAt, &l.Opened, &l.CreatedBy, total},
			func() error {
				*list = append(*list, l)
				return nil
			})
		return err
	})
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
	b := &pgx.Batch{}
	var out []MoneyDay
	queueMoneyInOut(b, first, last, &out)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("store: money in and out: %w", err)
	}
	return out, nil
}

func queueMoneyInOut(b *pgx.Batch, first, last time.Time, out *[]MoneyDay) {
	b.Queue(`
		SELECT day, currency,
			coalesce(sum(amount_sum) FILTER (WHERE kind = 'deposit'), 0)::text,
			coalesce(sum(amount_sum) FILTER (WHERE kind = 'withdrawal'), 0)::text
		FROM activity_days
		WHERE kind IN ('deposit', 'withdrawal') AND day >= $1::date AND day <= $2::date AND status = 'completed' AND amount_n > 0
		GROUP BY 1, 2 ORDER BY 1, 2`, utcDate(first), utcDate(last)).Query(func(rows pgx.Rows) error {
		var d MoneyDay
		var in, outText string
		_, err := pgx.ForEachRow(rows, []any{&d.Day, &d.Currency, &in, &outText}, func() error {
			var err error
			if d.In, err = decimal.NewFromString(in); err != nil {
				return err
			}
			if d.Out, err = decimal.NewFromString(outText); err != nil {
				return err
			}
			*out = append(*out, d)
			return nil
		})
		return err
	})
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
	b := &pgx.Batch{}
	var out []PayrollInProgress
	queuePayrollRunsInProgress(b, limit, &out)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("store: payroll runs in progress: %w", err)
	}
	return out, nil
}

func queuePayrollRunsInProgress(b *pgx.Batch, limit int, out *[]PayrollInProgress) {
	b.Queue(`
		WITH open_rows AS (
			SELECT w.run_id, count(*) AS n FROM proposals p JOIN payroll_rows w ON w.proposal_id = p.id
			WHERE p.`+queueStatusCondition()+` GROUP BY w.run_id
		)
		SELECT r.id, r.name, r.state, r.started_at, r.rows_valid, coalesce(o.n, 0)
		FROM payroll_runs r LEFT JOIN open_rows o ON o.run_id = r.id
		WHERE r.state = 'sending' OR o.n > 0
		ORDER BY r.created_at DESC, r.id DESC LIMIT $1`, limit).Query(func(rows pgx.Rows) error {
		var p PayrollInProgress
		_, err := pgx.ForEachRow(rows, []any{&p.ID, &p.Name, &p.State, &p.StartedAt, &p.Rows, &p.Open}, func() error {
			*out = append(*out, p)
			return nil
		})
		return err
	})
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
	b := &pgx.Batch{}
	var out []StoppedCard
	total := 0
	queueStoppedCards(b, since, limit, &out, &total)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, 0, fmt.Errorf("store: stopped cards: %w", err)
	}
	return out, total, nil
}

func queueStoppedCards(b *pgx.Batch, since time.Time, limit int, out *[]StoppedCard, total *int) {
	b.Queue(`
		SELECT c.id, c.last4, c.card_name, c.currency, c.employee_id, e.first_name, e.last_name, e.email, c.status, c.status_changed_at,
			count(*) OVER ()
		FROM cards c JOIN employees e ON e.id = c.employee_id
		WHERE lower(c.status) IN `+stoppedStatuses+` AND NOT c.gone AND c.status_changed_at >= $1
		ORDER BY c.status_changed_at DESC, c.id LIMIT $2`, since, limit).Query(func(rows pgx.Rows) error {
		var c StoppedCard
		var e Employee
		_, err := pgx.ForEachRow(rows, []any{&c.CardID, &c.Last4, &c.CardName, &c.Currency, &c.EmployeeID, &e.FirstName, &e.LastName, &e.Email,
			&c.Status, &c.SeenAt, total}, func() error {
			c.Employee = e.Name()
			*out = append(*out, c)
			return nil
		})
		return err
	})
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
	b := &pgx.Batch{}
	var out []CardDay
	queueCardSpendByDay(b, first, last, &out)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("store: card spend: %w", err)
	}
	return out, nil
}

func queueCardSpendByDay(b *pgx.Batch, first, last time.Time, out *[]CardDay) {
	b.Queue(`
		SELECT day, currency,
			coalesce(sum(n) FILTER (WHERE upper(status) NOT IN ('DECLINED', 'REVERSED')), 0)::bigint,
			coalesce(sum(amount_sum) FILTER (WHERE upper(status) NOT IN ('DECLINED', 'REVERSED')), 0)::text,
			coalesce(sum(n) FILTER (WHERE upper(status) = 'DECLINED'), 0)::bigint
		FROM activity_days
		WHERE kind = 'card_transaction' AND day >= $1::date AND day <= $2::date
		GROUP BY 1, 2 ORDER BY 1, 2`, utcDate(first), utcDate(last)).Query(func(rows pgx.Rows) error {
		var d CardDay
		var spent string
		_, err := pgx.ForEachRow(rows, []any{&d.Day, &d.Currency, &d.Spends, &spent, &d.Declines}, func() error {
			var err error
			if d.Spent, err = decimal.NewFromString(spent); err != nil {
				return err
			}
			*out = append(*out, d)
			return nil
		})
		return err
	})
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
	queueWebhookHealth(b, since, &out)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return out, fmt.Errorf("store: webhook health: %w", err)
	}
	return out, nil
}

func queueWebhookHealth(b *pgx.Batch, since time.Time, out *WebhookHealth) {
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
	// The refusals, and the newest delivery (the newest row by key: no
	// index on the time is needed for it), as one statement.
	b.Queue(`SELECT (SELECT count(*) FROM webhook_signature_failures WHERE at >= $1),
		(SELECT received_at FROM webhook_events ORDER BY id DESC LIMIT 1)`, since).QueryRow(func(row pgx.Row) error {
		return row.Scan(&out.SignatureFailures, &out.LastReceived)
	})
}

// DashboardRequest says which parts of the start page to read, and their
// windows; a part not asked for costs nothing.
type DashboardRequest struct {
	Now   time.Time
	Limit int // the lists' length

	HR         bool
	Currencies []string // the readiness table's

	// Finance: open sign links, the treasury's wallets, money in and out
	// over the days from MoneyFirst to MoneyLast, payroll runs in
	// progress.
	Finance               bool
	MoneyFirst, MoneyLast time.Time
	Support               bool
	CardFirst, CardLast   time.Time // stopped cards since CardFirst; spends per day
	Webhooks              bool
	WebhooksSince         time.Time
	ReconciliationsToShow int
}

// Dashboard is what the start page reads from the mirror: each part is
// set when the request asked for it.
type Dashboard struct {
	HR HRDashboard

	SignLinks      []OpenSignLink
	SignLinksTotal int
	// NoTreasury: no treasury user is known upstream (Wallets is empty).
	NoTreasury bool
	Wallets    []Wallet
	Money      []MoneyDay
	Payroll    []PayrollInProgress

	Stopped      []StoppedCard
	StoppedTotal int
	CardDays     []CardDay

	Webhooks        WebhookHealth
	Reconciliations []ReconciliationRun
}

// Dashboard reads every part of the start page that r asks for as one
// pipelined batch on one connection: one round trip, where a connection
// per part cost both processes a round trip each (the start page is
// everyone's landing page, polled every 10 seconds). The statements are
// those of HRDashboard, OpenSignLinks, MoneyInOut, PayrollRunsInProgress,
// RecentlyStoppedCards, CardSpendByDay and WebhookHealth, with the
// treasury's wallets (as Treasury reads them) and the latest
// reconciliations (as ListReconciliations does).
func (s *Store) Dashboard(ctx context.Context, r DashboardRequest) (Dashboard, error) {
	var out Dashboard
	b := &pgx.Batch{}
	if r.Finance {
		queueMoneyInOut(b, r.MoneyFirst, r.MoneyLast, &out.Money)
		queueTreasuryWallets(b, &out.Wallets, &out.NoTreasury)
	}
	if r.Support {
		queueCardSpendByDay(b, r.CardFirst, r.CardLast, &out.CardDays)
		queueStoppedCards(b, r.CardFirst, r.Limit, &out.Stopped, &out.StoppedTotal)
	}
	var hr hrRead
	if r.HR {
		hr = queueHRDashboard(b, r.Now, r.Limit, r.Currencies)
	}
	if r.Finance {
		queueOpenSignLinks(b, r.Now, r.Limit, &out.SignLinks, &out.SignLinksTotal)
		queuePayrollRunsInProgress(b, r.Limit, &out.Payroll)
	}
	if r.Webhooks {
		queueWebhookHealth(b, r.WebhooksSince, &out.Webhooks)
		b.Queue(reconciliationsSQL, r.ReconciliationsToShow).Query(func(rows pgx.Rows) (err error) {
			out.Reconciliations, err = pgx.CollectRows(rows, scanReconciliation)
			return err
		})
	}
	if b.Len() > 0 {
		if err := s.db.SendBatch(ctx, b).Close(); err != nil {
			return Dashboard{}, fmt.Errorf("store: dashboard: %w", err)
		}
	}
	if r.HR {
		hr.finish()
		out.HR = *hr.HRDashboard
	}
	return out, nil
}

// queueTreasuryWallets reads the wallets of the treasury user Treasury
// finds; *none is set when there is no such user. Neither statement has
// a parameter: each is planned once per connection.
func queueTreasuryWallets(b *pgx.Batch, ws *[]Wallet, none *bool) {
	b.Queue(`SELECT NOT EXISTS (` + treasuryUserIDSQL + `)`).QueryRow(func(row pgx.Row) error { return row.Scan(none) })
	queueTreasuryWalletList(b, ws)
}
