package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// BankPayoutState is where a bank payout is.
type BankPayoutState string

// The states of a payout.
const (
	BankPayoutAwaitingSignature BankPayoutState = "awaiting_signature" // opened; the owner signs its signatureRequest
	BankPayoutCreated           BankPayoutState = "created"            // opened with no signature asked
	BankPayoutProcessing        BankPayoutState = "processing"         // the rail accepted it and moves it
	BankPayoutCompleted         BankPayoutState = "completed"          // settled at the destination bank
	BankPayoutFailed            BankPayoutState = "failed"             // the rail did not complete it (refunded)
)

// Label says the state in people's words.
func (s BankPayoutState) Label() string {
	switch s {
	case BankPayoutAwaitingSignature:
		return "waiting for the owner's signature"
	case BankPayoutCreated:
		return "opened"
	case BankPayoutProcessing:
		return "signed: the rail is paying it out"
	case BankPayoutCompleted:
		return "completed"
	case BankPayoutFailed:
		return "failed"
	}
	return string(s)
}

// Final reports a state the payout does not leave.
func (s BankPayoutState) Final() bool { return s == BankPayoutCompleted || s == BankPayoutFailed }

// BankPayout is a bank payout started from Money out. Amount is the decimal the
// person typed (USD); AmountMinor the USDB minor units sent. Only the last
// four digits of the destination account are kept.
type BankPayout struct {
	ID               int64
	ActionKey        string
	UserID           string
	WalletID         string
	Amount           decimal.Decimal
	AmountMinor      int64
	Country          string
	Currency         string
	BankID           string
	BankName         string
	BranchID         string
	BranchName       string
	AccountLast4     string
	HolderName       string
	Note             string
	UpstreamID       string
	WorkflowID       string
	HashToSign       string
	Deadline         *time.Time
	QuoteSource      decimal.NullDecimal
	QuoteDestination decimal.NullDecimal
	QuoteRate        decimal.NullDecimal
	QuoteFee         decimal.NullDecimal
	QuoteExpiresAt   *time.Time
	State            BankPayoutState
	FailureReason    string
	SettledAt        *time.Time
	SignRequestID    int64
	CreatedByStaffID int64
	CreatedBy        string
	CreatedAt        time.Time
}

const bankPayoutColumns = `id, action_key, user_id, wallet_id, amount::text, amount_minor, country, currency, bank_id, bank_name,
	branch_id, branch_name, account_last4, holder_name, note, upstream_id, workflow_id, hash_to_sign, deadline,
	quote_source_amount::text, quote_destination::text, quote_rate::text, quote_fee::text, quote_expires_at,
	state, failure_reason, settled_at, coalesce(sign_request_id, 0), coalesce(created_by_staff_id, 0), created_by, created_at`

func bankPayoutDecimal(s *string) (decimal.NullDecimal, error) {
	if s == nil {
		return decimal.NullDecimal{}, nil
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return decimal.NullDecimal{}, fmt.Errorf("numeric %q: %w", *s, err)
	}
	return decimal.NullDecimal{Decimal: d, Valid: true}, nil
}

func bankPayoutDecimalText(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := d.Decimal.String()
	return &s
}

func scanBankPayout(row pgx.Row) (BankPayout, error) {
	var p BankPayout
	var amount string
	var src, dst, rate, fee *string
	err := row.Scan(&p.ID, &p.ActionKey, &p.UserID, &p.WalletID, &amount, &p.AmountMinor, &p.Country, &p.Currency, &p.BankID,
		&p.BankName, &p.BranchID, &p.BranchName, &p.AccountLast4, &p.HolderName, &p.Note, &p.UpstreamID, &p.WorkflowID,
		&p.HashToSign, &p.Deadline, &src, &dst, &rate, &fee, &p.QuoteExpiresAt, &p.State, &p.FailureReason, &p.SettledAt,
		&p.SignRequestID, &p.CreatedByStaffID, &p.CreatedBy, &p.CreatedAt)
	if err != nil {
		return p, err
	}
	if p.Amount, err = decimal.NewFromString(amount); err != nil {
		return p, fmt.Errorf("payout amount %q: %w", amount, err)
	}
	for _, f := range []struct {
		s   *string
		out *decimal.NullDecimal
	}{{src, &p.QuoteSource}, {dst, &p.QuoteDestination}, {rate, &p.QuoteRate}, {fee, &p.QuoteFee}} {
		if *f.out, err = bankPayoutDecimal(f.s); err != nil {
			return p, err
		}
	}
	return p, nil
}

