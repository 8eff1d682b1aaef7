package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Rails of a SepaMXNOrder.
const (
	RailSEPA = "sepa"
	RailMXN  = "mxn"
)

// SepaMXNOrder is a EUR SEPA payout or a Mexican offramp the API opened
// from Money out. The request that opened it is an action of the ledger:
// until the API answered, and when it refused or did not answer, the order
// has no row and its state is the action's.
type SepaMXNOrder struct {
	ID         int64
	Rail       string
	ActionKey  string
	UpstreamID string
	UserID     string
	WalletID   string
	Currency   string
	Amount     decimal.Decimal
	// SEPA: the beneficiary, the IBAN masked to its country and last four
	// characters (never the whole number), the remittance reference. MXN:
	// Reference is the note.
	Beneficiary string
	IBANMasked  string
	Reference   string
	// MXN quote.
	DestinationAmount decimal.NullDecimal
	FeeBps            decimal.NullDecimal
	FeeAmount         decimal.NullDecimal
	ExchangeRate      decimal.NullDecimal
	QuoteExpiresAt    *time.Time
	// Status is the order's status as last read, at StatusReadAt.
	Status       string
	StatusReadAt time.Time
	// The first (SEPA: the only) signatureRequest and its sign request.
	WorkflowID    string
	HashToSign    string
	Deadline      *time.Time
	SignRequestID int64
	// MXN: the burnSignatureRequest, recorded when the order first shows it.
	BurnWorkflowID    string
	BurnHashToSign    string
	BurnDeadline      *time.Time
	BurnSignRequestID int64
	CreatedByStaffID  int64
	CreatedBy         string
	CreatedAt         time.Time
}

const sepaMXNOrderColumns = `id, rail, action_key, upstream_id, user_id, wallet_id, currency, amount::text, beneficiary,
	iban_masked, reference, destination_amount::text, fee_bps::text, fee_amount::text, exchange_rate::text,
	quote_expires_at, status, status_read_at, workflow_id, hash_to_sign, deadline, coalesce(sign_request_id, 0),
	burn_workflow_id, burn_hash_to_sign, burn_deadline, coalesce(burn_sign_request_id, 0),
	coalesce(created_by_staff_id, 0), created_by, created_at`

func scanSepaMXNOrder(row pgx.Row) (SepaMXNOrder, error) {
	var o SepaMXNOrder
	var amount string
	var dest, bps, fee, rate *string
	err := row.Scan(&o.ID, &o.Rail, &o.ActionKey, &o.UpstreamID, &o.UserID, &o.WalletID, &o.Currency, &amount, &o.Beneficiary,
		&o.IBANMasked, &o.Reference, &dest, &bps, &fee, &rate, &o.QuoteExpiresAt, &o.Status, &o.StatusReadAt,
		&o.WorkflowID, &o.HashToSign, &o.Deadline, &o.SignRequestID, &o.BurnWorkflowID, &o.BurnHashToSign, &o.BurnDeadline,
		&o.BurnSignRequestID, &o.CreatedByStaffID, &o.CreatedBy, &o.CreatedAt)
	if err != nil {
		return o, err
	}
	if o.Amount, err = decimal.NewFromString(amount); err != nil {
		return o, fmt.Errorf("amount %q: %w", amount, err)
	}
	for _, f := range []struct {
		s   *string
		out *decimal.NullDecimal
	}{{dest, &o.DestinationAmount}, {bps, &o.FeeBps}, {fee, &o.FeeAmount}, {rate, &o.ExchangeRate}} {
		if f.s == nil {
			continue
		}
		d, err := decimal.NewFromString(*f.s)
		if err != nil {
			return o, fmt.Errorf("quote figure %q: %w", *f.s, err)
		}
		*f.out = decimal.NullDecimal{Decimal: d, Valid: true}
	}
	return o, nil
}

func nullNumeric(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := d.Decimal.String()
	return &s
}

