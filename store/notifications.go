package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Notification channels.
const (
	ChannelEmail = "email"
	ChannelChat  = "chat"
)

// Notification states. A row is pending until a send job claims it
// (sending); the job records sent, pending again (the message was certainly
// not delivered: it is retried), failed (refused for good, or out of
// tries) or uncertain (it may have been delivered: never sent again).
const (
	NotificationPending   = "pending"
	NotificationSending   = "sending"
	NotificationSent      = "sent"
	NotificationFailed    = "failed"
	NotificationUncertain = "uncertain"
)

// ChatRecipient is the recipient of a message to the team's chat channel:
// one per event, whoever it concerns.
const ChatRecipient = "chat:shared"

// StaffRecipient is the recipient key of a staff member.
func StaffRecipient(staffID int64) string { return "staff:" + strconv.FormatInt(staffID, 10) }

// NotificationIntent is a message the scan found due. Its (Kind, Subject,
// Recipient, Channel) is unique: the same intent found again adds nothing.
type NotificationIntent struct {
	Kind      string
	Subject   string
	Recipient string
	Channel   string
	StaffID   int64 // 0 for the chat channel
	Title     string
	Body      string
	Link      string
}

// Notification is a stored notification, with the recipient's email
// address as it is now (staff may change it).
type Notification struct {
	ID        int64
	Kind      string
	Subject   string
	Recipient string
	Channel   string
	StaffID   int64
	Email     string
	// StaffRole and StaffDisabled are the recipient's as they are now.
	StaffRole     Role
	StaffDisabled bool
	Title         string
	Body          string
	Link          string
	State         string
	Attempts      int
	Error         string
	CreatedAt     time.Time
	ClaimedAt     *time.Time
	SentAt        *time.Time
}

const notificationColumns = `n.id, n.kind, n.subject, n.recipient, n.channel, coalesce(n.staff_id, 0), coalesce(s.email, ''),
	coalesce(s.role, ''), coalesce(s.disabled, false), n.title, n.body, n.link, n.state, n.attempts, n.error, n.created_at, n.claimed_at, n.sent_at`

func scanNotification(row pgx.Row) (Notification, error) {
	var n Notification
	err := row.Scan(&n.ID, &n.Kind, &n.Subject, &n.Recipient, &n.Channel, &n.StaffID, &n.Email, &n.StaffRole, &n.StaffDisabled, &n.Title, &n.Body, &n.Link,
		&n.State, &n.Attempts, &n.Error, &n.CreatedAt, &n.ClaimedAt, &n.SentAt)
	return n, err
}

