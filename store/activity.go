package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Activity kinds.
const (
	ActivityDeposit         = "deposit"
	ActivityWithdrawal      = "withdrawal"
	ActivityCardTransaction = "card_transaction"
	ActivityCardFulfillment = "card_fulfillment"
)

// Activity is one entry of an employee's activity feed: a money or card
// event. Amounts are decimals in major units; nil when the event had none.
type Activity struct {
	ID             int64
	WebhookEventID int64
	ServiceUserID  string
	Kind           string
	EventType      string
	Status         string
	Amount         *decimal.Decimal
	Fee            *decimal.Decimal
	Currency       string
	Reference      string
	Description    string
	OccurredAt     time.Time
	RecordedAt     time.Time
}

const insertActivity = `
	INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, fee, currency,
		reference, description, occurred_at)
	VALUES ($1, $2, $3, $4, $5, $6::text::numeric, $7::text::numeric, $8, $9, $10, $11)
	ON CONFLICT (webhook_event_id) DO NOTHING`

// QueueActivity adds the insert of an activity row to a batch sent inside
// the processing transaction. The webhook event is the key: a second run
// for the same event changes nothing.
func QueueActivity(b *pgx.Batch, a Activity) {
	b.Queue(insertActivity, a.WebhookEventID, a.ServiceUserID, a.Kind, a.EventType, a.Status, decimalText(a.Amount),
		decimalText(a.Fee), a.Currency, a.Reference, truncate(a.Description, 500), a.OccurredAt)
}

func decimalText(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func scanDecimal(s *string) (*decimal.Decimal, error) {
	if s == nil {
		return nil, nil
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// ListActivity returns a user's activity, newest first ("" for everyone).
func (s *Store) ListActivity(ctx context.Context, serviceUserID string, limit int) ([]Activity, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, webhook_event_id, service_user_id, kind, event_type, status, amount::text, fee::text, currency,
			reference, description, occurred_at, recorded_at
		FROM activity WHERE ($1 = '' OR service_user_id = $1)
		ORDER BY occurred_at DESC, id DESC LIMIT $2`, serviceUserID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list activity: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Activity, error) {
		var a Activity
		var amount, fee *string
		if err := r.Scan(&a.ID, &a.WebhookEventID, &a.ServiceUserID, &a.Kind, &a.EventType, &a.Status, &amount, &fee,
			&a.Currency, &a.Reference, &a.Description, &a.OccurredAt, &a.RecordedAt); err != nil {
			return a, err
		}
		var err error
		if a.Amount, err = scanDecimal(amount); err != nil {
			return a, err
		}
		a.Fee, err = scanDecimal(fee)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: list activity: %w", err)
	}
	return out, nil
}

// WalletBalance is a wallet's balance as the API reported it.
type WalletBalance struct {
	SmartWalletID   string
	Currency        string
	DisplayCurrency string
	Balance         decimal.Decimal
}

// BalanceChange is one balance that a save changed, or a wallet the mirror
// does not know (Unknown).
type BalanceChange struct {
	SmartWalletID string
	Currency      string
	Was, Now      decimal.Decimal
	WasUnread     bool // the mirror had never read this balance
	Unknown       bool // no such wallet in the mirror: nothing stored
}

// SaveBalances writes balances read from the API at readAt into the wallets
// of the mirror and returns what changed. A read older than the stored one
// never overwrites it (events, and the reads they trigger, arrive out of
// order).
func (s *Store) SaveBalances(ctx context.Context, balances []WalletBalance, readAt time.Time) ([]BalanceChange, error) {
	var changes []BalanceChange
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		changes = nil
		for _, b := range balances {
			var was *string
			var readBefore *time.Time
			err := tx.QueryRow(ctx, `SELECT balance::text, balance_read_at FROM wallets WHERE id = $1 FOR UPDATE`,
				b.SmartWalletID).Scan(&was, &readBefore)
			if errors.Is(err, pgx.ErrNoRows) {
				changes = append(changes, BalanceChange{SmartWalletID: b.SmartWalletID, Currency: b.Currency, Now: b.Balance, Unknown: true})
				continue
			}
			if err != nil {
				return fmt.Errorf("store: save balances: %w", err)
			}
			if readBefore != nil && readBefore.After(readAt) {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE wallets SET balance = $2::text::numeric, balance_read_at = $3, updated_at = now() WHERE id = $1`,
				b.SmartWalletID, b.Balance.String(), readAt); err != nil {
				return fmt.Errorf("store: save balances: %w", err)
			}
			prev, err := scanDecimal(was)
			if err != nil {
				return fmt.Errorf("store: save balances: %w", err)
			}
			switch {
			case prev == nil:
				changes = append(changes, BalanceChange{SmartWalletID: b.SmartWalletID, Currency: b.Currency, Now: b.Balance, WasUnread: true})
			case !prev.Equal(b.Balance):
				changes = append(changes, BalanceChange{SmartWalletID: b.SmartWalletID, Currency: b.Currency, Was: *prev, Now: b.Balance})
			}
		}
		return nil
	})
	return changes, err
}

// KnownServiceUserIDs lists the users reconciliation checks: every linked
// employee of the mirror and every user the activity feed has seen.
func (s *Store) KnownServiceUserIDs(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, `
		SELECT service_user_id FROM employees WHERE service_user_id IS NOT NULL AND deleted_at IS NULL
		UNION SELECT service_user_id FROM activity WHERE service_user_id <> ''
		ORDER BY 1 LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: known users: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: known users: %w", err)
	}
	return out, nil
}

// ReconciliationRun is one run of the reconciliation job.
type ReconciliationRun struct {
	ID         int64
	StartedAt  time.Time
	FinishedAt time.Time
	Checked    int
	Corrected  int
	Notes      []string
}

// RecordReconciliation stores a run and, when it corrected anything, an
// audit row, in one transaction.
func (s *Store) RecordReconciliation(ctx context.Context, r ReconciliationRun) error {
	if r.Notes == nil {
		r.Notes = []string{}
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO reconciliation_runs (started_at, checked, corrected, notes) VALUES ($1, $2, $3, $4) RETURNING id`,
			r.StartedAt, r.Checked, r.Corrected, r.Notes).Scan(&id); err != nil {
			return fmt.Errorf("store: record reconciliation: %w", err)
		}
		if r.Corrected == 0 {
			return nil
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: Actor{Email: "reconciliation"}, Action: "webhooks.reconcile", Target: fmt.Sprintf("reconciliation:%d", id),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("checked %d, corrected %d", r.Checked, r.Corrected),
		})
	})
}

// reconciliationsSQL lists the most recent runs ($1 of them); the
// dashboard's batch reads it too.
const reconciliationsSQL = `SELECT id, started_at, finished_at, checked, corrected, notes FROM reconciliation_runs
	ORDER BY started_at DESC, id DESC LIMIT $1`

func scanReconciliation(r pgx.CollectableRow) (ReconciliationRun, error) {
	var x ReconciliationRun
	err := r.Scan(&x.ID, &x.StartedAt, &x.FinishedAt, &x.Checked, &x.Corrected, &x.Notes)
	return x, err
}

// ListReconciliations returns the most recent runs.
func (s *Store) ListReconciliations(ctx context.Context, limit int) ([]ReconciliationRun, error) {
	rows, err := s.db.Query(ctx, reconciliationsSQL, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list reconciliations: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanReconciliation)
	if err != nil {
		return nil, fmt.Errorf("store: list reconciliations: %w", err)
	}
	return out, nil
}
