package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ActionState is where an upstream write stands in the action ledger.
type ActionState string

// Action states. An action is begun (committed before its one call), then
// done, refused, or unknown until it is read back.
const (
	ActionBegun   ActionState = "begun"
	ActionDone    ActionState = "done"
	ActionRefused ActionState = "refused"
	ActionUnknown ActionState = "unknown"
)

// Finished reports whether the outcome is settled (done or refused).
func (s ActionState) Finished() bool { return s == ActionDone || s == ActionRefused }

// auditOutcome is the audit log's outcome for a finished state.
func (s ActionState) auditOutcome() string {
	switch s {
	case ActionDone:
		return OutcomeOK
	case ActionRefused:
		return OutcomeRefused
	}
	return OutcomeUnknown
}

// OutcomeUnknown is the audit outcome of a write whose result is not known
// yet.
const OutcomeUnknown = "unknown"

// Action is one state-changing upstream call.
type Action struct {
	ID     int64
	Key    string
	Kind   string // e.g. "proposal.create", "card.freeze"
	Target string // e.g. "proposal:…", "card:…"; set at finish for creates
	Actor  Actor
	State  ActionState
	// Request is what was asked, as JSON: never secrets or identification
	// numbers.
	Request json.RawMessage
	// Result is what came back (done), as JSON; null otherwise.
	Result json.RawMessage
	// Message is the outcome in words for a person.
	Message    string
	BegunAt    time.Time
	UpdatedAt  time.Time
	FinishedAt *time.Time
	ReadBacks  int
}

// DecodeRequest reads the action's request into v.
func (a Action) DecodeRequest(v any) error {
	if err := json.Unmarshal(a.Request, v); err != nil {
		return fmt.Errorf("store: action %s request: %w", a.Key, err)
	}
	return nil
}

// DecodeResult reads the action's result into v.
func (a Action) DecodeResult(v any) error {
	if len(a.Result) == 0 || string(a.Result) == "null" {
		return fmt.Errorf("store: action %s has no result", a.Key)
	}
	if err := json.Unmarshal(a.Result, v); err != nil {
		return fmt.Errorf("store: action %s result: %w", a.Key, err)
	}
	return nil
}

// NewAction is an action about to be sent.
type NewAction struct {
	Key     string
	Kind    string
	Target  string
	Actor   Actor
	Request any
}

// ErrActionFinished is returned by FinishAction when another finisher (a
// read-back, the recovery job) settled the action first; nothing changed.
var ErrActionFinished = errors.New("store: action already finished")

const actionColumns = `id, key, kind, target, COALESCE(actor_id, 0), actor_email, state, request, result, message,
	begun_at, updated_at, finished_at, read_backs`

func scanAction(row pgx.Row) (Action, error) {
	var a Action
	var result []byte
	err := row.Scan(&a.ID, &a.Key, &a.Kind, &a.Target, &a.Actor.StaffID, &a.Actor.Email, &a.State, &a.Request, &result,
		&a.Message, &a.BegunAt, &a.UpdatedAt, &a.FinishedAt, &a.ReadBacks)
	a.Result = result
	return a, err
}

// BeginAction commits an action before its call. When the key exists it
// returns that action (fresh false) and changes nothing: a second click
// learns what the first did.
func (s *Store) BeginAction(ctx context.Context, n NewAction) (a Action, fresh bool, err error) {
	req, err := json.Marshal(n.Request)
	if err != nil {
		return Action{}, false, fmt.Errorf("store: begin action %s: encode request: %w", n.Kind, err)
	}
	if n.Request == nil {
		req = []byte("{}")
	}
	var actorID *int64
	if n.Actor.StaffID != 0 {
		actorID = &n.Actor.StaffID
	}
	a, err = scanAction(s.db.QueryRow(ctx, `
		INSERT INTO actions (key, kind, target, actor_id, actor_email, request)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (key) DO NOTHING
		RETURNING `+actionColumns, n.Key, n.Kind, n.Target, actorID, n.Actor.Email, req))
	if err == nil {
		return a, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Action{}, false, fmt.Errorf("store: begin action %s: %w", n.Kind, err)
	}
	a, err = s.ActionByKey(ctx, n.Key)
	if err != nil {
		return Action{}, false, err
	}
	return a, false, nil
}

// ActionByKey returns the action with the key.
func (s *Store) ActionByKey(ctx context.Context, key string) (Action, error) {
	a, err := scanAction(s.db.QueryRow(ctx, `SELECT `+actionColumns+` FROM actions WHERE key = $1`, key))
	if err != nil {
		return Action{}, fmt.Errorf("store: action %q: %w", key, notFound(err))
	}
	return a, nil
}

// Finish is the outcome of an action's call.
type Finish struct {
	State ActionState // done, refused or unknown
	// Target replaces the begun target when set (a create learns its id).
	Target string
	// Result is what came back, kept as JSON.
	Result any
	// Message is the outcome in words for a person.
	Message string
	// Detail is the audit row's detail (Message when empty). Never secrets
	// or personal numbers.
	Detail string
	// Apply makes the local changes that go with the outcome (the mirror
	// rows) in the same transaction as the ledger row and the audit row.
	Apply func(ctx context.Context, tx *Store) error
	// By is who settled it when a person did (the audit row's actor); the
	// action's own actor otherwise.
	By *Actor
}

