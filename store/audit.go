package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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

// AuditFilter selects audit rows, newest first, with keyset paging.
type AuditFilter struct {
	// Query keeps rows whose actor, action, target or detail holds it
	// (any case); an empty actor is searched as "system".
	Query string
	// Actor keeps one actor's rows (an email, any case; "system" for the
	// rows no staff member made).
	Actor  string
	Action string
	Target string
	// From and To keep rows at or after From and before To (zero: open).
	From, To time.Time
	BeforeID int64 // 0: from the newest
	Limit    int
}

// auditSearchText is the text Query is matched in: the expression of the
// trigram index of migration 0035, so the planner can use it.
const auditSearchText = `(coalesce(nullif(actor_email, ''), 'system') || E'\n' || action || E'\n' || target || E'\n' || detail)`

// likeEscaper makes typed text match itself in LIKE (\ is LIKE's escape).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// auditWhere is the filter's condition and its arguments.
func auditWhere(f AuditFilter) (string, []any) {
	where := []string{"true"}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		where = append(where, auditSearchText+" ILIKE "+arg("%"+likeEscaper.Replace(q)+"%"))
	}
	switch a := strings.TrimSpace(f.Actor); {
	case strings.EqualFold(a, "system"):
		where = append(where, "actor_email = ''")
	case a != "":
		where = append(where, "lower(actor_email) = lower("+arg(a)+")")
	}
	if f.Action != "" {
		where = append(where, "action = "+arg(f.Action))
	}
	if f.Target != "" {
		where = append(where, "target = "+arg(f.Target))
	}
	if !f.From.IsZero() {
		where = append(where, "at >= "+arg(f.From))
	}
	if !f.To.IsZero() {
		where = append(where, "at < "+arg(f.To))
	}
	if f.BeforeID != 0 {
		where = append(where, "id < "+arg(f.BeforeID))
	}
	return strings.Join(where, " AND "), args
}

// ListAudit returns audit rows newest first.
func (s *Store) ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	where, args := auditWhere(f)
	// Planned for these values each time (an unnamed statement), never a
	// cached generic plan: for "ILIKE $1" a generic plan cannot tell a
	// rare substring (the trigram index) from a common one (walking the
	// newest rows), and picked the walk for both.
	args = append([]any{pgx.QueryExecModeExec}, args...)
	rows, err := s.db.Query(ctx, `
		SELECT id, at, COALESCE(actor_id, 0), actor_email, action, target, outcome, detail
		FROM audit_log
		WHERE `+where+`
		ORDER BY id DESC
		LIMIT `+strconv.Itoa(f.Limit), args...)
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

// AuditActions lists every action the log holds, in order, for the
// filter's choices: one index probe per action (a loose index scan), not a
// read of the whole log.
func (s *Store) AuditActions(ctx context.Context) ([]string, error) {
	rows, err := s.db.Query(ctx, `
		WITH RECURSIVE a(action) AS (
			SELECT min(action) FROM audit_log
			UNION ALL
			SELECT (SELECT min(l.action) FROM audit_log l WHERE l.action > a.action) FROM a WHERE a.action IS NOT NULL
		)
		SELECT action FROM a WHERE action IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("store: audit actions: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: audit actions: %w", err)
	}
	return list, nil
}
