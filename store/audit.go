package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Audit outcomes.
const (
	OutcomeOK      = "ok"
	OutcomeFailed  = "failed"
	OutcomeDenied  = "denied"
	OutcomeRefused = "refused"
)

// Actor is who did something: a staff member, or the system (zero ID).
type Actor struct {
	StaffID int64
	Email   string
}

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID      int64
	At      time.Time
	Actor   Actor
	Action  string // e.g. "staff.create", "card.freeze"
	Target  string // e.g. "staff:12", "card:abc"
	Outcome string // OutcomeOK, OutcomeFailed, ...
	Detail  string // words for a person; never secrets or personal numbers
}

// writeAudit inserts e using tx, so the row commits or rolls back with the
// change it records.
func writeAudit(ctx context.Context, tx dbtx, e AuditEntry) error {
	var actorID *int64
	if e.Actor.StaffID != 0 {
		actorID = &e.Actor.StaffID
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO audit_log (actor_id, actor_email, action, target, outcome, detail)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		actorID, e.Actor.Email, e.Action, e.Target, e.Outcome, e.Detail)
	if err != nil {
		return fmt.Errorf("store: write audit %s: %w", e.Action, err)
	}
	return nil
}

// Audit records an entry on its own, for actions whose only local change is
// the record itself (a refused request, an upstream call that failed).
func (s *Store) Audit(ctx context.Context, e AuditEntry) error {
	return s.InTx(ctx, func(tx pgx.Tx) error { return writeAudit(ctx, tx, e) })
}

// AuditInTx records an entry inside a transaction the caller owns.
func AuditInTx(ctx context.Context, tx pgx.Tx, e AuditEntry) error { return writeAudit(ctx, tx, e) }

// AuditFilter selects audit rows, newest first, with keyset paging.
type AuditFilter struct {
	Action   string
	BeforeID int64 // 0: from the newest
	Limit    int
}

// ListAudit returns audit rows newest first.
func (s *Store) ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, at, COALESCE(actor_id, 0), actor_email, action, target, outcome, detail
		FROM audit_log
		WHERE ($1 = '' OR action = $1) AND ($2 = 0 OR id < $2)
		ORDER BY id DESC
		LIMIT $3`, f.Action, f.BeforeID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: list audit: %w", err)
	}
	entries, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditEntry, error) {
		var e AuditEntry
		err := row.Scan(&e.ID, &e.At, &e.Actor.StaffID, &e.Actor.Email, &e.Action, &e.Target, &e.Outcome, &e.Detail)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: list audit: %w", err)
	}
	return entries, nil
}
