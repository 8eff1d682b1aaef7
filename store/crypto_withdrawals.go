package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// WithdrawalState is where a crypto withdrawal the API opened stands. The
// request that opens it is an action of the ledger (kind
// crypto_withdrawal.create): until the API has answered, and when it
// refused or did not answer, the withdrawal has no row and its state is the
// action's.
type WithdrawalState string

// Withdrawal states.
const (
	WithdrawalAwaitingSignature WithdrawalState = "awaiting_signature" // the API returned a signatureRequest
	WithdrawalCreated           WithdrawalState = "created"            // the API asked for no signature
	// The outcome on the rail, from the withdrawal webhooks
	// (SettleCryptoWithdrawalTx): final, never changed again.
	WithdrawalCompleted  WithdrawalState = "completed"   // settled at the destination
	WithdrawalRailFailed WithdrawalState = "rail_failed" // signed and sent, but the rail did not complete it (FailureReason says why)
)

// CryptoWithdrawal is one crypto withdrawal the API opened from the
// treasury.
type CryptoWithdrawal struct {
	ID                  int64
	ActionKey           string // the key of the action that opened it
	UserID              string
	WalletID            string
	Currency            string
	BalanceSeen         decimal.NullDecimal // the mirrored balance when it was sent (the API withdraws the whole balance)
	DestinationChain    string
	DestinationCurrency string
	DestinationAddress  string
	State               WithdrawalState
	UpstreamID          string
	WorkflowID          string
	HashToSign          string
	Deadline            *time.Time
	SignRequestID       int64
	CreatedByStaffID    int64
	CreatedBy           string
	CreatedAt           time.Time
	// Set when a withdrawal webhook recorded the outcome on the rail.
	FailureReason  string // the rail's reason for WithdrawalRailFailed, as the event gave it
	SettledAt      *time.Time
	SettledEventID int64 // the webhook_events row that recorded it
	// Rail is "withdrawal" (POST /withdrawal/smart-wallet/crypto) or
	// "offramp" (the alternative POST /wallets/crypto-offramp).
	Rail string
}

// railOf is a withdrawal's rail, "withdrawal" when unset.
func railOf(r string) string {
	if r == "offramp" {
		return r
	}
	return "withdrawal"
}

// Settled reports whether the withdrawal's outcome on the rail is recorded.
func (c CryptoWithdrawal) Settled() bool {
	return c.State == WithdrawalCompleted || c.State == WithdrawalRailFailed
}

// The action key is kept in the column form_token, its first name.
const cryptoWithdrawalColumns = `id, form_token, user_id, wallet_id, currency, balance_seen::text, destination_chain,
	destination_currency, destination_address, state, upstream_id, workflow_id, hash_to_sign, deadline,
	coalesce(sign_request_id, 0), coalesce(created_by_staff_id, 0), created_by, created_at,
	failure_reason, settled_at, coalesce(settled_event_id, 0), rail`

func scanCryptoWithdrawal(row pgx.Row) (CryptoWithdrawal, error) {
	var c CryptoWithdrawal
	var balance *string
	err := row.Scan(&c.ID, &c.ActionKey, &c.UserID, &c.WalletID, &c.Currency, &balance, &c.DestinationChain,
		&c.DestinationCurrency, &c.DestinationAddress, &c.State, &c.UpstreamID, &c.WorkflowID, &c.HashToSign, &c.Deadline,
		&c.SignRequestID, &c.CreatedByStaffID, &c.CreatedBy, &c.CreatedAt,
		&c.FailureReason, &c.SettledAt, &c.SettledEventID, &c.Rail)
	if err != nil {
		return c, err
	}
	if balance != nil {
		d, err := decimal.NewFromString(*balance)
		if err != nil {
			return c, fmt.Errorf("balance %q: %w", *balance, err)
		}
		c.BalanceSeen = decimal.NullDecimal{Decimal: d, Valid: true}
	}
	return c, nil
}