// FinishAction records an action's outcome, its local changes and its audit
// row in one transaction: all of them or none. It finishes only an action
// that is still open (begun or unknown); a settled one answers
// ErrActionFinished with that action, and nothing changes. Leaving an action
// unknown again (a read-back that could not tell) counts the attempt without
// a second audit row.
func (s *Store) FinishAction(ctx context.Context, key string, f Finish) (Action, error) {
	if f.State == ActionBegun || f.State == "" {
		return Action{}, fmt.Errorf("store: finish action %s: state %q is not an outcome", key, f.State)
	}
	var res []byte
	if f.Result != nil {
		var err error
		if res, err = json.Marshal(f.Result); err != nil {
			return Action{}, fmt.Errorf("store: finish action %s: encode result: %w", key, err)
		}
	}
	var out Action
	err := s.Tx(ctx, func(tx *Store) error {
		before, err := scanAction(tx.db.QueryRow(ctx, `SELECT `+actionColumns+` FROM actions WHERE key = $1 FOR UPDATE`, key))
		if err != nil {
			return fmt.Errorf("store: finish action %q: %w", key, notFound(err))
		}
		if before.State.Finished() {
			out = before
			return ErrActionFinished
		}
		var finishedAt *time.Time
		if f.State.Finished() {
			now := time.Now()
			finishedAt = &now
		}
		readBack := 0
		if before.State == ActionUnknown {
			readBack = 1
		}
		out, err = scanAction(tx.db.QueryRow(ctx, `
			UPDATE actions SET state = $2, target = CASE WHEN $3 = '' THEN target ELSE $3 END,
				result = COALESCE($4, result), message = $5, updated_at = now(),
				finished_at = $6, read_backs = read_backs + $7
			WHERE key = $1
			RETURNING `+actionColumns, key, f.State, f.Target, res, f.Message, finishedAt, readBack))
		if err != nil {
			return fmt.Errorf("store: finish action %q: %w", key, err)
		}
		if f.Apply != nil {
			if err := f.Apply(ctx, tx); err != nil {
				return err
			}
		}
		if before.State == f.State {
			return nil // still unknown: the first unknown was audited
		}
		detail := f.Detail
		if detail == "" {
			detail = f.Message
		}
		actor := out.Actor
		if f.By != nil {
			actor = *f.By
		}
		return writeAudit(ctx, tx.db, AuditEntry{Actor: actor, Action: out.Kind, Target: out.Target,
			Outcome: f.State.auditOutcome(), Detail: detail})
	})
	if errors.Is(err, ErrActionFinished) {
		return out, ErrActionFinished
	}
	if err != nil {
		return Action{}, err
	}
	return out, nil
}

// OpenActions returns actions still open (begun or unknown) last touched
// before the cutoff, oldest first: the recovery job's work.
func (s *Store) OpenActions(ctx context.Context, before time.Time, limit int) ([]Action, error) {
	rows, err := s.db.Query(ctx, `SELECT `+actionColumns+` FROM actions
		WHERE state IN ('begun', 'unknown') AND updated_at < $1
		ORDER BY updated_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: open actions: %w", err)
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, fmt.Errorf("store: open actions: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// TouchAction marks an open action as looked at, so the recovery job moves
// on to others before coming back to it.
func (s *Store) TouchAction(ctx context.Context, key string) error {
	_, err := s.db.Exec(ctx, `UPDATE actions SET updated_at = now(), read_backs = read_backs + 1
		WHERE key = $1 AND state IN ('begun', 'unknown')`, key)
	if err != nil {
		return fmt.Errorf("store: touch action %q: %w", key, err)
	}
	return nil
}

// ActionByID returns the action with the id.
func (s *Store) ActionByID(ctx context.Context, id int64) (Action, error) {
	a, err := scanAction(s.db.QueryRow(ctx, `SELECT `+actionColumns+` FROM actions WHERE id = $1`, id))
	if err != nil {
		return Action{}, fmt.Errorf("store: action %d: %w", id, notFound(err))
	}
	return a, nil
}

// ActionFilter selects actions for the ledger's page, newest first.
type ActionFilter struct {
	Open     bool // only begun and unknown
	Target   string
	BeforeID int64
	Limit    int
}

// ListActions returns actions newest first with keyset paging.
func (s *Store) ListActions(ctx context.Context, f ActionFilter) ([]Action, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	rows, err := s.db.Query(ctx, `SELECT `+actionColumns+` FROM actions
		WHERE (NOT $1 OR state IN ('begun', 'unknown')) AND ($2 = '' OR target = $2) AND ($3::bigint = 0 OR id < $3::bigint)
		ORDER BY id DESC LIMIT $4`, f.Open, f.Target, f.BeforeID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: list actions: %w", err)
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list actions: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