// ReserveBankPayoutID takes the id a payout will have if the API opens it, so
// that the action opening it names it from its start.
func (s *Store) ReserveBankPayoutID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('payouts', 'id'))`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: reserve payout id: %w", err)
	}
	return id, nil
}

// InsertBankPayout records a payout the API opened, under its reserved id (in
// the transaction that finishes its action).
func (s *Store) InsertBankPayout(ctx context.Context, p BankPayout) (BankPayout, error) {
	if p.ID == 0 || p.ActionKey == "" {
		return BankPayout{}, errors.New("store: insert payout: a reserved id and an action key are needed")
	}
	var createdBy *int64
	if p.CreatedByStaffID != 0 {
		createdBy = &p.CreatedByStaffID
	}
	out, err := scanBankPayout(s.db.QueryRow(ctx, `
		INSERT INTO payouts (id, action_key, user_id, wallet_id, amount, amount_minor, country, currency, bank_id, bank_name,
			branch_id, branch_name, account_last4, holder_name, note, upstream_id, workflow_id, hash_to_sign, deadline,
			quote_source_amount, quote_destination, quote_rate, quote_fee, quote_expires_at, state, created_by_staff_id, created_by)
		OVERRIDING SYSTEM VALUE
		VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
			$20::numeric, $21::numeric, $22::numeric, $23::numeric, $24, $25, $26, $27)
		RETURNING `+bankPayoutColumns,
		p.ID, p.ActionKey, p.UserID, p.WalletID, p.Amount.String(), p.AmountMinor, p.Country, p.Currency, p.BankID, p.BankName,
		p.BranchID, p.BranchName, p.AccountLast4, p.HolderName, p.Note, p.UpstreamID, p.WorkflowID, p.HashToSign, p.Deadline,
		bankPayoutDecimalText(p.QuoteSource), bankPayoutDecimalText(p.QuoteDestination), bankPayoutDecimalText(p.QuoteRate), bankPayoutDecimalText(p.QuoteFee),
		p.QuoteExpiresAt, p.State, createdBy, p.CreatedBy))
	if err != nil {
		return BankPayout{}, fmt.Errorf("store: insert payout %d: %w", p.ID, err)
	}
	return out, nil
}

// BankPayoutByID loads one payout.
func (s *Store) BankPayoutByID(ctx context.Context, id int64) (BankPayout, error) {
	p, err := scanBankPayout(s.db.QueryRow(ctx, `SELECT `+bankPayoutColumns+` FROM payouts WHERE id = $1`, id))
	if err != nil {
		return BankPayout{}, fmt.Errorf("store: load payout %d: %w", id, notFound(err))
	}
	return p, nil
}

// SetBankPayoutSignRequest links a payout to the sign request that carries its
// signature (the latest one when a link was issued again).
func (s *Store) SetBankPayoutSignRequest(ctx context.Context, id, signRequestID int64) error {
	tag, err := s.db.Exec(ctx, `UPDATE payouts SET sign_request_id = $2 WHERE id = $1`, id, signRequestID)
	if err != nil {
		return fmt.Errorf("store: payout %d sign request: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: payout %d sign request: %w", id, ErrNotFound)
	}
	return nil
}

// FollowBankPayout moves a payout along what the withdrawal webhooks recorded
// for it (the activity feed's rows whose reference is the payout's id, of
// the payout's user): processing, then completed or failed with the
// event's reason. A change to a final state also settles the payout's sign
// request and writes an audit row, in one transaction; a payout already
// final, or with nothing new, is returned unchanged. The row is locked, so
// two pages following it at once record the outcome once.
func (s *Store) FollowBankPayout(ctx context.Context, id int64) (BankPayout, bool, error) {
	var out BankPayout
	changed := false
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		p, err := scanBankPayout(tx.QueryRow(ctx, `SELECT `+bankPayoutColumns+` FROM payouts WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return fmt.Errorf("store: follow payout %d: %w", id, notFound(err))
		}
		out = p
		if p.State.Final() || p.UpstreamID == "" {
			return nil
		}
		var status, reason string
		var eventID int64
		err = tx.QueryRow(ctx, `
			SELECT a.status, coalesce(convert_from(e.body, 'UTF8')::jsonb -> 'payload' ->> 'reason', ''), e.id
			FROM activity a JOIN webhook_events e ON e.id = a.webhook_event_id
			WHERE a.kind = 'withdrawal' AND a.reference = $1 AND a.service_user_id = $2
			ORDER BY CASE a.status WHEN 'completed' THEN 0 WHEN 'failed' THEN 0 ELSE 1 END, a.id DESC
			LIMIT 1`, p.UpstreamID, p.UserID).Scan(&status, &reason, &eventID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: follow payout %d: %w", id, err)
		}
		next := p.State
		switch status {
		case "completed":
			next = BankPayoutCompleted
		case "failed":
			next = BankPayoutFailed
		case "processing":
			next = BankPayoutProcessing
		}
		if next == p.State {
			return nil
		}
		p, err = scanBankPayout(tx.QueryRow(ctx, `UPDATE payouts SET state = $2, failure_reason = $3,
				settled_at = CASE WHEN $2 IN ('completed', 'failed') THEN now() END
			WHERE id = $1 RETURNING `+bankPayoutColumns, id, next, truncate(reason, 1000)))
		if err != nil {
			return fmt.Errorf("store: follow payout %d: %w", id, err)
		}
		out, changed = p, true
		if !next.Final() {
			return nil
		}
		signState, signError, outcome := SignCompleted, "", OutcomeOK
		detail := fmt.Sprintf("bank payout %s of %d USDB minor units to %s ****%s completed at the destination bank (delivery %d)",
			p.UpstreamID, p.AmountMinor, p.BankName, p.AccountLast4, eventID)
		if next == BankPayoutFailed {
			signState, signError, outcome = SignRefused, truncate("The payout failed on the rail: "+orNoReason(reason), 2000), OutcomeFailed
			detail = fmt.Sprintf("bank payout %s to %s ****%s failed on the rail: %s (delivery %d)", p.UpstreamID, p.BankName,
				p.AccountLast4, orNoReason(reason), eventID)
		}
		if p.SignRequestID != 0 {
			if _, err := tx.Exec(ctx, `UPDATE sign_requests SET state = $2, error = $3, signature = '', updated_at = now()
				WHERE id = $1 AND state IN ('submitted', 'relay_pending')`, p.SignRequestID, signState, signError); err != nil {
				return fmt.Errorf("store: settle payout sign request %d: %w", p.SignRequestID, err)
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: Actor{Email: "partner-api webhook"}, Action: "bank_payout.settle",
			Target: fmt.Sprintf("bank_payout:%d", p.ID), Outcome: outcome, Detail: detail})
	})
	return out, changed, err
}

// BankPayoutBySignRequest loads the payout a sign request carries the
// signature of.
func (s *Store) BankPayoutBySignRequest(ctx context.Context, signRequestID int64) (BankPayout, error) {
	p, err := scanBankPayout(s.db.QueryRow(ctx, `SELECT `+bankPayoutColumns+` FROM payouts WHERE sign_request_id = $1`, signRequestID))
	if err != nil {
		return BankPayout{}, fmt.Errorf("store: payout of sign request %d: %w", signRequestID, notFound(err))
	}
	return p, nil
}