// ReserveSepaMXNOrderID takes the id of an order about to be asked for, so
// that its action names it from the start.
func (s *Store) ReserveSepaMXNOrderID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('sepa_mxn_orders', 'id'))`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: reserve sepa/mxn order id: %w", err)
	}
	return id, nil
}

// InsertSepaMXNOrder records an order the API opened, under its reserved id
// (in the transaction that finishes its action).
func (s *Store) InsertSepaMXNOrder(ctx context.Context, o SepaMXNOrder) (SepaMXNOrder, error) {
	if o.ID == 0 || o.ActionKey == "" || o.UpstreamID == "" {
		return SepaMXNOrder{}, errors.New("store: insert sepa/mxn order: a reserved id, an action key and the API's order id are needed")
	}
	var createdBy *int64
	if o.CreatedByStaffID != 0 {
		createdBy = &o.CreatedByStaffID
	}
	out, err := scanSepaMXNOrder(s.db.QueryRow(ctx, `
		INSERT INTO sepa_mxn_orders (id, rail, action_key, upstream_id, user_id, wallet_id, currency, amount, beneficiary,
			iban_masked, reference, destination_amount, fee_bps, fee_amount, exchange_rate, quote_expires_at, status,
			workflow_id, hash_to_sign, deadline, created_by_staff_id, created_by)
		OVERRIDING SYSTEM VALUE
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8::numeric, $9, $10, $11, $12::numeric, $13::numeric, $14::numeric, $15::numeric,
			$16, $17, $18, $19, $20, $21, $22)
		RETURNING `+sepaMXNOrderColumns,
		o.ID, o.Rail, o.ActionKey, o.UpstreamID, o.UserID, o.WalletID, o.Currency, o.Amount.String(), o.Beneficiary,
		o.IBANMasked, o.Reference, nullNumeric(o.DestinationAmount), nullNumeric(o.FeeBps), nullNumeric(o.FeeAmount),
		nullNumeric(o.ExchangeRate), o.QuoteExpiresAt, o.Status, o.WorkflowID, o.HashToSign, o.Deadline, createdBy, o.CreatedBy))
	if err != nil {
		return SepaMXNOrder{}, fmt.Errorf("store: insert sepa/mxn order %d: %w", o.ID, err)
	}
	return out, nil
}

// SepaMXNOrderByID loads an order of a rail.
func (s *Store) SepaMXNOrderByID(ctx context.Context, rail string, id int64) (SepaMXNOrder, error) {
	o, err := scanSepaMXNOrder(s.db.QueryRow(ctx, `SELECT `+sepaMXNOrderColumns+` FROM sepa_mxn_orders WHERE id = $1 AND rail = $2`, id, rail))
	if err != nil {
		return SepaMXNOrder{}, fmt.Errorf("store: load %s order %d: %w", rail, id, notFound(err))
	}
	return o, nil
}

// SetSepaMXNSignRequest links an order to the sign request that carries
// its first (burn false) or burn signature: the latest one when a link was
// issued again.
func (s *Store) SetSepaMXNSignRequest(ctx context.Context, id int64, burn bool, signRequestID int64) error {
	q := `UPDATE sepa_mxn_orders SET sign_request_id = $2 WHERE id = $1`
	if burn {
		q = `UPDATE sepa_mxn_orders SET burn_sign_request_id = $2 WHERE id = $1`
	}
	tag, err := s.db.Exec(ctx, q, id, signRequestID)
	if err != nil {
		return fmt.Errorf("store: link order %d to sign request %d: %w", id, signRequestID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: link order %d: %w", id, ErrNotFound)
	}
	return nil
}

// RecordSepaMXNRead keeps what a read of the order said: its status and,
// for an offramp, the burnSignatureRequest the first time it appears (the
// hash is kept because the order stops showing it once it is signed).
func (s *Store) RecordSepaMXNRead(ctx context.Context, id int64, status, burnWorkflowID, burnHash string, burnDeadline *time.Time) error {
	_, err := s.db.Exec(ctx, `
		UPDATE sepa_mxn_orders SET status = $2, status_read_at = now(),
			burn_workflow_id = CASE WHEN burn_workflow_id = '' THEN $3 ELSE burn_workflow_id END,
			burn_hash_to_sign = CASE WHEN burn_workflow_id = '' THEN $4 ELSE burn_hash_to_sign END,
			burn_deadline = CASE WHEN burn_workflow_id = '' THEN $5 ELSE burn_deadline END
		WHERE id = $1`, id, status, burnWorkflowID, burnHash, burnDeadline)
	if err != nil {
		return fmt.Errorf("store: record the read of order %d: %w", id, err)
	}
	return nil
}

// RecentSepaMXNOrders lists a rail's newest orders, newest first.
func (s *Store) RecentSepaMXNOrders(ctx context.Context, rail string, limit int) ([]SepaMXNOrder, error) {
	rows, err := s.db.Query(ctx, `SELECT `+sepaMXNOrderColumns+` FROM sepa_mxn_orders WHERE rail = $1 ORDER BY id DESC LIMIT $2`, rail, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent %s orders: %w", rail, err)
	}
	defer rows.Close()
	var out []SepaMXNOrder
	for rows.Next() {
		o, err := scanSepaMXNOrder(rows)
		if err != nil {
			return nil, fmt.Errorf("store: recent %s orders: %w", rail, err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// SepaMXNOrderBySignRequest loads the order a sign request carries a
// signature of; burn is true when it is an offramp's burn signature.
func (s *Store) SepaMXNOrderBySignRequest(ctx context.Context, signRequestID int64) (o SepaMXNOrder, burn bool, err error) {
	o, err = scanSepaMXNOrder(s.db.QueryRow(ctx, `SELECT `+sepaMXNOrderColumns+` FROM sepa_mxn_orders
		WHERE sign_request_id = $1 OR burn_sign_request_id = $1`, signRequestID))
	if err != nil {
		return SepaMXNOrder{}, false, fmt.Errorf("store: order of sign request %d: %w", signRequestID, notFound(err))
	}
	return o, o.BurnSignRequestID == signRequestID, nil
}