// ReserveCryptoWithdrawalID takes the id a withdrawal will have if the API
// opens it, so that the action opening it names it from its start.
func (s *Store) ReserveCryptoWithdrawalID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('crypto_withdrawals', 'id'))`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: reserve crypto withdrawal id: %w", err)
	}
	return id, nil
}

// InsertCryptoWithdrawal records a withdrawal the API opened, under its
// reserved id (the finishing transaction of its action).
func (s *Store) InsertCryptoWithdrawal(ctx context.Context, c CryptoWithdrawal) (CryptoWithdrawal, error) {
	if c.ID == 0 || c.ActionKey == "" {
		return CryptoWithdrawal{}, errors.New("store: insert crypto withdrawal: a reserved id and an action key are needed")
	}
	var balance *string
	if c.BalanceSeen.Valid {
		b := c.BalanceSeen.Decimal.String()
		balance = &b
	}
	var createdBy *int64
	if c.CreatedByStaffID != 0 {
		createdBy = &c.CreatedByStaffID
	}
	out, err := scanCryptoWithdrawal(s.db.QueryRow(ctx, `
		INSERT INTO crypto_withdrawals (id, form_token, user_id, wallet_id, currency, balance_seen, destination_chain,
			destination_currency, destination_address, state, upstream_id, workflow_id, hash_to_sign, deadline,
			created_by_staff_id, created_by, finished_at, rail)
		OVERRIDING SYSTEM VALUE
		VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, now(), $17)
		RETURNING `+cryptoWithdrawalColumns,
		c.ID, c.ActionKey, c.UserID, c.WalletID, c.Currency, balance, c.DestinationChain, c.DestinationCurrency,
		c.DestinationAddress, c.State, c.UpstreamID, c.WorkflowID, c.HashToSign, c.Deadline, createdBy, c.CreatedBy, railOf(c.Rail)))
	if err != nil {
		return CryptoWithdrawal{}, fmt.Errorf("store: insert crypto withdrawal %d: %w", c.ID, err)
	}
	return out, nil
}

// SetCryptoWithdrawalSignRequest links a withdrawal to the sign request that
// carries its signature (the latest one when a link was issued again).
func (s *Store) SetCryptoWithdrawalSignRequest(ctx context.Context, id, signRequestID int64) error {
	tag, err := s.db.Exec(ctx, `UPDATE crypto_withdrawals SET sign_request_id = $2 WHERE id = $1`, id, signRequestID)
	if err != nil {
		return fmt.Errorf("store: crypto withdrawal %d sign request: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: crypto withdrawal %d sign request: %w", id, ErrNotFound)
	}
	return nil
}

// CryptoWithdrawalByID loads one withdrawal.
func (s *Store) CryptoWithdrawalByID(ctx context.Context, id int64) (CryptoWithdrawal, error) {
	c, err := scanCryptoWithdrawal(s.db.QueryRow(ctx, `SELECT `+cryptoWithdrawalColumns+` FROM crypto_withdrawals WHERE id = $1`, id))
	if err != nil {
		return CryptoWithdrawal{}, fmt.Errorf("store: load crypto withdrawal %d: %w", id, notFound(err))
	}
	return c, nil
}

// CryptoWithdrawalBySignRequest loads the withdrawal whose signature a sign
// request carries (ErrNotFound for a request of no withdrawal, or one a
// newer link replaced).
func (s *Store) CryptoWithdrawalBySignRequest(ctx context.Context, signRequestID int64) (CryptoWithdrawal, error) {
	c, err := scanCryptoWithdrawal(s.db.QueryRow(ctx, `SELECT `+cryptoWithdrawalColumns+` FROM crypto_withdrawals
		WHERE sign_request_id = $1 ORDER BY id DESC LIMIT 1`, signRequestID))
	if err != nil {
		return CryptoWithdrawal{}, fmt.Errorf("store: crypto withdrawal of sign request %d: %w", signRequestID, notFound(err))
	}
	return c, nil
}

// WithdrawalSettlement is what a withdrawal webhook (completed or failed)
// says of a crypto withdrawal, as the webhooks area read it.
type WithdrawalSettlement struct {
	EventID   int64  // the webhook_events row
	WebhookID string // its delivery id, for the audit row
	EventType string
	// UpstreamID is the payload's reference: the id the create call
	// returned. WorkflowID is used when a payload names the workflow.
	UpstreamID string
	WorkflowID string
	// WalletID and UserID, when the payload gives them, must be the
	// withdrawal's: an id of another rail is never taken for ours.
	WalletID  string
	UserID    string
	Completed bool   // completed; otherwise failed
	Reason    string // the rail's reason of a failure ("" when it gave none)
	// FailureWords is what the withdrawal's sign request shows for a
	// failure ("The withdrawal failed on the rail after it was signed: …").
	FailureWords string
	By           Actor
}

// SettleResult says what a settlement did.
type SettleResult struct {
	Known      bool // a crypto withdrawal of this app matched
	Changed    bool // this run recorded the outcome; false when it was recorded already
	Withdrawal CryptoWithdrawal
}

// SettleCryptoWithdrawalTx records a withdrawal's outcome on the rail inside
// tx (the caller's, which also records the event's outcome): the matching
// withdrawal becomes completed or rail_failed with the reason, its sign
// request (when the signature is submitted, or kept unsure) completed or
// refused with the words, and an audit row is written. Only a withdrawal
// that waits for the rail changes (the row is locked first), so a repeated
// or replayed delivery, or a second run of the same one, changes nothing; a
// payload that matches no withdrawal of this app is Known: false, no error.
func SettleCryptoWithdrawalTx(ctx context.Context, tx pgx.Tx, s WithdrawalSettlement) (SettleResult, error) {
	if s.UpstreamID == "" && s.WorkflowID == "" {
		return SettleResult{}, nil
	}
	c, err := scanCryptoWithdrawal(tx.QueryRow(ctx, `SELECT `+cryptoWithdrawalColumns+` FROM crypto_withdrawals
		WHERE ((upstream_id <> '' AND upstream_id = $1) OR (workflow_id <> '' AND workflow_id = $2))
			AND ($3 = '' OR wallet_id = $3) AND ($4 = '' OR user_id = $4)
		ORDER BY id DESC LIMIT 1 FOR UPDATE`, s.UpstreamID, s.WorkflowID, s.WalletID, s.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return SettleResult{}, nil
	}
	if err != nil {
		return SettleResult{}, fmt.Errorf("store: find crypto withdrawal %s: %w", s.UpstreamID+s.WorkflowID, err)
	}
	res := SettleResult{Known: true, Withdrawal: c}
	if c.State != WithdrawalAwaitingSignature && c.State != WithdrawalCreated {
		return res, nil
	}
	state, reason, signState, signError, outcome := WithdrawalCompleted, "", SignCompleted, "", OutcomeOK
	if !s.Completed {
		state, reason, signState, signError, outcome = WithdrawalRailFailed, truncate(s.Reason, 1000), SignRefused, truncate(s.FailureWords, 2000), OutcomeFailed
	}
	var eventID *int64
	if s.EventID != 0 {
		eventID = &s.EventID
	}
	c, err = scanCryptoWithdrawal(tx.QueryRow(ctx, `UPDATE crypto_withdrawals SET state = $2, failure_reason = $3, settled_at = now(),
			settled_event_id = $4
		WHERE id = $1 RETURNING `+cryptoWithdrawalColumns, c.ID, state, reason, eventID))
	if err != nil {
		return res, fmt.Errorf("store: settle crypto withdrawal %d: %w", res.Withdrawal.ID, err)
	}
	if c.SignRequestID != 0 {
		if _, err := tx.Exec(ctx, `UPDATE sign_requests SET state = $2, error = $3, signature = '', updated_at = now()
			WHERE id = $1 AND state IN ('submitted', 'relay_pending')`, c.SignRequestID, signState, signError); err != nil {
			return res, fmt.Errorf("store: settle sign request %d: %w", c.SignRequestID, err)
		}
	}
	detail := fmt.Sprintf("crypto withdrawal %s of wallet %s to %s (%s on %s) completed on the rail", c.UpstreamID, c.WalletID,
		c.DestinationAddress, c.DestinationCurrency, c.DestinationChain)
	if !s.Completed {
		detail = strings.TrimSuffix(detail, " completed on the rail") + " failed on the rail: " + orNoReason(reason)
	}
	detail += fmt.Sprintf(" (%s, delivery %s)", s.EventType, s.WebhookID)
	if err := writeAudit(ctx, tx, AuditEntry{Actor: s.By, Action: "crypto_withdrawal.settle",
		Target: fmt.Sprintf("crypto_withdrawal:%d", c.ID), Outcome: outcome, Detail: detail}); err != nil {
		return res, err
	}
	res.Changed, res.Withdrawal = true, c
	return res, nil
}

func orNoReason(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}