// AddNotifications inserts the intents not yet recorded and, in the same
// transaction, calls enqueue for each new one (the send job): a
// notification is recorded with its job or not at all. It returns the ids
// of the new rows.
func (s *Store) AddNotifications(ctx context.Context, intents []NotificationIntent, enqueue func(ctx context.Context, tx pgx.Tx, id int64) error) ([]int64, error) {
	var ids []int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		ids = ids[:0]
		// The scan finds the same events every minute: read which are
		// recorded already, in one query, rather than trying (and
		// spending an id on) an insert for each.
		var kinds, subjects []string
		seenSubject := map[[2]string]bool{}
		for _, in := range intents {
			if k := [2]string{in.Kind, in.Subject}; !seenSubject[k] {
				seenSubject[k] = true
				kinds, subjects = append(kinds, in.Kind), append(subjects, in.Subject)
			}
		}
		rows, err := tx.Query(ctx, `SELECT n.kind, n.subject, n.recipient, n.channel
			FROM unnest($1::text[], $2::text[]) AS k(kind, subject)
			JOIN notifications n ON n.kind = k.kind AND n.subject = k.subject`, kinds, subjects)
		if err != nil {
			return fmt.Errorf("store: recorded notifications: %w", err)
		}
		recorded := map[[4]string]bool{}
		for rows.Next() {
			var k [4]string
			if err := rows.Scan(&k[0], &k[1], &k[2], &k[3]); err != nil {
				rows.Close()
				return fmt.Errorf("store: recorded notifications: %w", err)
			}
			recorded[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: recorded notifications: %w", err)
		}
		for _, in := range intents {
			if recorded[[4]string{in.Kind, in.Subject, in.Recipient, in.Channel}] {
				continue
			}
			var staffID *int64
			if in.StaffID != 0 {
				staffID = &in.StaffID
			}
			var id int64
			err := tx.QueryRow(ctx, `
				INSERT INTO notifications (kind, subject, recipient, channel, staff_id, title, body, link)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT (kind, subject, recipient, channel) DO NOTHING
				RETURNING id`,
				in.Kind, in.Subject, in.Recipient, in.Channel, staffID, in.Title, in.Body, in.Link).Scan(&id)
			if err == pgx.ErrNoRows {
				continue
			}
			if err != nil {
				return fmt.Errorf("store: add notification %s %s: %w", in.Kind, in.Subject, err)
			}
			if err := enqueue(ctx, tx, id); err != nil {
				return fmt.Errorf("store: enqueue notification %d: %w", id, err)
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// NotificationByID reads one notification.
func (s *Store) NotificationByID(ctx context.Context, id int64) (Notification, error) {
	n, err := scanNotification(s.db.QueryRow(ctx, `SELECT `+notificationColumns+`
		FROM notifications n LEFT JOIN staff s ON s.id = n.staff_id WHERE n.id = $1`, id))
	if err != nil {
		return Notification{}, fmt.Errorf("store: notification %d: %w", id, notFound(err))
	}
	return n, nil
}

// ClaimNotification moves a pending notification to sending, committed
// before anything is sent, and reports whether this call claimed it. A
// notification in any other state is returned as it is, unclaimed.
func (s *Store) ClaimNotification(ctx context.Context, id int64, now time.Time) (Notification, bool, error) {
	tag, err := s.db.Exec(ctx, `UPDATE notifications SET state = 'sending', claimed_at = $2, attempts = attempts + 1
		WHERE id = $1 AND state = 'pending'`, id, now)
	if err != nil {
		return Notification{}, false, fmt.Errorf("store: claim notification %d: %w", id, err)
	}
	n, err := s.NotificationByID(ctx, id)
	return n, tag.RowsAffected() == 1, err
}

// FinishNotification records how a claimed notification's sending ended:
// sent, pending (certainly not delivered; it will be tried again), failed
// or uncertain. Only a sending row changes; it reports whether it did.
func (s *Store) FinishNotification(ctx context.Context, id int64, state, errText string, now time.Time) (bool, error) {
	var sentAt *time.Time
	if state == NotificationSent {
		sentAt = &now
	}
	tag, err := s.db.Exec(ctx, `UPDATE notifications SET state = $2, error = $3, sent_at = $4
		WHERE id = $1 AND state = 'sending'`, id, state, errText, sentAt)
	if err != nil {
		return false, fmt.Errorf("store: finish notification %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// SweepSendingNotifications marks uncertain every notification claimed
// before `before` and still sending: the process that claimed it stopped
// mid-send, and whether the message left is unknown. They are returned to
// be reported; none is sent again.
func (s *Store) SweepSendingNotifications(ctx context.Context, before time.Time) ([]Notification, error) {
	rows, err := s.db.Query(ctx, `
		WITH swept AS (
			UPDATE notifications SET state = 'uncertain',
				error = 'the app stopped while sending it: it may or may not have been delivered, so it is not sent again'
			WHERE state = 'sending' AND claimed_at < $1 RETURNING *)
		SELECT `+notificationColumns+` FROM swept n LEFT JOIN staff s ON s.id = n.staff_id ORDER BY n.id`, before)
	if err != nil {
		return nil, fmt.Errorf("store: sweep notifications: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Notification, error) { return scanNotification(r) })
	if err != nil {
		return nil, fmt.Errorf("store: sweep notifications: %w", err)
	}
	return list, nil
}

// NotificationProblems lists the newest notifications that failed or whose
// delivery is uncertain, and how many there are in all.
func (s *Store) NotificationProblems(ctx context.Context, limit int) ([]Notification, int, error) {
	rows, err := s.db.Query(ctx, `SELECT `+notificationColumns+`
		FROM notifications n LEFT JOIN staff s ON s.id = n.staff_id
		WHERE n.state IN ('failed', 'uncertain') ORDER BY n.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("store: notification problems: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Notification, error) { return scanNotification(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("store: notification problems: %w", err)
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE state IN ('failed', 'uncertain')`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: notification problems: %w", err)
	}
	return list, total, nil
}

// PreferenceKey names one choice of the preferences: a kind on a channel.
func PreferenceKey(kind, channel string) string { return kind + "/" + channel }

// NotificationPreferences returns a staff member's stored choices by
// PreferenceKey; a missing key is on.
func (s *Store) NotificationPreferences(ctx context.Context, staffID int64) (map[string]bool, error) {
	rows, err := s.db.Query(ctx, `SELECT kind, channel, enabled FROM notification_preferences WHERE staff_id = $1`, staffID)
	if err != nil {
		return nil, fmt.Errorf("store: notification preferences of staff %d: %w", staffID, err)
	}
	defer rows.Close()
	m := map[string]bool{}
	for rows.Next() {
		var kind, channel string
		var on bool
		if err := rows.Scan(&kind, &channel, &on); err != nil {
			return nil, fmt.Errorf("store: notification preferences of staff %d: %w", staffID, err)
		}
		m[PreferenceKey(kind, channel)] = on
	}
	return m, rows.Err()
}

// NotificationOptOuts returns, for every staff member who turned something
// off, the PreferenceKeys turned off.
func (s *Store) NotificationOptOuts(ctx context.Context) (map[int64]map[string]bool, error) {
	rows, err := s.db.Query(ctx, `SELECT staff_id, kind, channel FROM notification_preferences WHERE NOT enabled`)
	if err != nil {
		return nil, fmt.Errorf("store: notification opt-outs: %w", err)
	}
	defer rows.Close()
	m := map[int64]map[string]bool{}
	for rows.Next() {
		var id int64
		var kind, channel string
		if err := rows.Scan(&id, &kind, &channel); err != nil {
			return nil, fmt.Errorf("store: notification opt-outs: %w", err)
		}
		if m[id] == nil {
			m[id] = map[string]bool{}
		}
		m[id][PreferenceKey(kind, channel)] = true
	}
	return m, rows.Err()
}

// PreferenceChoice is one kind on one channel, on or off.
type PreferenceChoice struct {
	Kind    string
	Channel string
	Enabled bool
}

// SetNotificationPreferences stores a staff member's choices and the audit
// row that records them, in one transaction.
func (s *Store) SetNotificationPreferences(ctx context.Context, staffID int64, choices []PreferenceChoice, by Actor, detail string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		for _, c := range choices {
			if _, err := tx.Exec(ctx, `
				INSERT INTO notification_preferences (staff_id, kind, channel, enabled) VALUES ($1, $2, $3, $4)
				ON CONFLICT (staff_id, kind, channel) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
				staffID, c.Kind, c.Channel, c.Enabled); err != nil {
				return fmt.Errorf("store: set notification preference of staff %d: %w", staffID, err)
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "notifications.preferences",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: detail})
	})
}

// What the scan looks for: each source below returns what is due now.

// AwaitingApproval is an open proposal waiting for approvals, with what is
// needed to tell who may approve it.
type AwaitingApproval struct {
	ID        string
	Round     int
	Type      string
	Amount    decimal.Decimal
	Currency  string
	Approvals []string // serviceUserIds of the wallet admins who approved
	CreatedBy int64    // staff id, 0 when not created in the app
}

// ProposalsAwaitingApproval lists proposals waiting for approvals that
// changed since `since` (older ones were notified when they were new, or
// are not news).
func (s *Store) ProposalsAwaitingApproval(ctx context.Context, since time.Time) ([]AwaitingApproval, error) {
	rows, err := s.db.Query(ctx, `SELECT id, round, type, amount::text, currency, approvals, coalesce(created_by_staff_id, 0)
		FROM proposals WHERE status = 'PENDING_APPROVALS' AND upstream_updated_at >= $1 ORDER BY upstream_created_at, id`, since)
	if err != nil {
		return nil, fmt.Errorf("store: proposals awaiting approval: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AwaitingApproval, error) {
		var p AwaitingApproval
		var amount string
		if err := r.Scan(&p.ID, &p.Round, &p.Type, &amount, &p.Currency, &p.Approvals, &p.CreatedBy); err != nil {
			return p, err
		}
		var err error
		p.Amount, err = decimal.NewFromString(amount)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: proposals awaiting approval: %w", err)
	}
	return list, nil
}

// ExpiringSignLink is an unused signing link that expires soon: a proposal's
// sign request or a batch (one of the two ids is set).
type ExpiringSignLink struct {
	RequestID  int64
	ProposalID string
	BatchID    int64
	ExpiresAt  time.Time
	CreatedBy  int64
}

// SignLinksExpiring lists the open signing links of proposals and the
// batches with items still to sign that expire after now and no later than
// until, with the staff member who issued them.
func (s *Store) SignLinksExpiring(ctx context.Context, now, until time.Time) ([]ExpiringSignLink, error) {
	rows, err := s.db.Query(ctx, `
		SELECT sr.id, sr.proposal_id, 0::bigint, sr.expires_at, sr.created_by_staff_id FROM sign_requests sr
		WHERE sr.kind = 'proposal' AND sr.state IN ('waiting', 'opened') AND `+noRelay+`
			AND sr.expires_at > $1 AND sr.expires_at <= $2 AND sr.created_by_staff_id IS NOT NULL
		UNION ALL
		SELECT 0::bigint, '', b.id, b.expires_at, b.created_by_staff_id FROM sign_batches b
		WHERE b.expires_at > $1 AND b.expires_at <= $2 AND b.created_by_staff_id IS NOT NULL
			AND EXISTS (SELECT 1 FROM sign_batch_items i WHERE i.batch_id = b.id AND i.state = 'waiting')
		ORDER BY 4`, now, until)
	if err != nil {
		return nil, fmt.Errorf("store: sign links expiring: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ExpiringSignLink, error) {
		var l ExpiringSignLink
		err := r.Scan(&l.RequestID, &l.ProposalID, &l.BatchID, &l.ExpiresAt, &l.CreatedBy)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: sign links expiring: %w", err)
	}
	return list, nil
}

// PayrollFailure is a finished payroll run some of whose rows were refused
// by the API or have an unknown outcome.
type PayrollFailure struct {
	RunID  int64
	Name   string
	Failed int
}

// PayrollRunsWithFailedRows lists runs finished since `since` with rows
// that did not become proposals.
func (s *Store) PayrollRunsWithFailedRows(ctx context.Context, since time.Time) ([]PayrollFailure, error) {
	rows, err := s.db.Query(ctx, `
		SELECT r.id, r.name, count(*) FROM payroll_runs r
			JOIN payroll_rows w ON w.run_id = r.id AND cardinality(w.problems) = 0
			JOIN actions a ON a.key = 'payroll:' || w.run_id || ':' || w.line AND a.state IN ('refused', 'unknown')
		WHERE r.state = 'sent' AND r.finished_at >= $1
		GROUP BY r.id, r.name ORDER BY r.id`, since)
	if err != nil {
		return nil, fmt.Errorf("store: payroll runs with failed rows: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PayrollFailure, error) {
		var f PayrollFailure
		err := r.Scan(&f.RunID, &f.Name, &f.Failed)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: payroll runs with failed rows: %w", err)
	}
	return list, nil
}

// WebhookFailureHour counts, in one hour (UTC), the deliveries whose
// processing failed or could not be read, and those refused for a bad
// signature.
type WebhookFailureHour struct {
	Hour              time.Time
	Failed            int
	SignatureFailures int
}

// WebhookFailureHours lists the hours since `since` with failing
// deliveries.
func (s *Store) WebhookFailureHours(ctx context.Context, since time.Time) ([]WebhookFailureHour, error) {
	rows, err := s.db.Query(ctx, `
		SELECT hour, sum(failed)::int, sum(bad)::int FROM (
			SELECT date_trunc('hour', received_at, 'UTC') AS hour, 1 AS failed, 0 AS bad FROM webhook_events
				WHERE state IN ('failed', 'unparseable') AND received_at >= $1
			UNION ALL
			SELECT date_trunc('hour', at, 'UTC'), 0, 1 FROM webhook_signature_failures WHERE at >= $1) f
		GROUP BY hour ORDER BY hour`, since)
	if err != nil {
		return nil, fmt.Errorf("store: webhook failure hours: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WebhookFailureHour, error) {
		var h WebhookFailureHour
		err := r.Scan(&h.Hour, &h.Failed, &h.SignatureFailures)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: webhook failure hours: %w", err)
	}
	return list, nil
}

// FlaggedEmployee is an employee the API asked to do something, and when
// the flag was raised.
type FlaggedEmployee struct {
	ID        int64
	FlaggedAt time.Time
}

// EmployeesNeedingAction lists the employees flagged as needing action
// since `since` and still flagged.
func (s *Store) EmployeesNeedingAction(ctx context.Context, since time.Time) ([]FlaggedEmployee, error) {
	rows, err := s.db.Query(ctx, `SELECT id, action_required_at FROM employees
		WHERE (invite_state = 'action_required' OR action_required <> '') AND deleted_at IS NULL
			AND action_required_at >= $1 ORDER BY id`, since)
	if err != nil {
		return nil, fmt.Errorf("store: employees needing action: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FlaggedEmployee, error) {
		var e FlaggedEmployee
		err := r.Scan(&e.ID, &e.FlaggedAt)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: employees needing action: %w", err)
	}
	return list, nil
}
