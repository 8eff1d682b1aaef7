package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Bulk invite run states.
const (
	BulkPreview = "preview"
	BulkSending = "sending"
	BulkDone    = "done"
)

// Bulk invite row states.
const (
	BulkRowInvalid = "invalid"
	BulkRowQueued  = "queued"
	BulkRowSending = "sending"
	BulkRowSent    = "sent"
	BulkRowError   = "error"
	// BulkRowUnknown: the API did not answer whether it recorded the
	// invite; the row's action is read back, and the row shows its outcome.
	BulkRowUnknown = "unknown"
)

// BulkRun is one uploaded CSV file of invites.
type BulkRun struct {
	ID         int64
	Filename   string
	State      string
	TotalRows  int
	ValidRows  int
	CreatedBy  string
	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// BulkRow is one line of a bulk invite file. Profile is the employer-held
// KYC profile without identification numbers or BVN: an identification
// number the file carries is kept as its type and issuing country only,
// with an empty number (DESIGN.md decision 8), and is read from the file
// again when the row is sent.
type BulkRow struct {
	Line      int
	Name      string
	Email     string
	Profile   json.RawMessage
	Problems  []string
	State     string
	InviteURL string
	Error     string
}

// BulkProgress counts a run's rows by state.
type BulkProgress struct {
	Total, Invalid, Queued, Sending, Sent, Errors, Unknown int
}

// Done is how many of the valid rows have an outcome (unknown counts: it
// was sent, and its row says what is known).
func (p BulkProgress) Done() int { return p.Sent + p.Errors + p.Unknown }

// Valid is how many rows are to be sent.
func (p BulkProgress) Valid() int { return p.Total - p.Invalid }

// Percent is the share of valid rows with an outcome, 0 to 100.
func (p BulkProgress) Percent() int {
	if p.Valid() == 0 {
		return 100
	}
	return p.Done() * 100 / p.Valid()
}

const bulkRunColumns = `id, filename, state, total_rows, valid_rows, created_by, created_at, started_at, finished_at`

func scanBulkRun(row pgx.Row) (BulkRun, error) {
	var r BulkRun
	err := row.Scan(&r.ID, &r.Filename, &r.State, &r.TotalRows, &r.ValidRows, &r.CreatedBy, &r.CreatedAt, &r.StartedAt, &r.FinishedAt)
	return r, err
}

// CreateBulkRun stores a checked file (every row, with its problems) for
// preview, with an audit row. Nothing is sent yet.
func (s *Store) CreateBulkRun(ctx context.Context, filename string, rows []BulkRow, by Actor) (BulkRun, error) {
	var run BulkRun
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		valid := 0
		for _, r := range rows {
			if len(r.Problems) == 0 {
				valid++
			}
		}
		var err error
		run, err = scanBulkRun(tx.QueryRow(ctx, `INSERT INTO bulk_invite_runs (filename, total_rows, valid_rows, created_by)
			VALUES ($1, $2, $3, $4) RETURNING `+bulkRunColumns, filename, len(rows), valid, by.Email))
		if err != nil {
			return fmt.Errorf("store: create bulk run: %w", err)
		}
		batch := make([][]any, 0, len(rows))
		for _, r := range rows {
			state := BulkRowQueued
			if len(r.Problems) > 0 {
				state = BulkRowInvalid
			}
			problems := r.Problems
			if problems == nil {
				problems = []string{}
			}
			var profile any
			if len(r.Profile) > 0 {
				profile = string(r.Profile)
			}
			batch = append(batch, []any{run.ID, r.Line, r.Name, r.Email, profile, problems, state})
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bulk_invite_rows"},
			[]string{"run_id", "line", "name", "email", "profile", "problems", "state"}, pgx.CopyFromRows(batch)); err != nil {
			return fmt.Errorf("store: create bulk run rows: %w", err)
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.bulk_invite.upload", Target: fmt.Sprintf("bulk_invite:%d", run.ID),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("%s: %d rows, %d valid", filename, len(rows), valid)})
	})
	return run, err
}

// BulkRunByID loads a run.
func (s *Store) BulkRunByID(ctx context.Context, id int64) (BulkRun, error) {
	r, err := scanBulkRun(s.db.QueryRow(ctx, `SELECT `+bulkRunColumns+` FROM bulk_invite_runs WHERE id = $1`, id))
	if err != nil {
		return BulkRun{}, fmt.Errorf("store: load bulk run %d: %w", id, notFound(err))
	}
	return r, nil
}

// StartBulkRun moves a previewed run to sending and calls enqueue (which
// inserts the background job) in the same transaction. It writes no audit
// row: it is the local change of the "send" form's action, whose finish
// writes the row. A run already started is ErrConflict: a second click never
// sends twice.
func (s *Store) StartBulkRun(ctx context.Context, id int64, enqueue func(ctx context.Context, tx pgx.Tx) error) (BulkRun, error) {
	var run BulkRun
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		run, err = scanBulkRun(tx.QueryRow(ctx, `UPDATE bulk_invite_runs SET state = 'sending', started_at = now()
			WHERE id = $1 AND state = 'preview' RETURNING `+bulkRunColumns, id))
		if err != nil {
			if notFound(err) == ErrNotFound {
				return fmt.Errorf("store: start bulk run %d: %w", id, ErrConflict)
			}
			return fmt.Errorf("store: start bulk run %d: %w", id, err)
		}
		return enqueue(ctx, tx)
	})
	return run, err
}

// BulkRows lists a run's rows in file order.
func (s *Store) BulkRows(ctx context.Context, runID int64) ([]BulkRow, error) {
	rows, err := s.db.Query(ctx, `SELECT line, name, email, coalesce(profile::text, ''), problems, state, invite_url, error
		FROM bulk_invite_rows WHERE run_id = $1 ORDER BY line`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: bulk rows of %d: %w", runID, err)
	}
	list, err := pgx.CollectRows(rows, scanBulkRow)
	if err != nil {
		return nil, fmt.Errorf("store: bulk rows of %d: %w", runID, err)
	}
	return list, nil
}

func scanBulkRow(r pgx.CollectableRow) (BulkRow, error) {
	var b BulkRow
	var profile string
	err := r.Scan(&b.Line, &b.Name, &b.Email, &profile, &b.Problems, &b.State, &b.InviteURL, &b.Error)
	if profile != "" {
		b.Profile = json.RawMessage(profile)
	}
	return b, err
}

// NextBulkRow claims the next row to send: a queued row, or a row left
// 'sending' by a sender that stopped (its action's key finds what the first
// attempt did: nothing is sent twice). withIDs selects the rows that carry
// identification numbers (sent while the file is at hand) or the others.
// skip lists lines the caller has already handled (a row another sender is
// still sending stays 'sending'). ErrNotFound when none is left.
func (s *Store) NextBulkRow(ctx context.Context, runID int64, withIDs bool, skip []int) (BulkRow, error) {
	if skip == nil {
		skip = []int{}
	}
	var row BulkRow
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE bulk_invite_rows SET state = 'sending'
			WHERE run_id = $1 AND line = (SELECT line FROM bulk_invite_rows WHERE run_id = $1 AND state IN ('queued', 'sending')
					AND coalesce(jsonb_array_length(profile->'identificationNumbers') > 0, false) = $2 AND line <> ALL($3)
				ORDER BY (state = 'sending') DESC, line LIMIT 1 FOR UPDATE SKIP LOCKED)
			RETURNING line, name, email, coalesce(profile::text, ''), problems, state, invite_url, error`, runID, withIDs, skip)
		if err != nil {
			return fmt.Errorf("store: next bulk row of %d: %w", runID, err)
		}
		row, err = pgx.CollectExactlyOneRow(rows, scanBulkRow)
		if err != nil {
			return fmt.Errorf("store: next bulk row of %d: %w", runID, notFound(err))
		}
		return nil
	})
	return row, err
}

// FinishBulkRow records a row's outcome.
func (s *Store) FinishBulkRow(ctx context.Context, runID int64, line int, state, inviteURL, errText string) error {
	_, err := s.db.Exec(ctx, `UPDATE bulk_invite_rows SET state = $3, invite_url = $4, error = $5 WHERE run_id = $1 AND line = $2`,
		runID, line, state, inviteURL, errText)
	if err != nil {
		return fmt.Errorf("store: finish bulk row %d/%d: %w", runID, line, err)
	}
	return nil
}

// FinishBulkRun marks a run done, with the audit row of its outcome, once
// no row is left to send (rows carrying identification numbers may still
// wait for the file).
func (s *Store) FinishBulkRun(ctx context.Context, runID int64, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var p BulkProgress
		if err := scanProgress(tx.QueryRow(ctx, progressSQL, runID), &p); err != nil {
			return fmt.Errorf("store: finish bulk run %d: %w", runID, err)
		}
		if p.Queued+p.Sending > 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE bulk_invite_runs SET state = 'done', finished_at = now() WHERE id = $1 AND state = 'sending'`, runID)
		if err != nil {
			return fmt.Errorf("store: finish bulk run %d: %w", runID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		outcome := OutcomeOK
		if p.Errors+p.Unknown > 0 {
			outcome = OutcomeFailed
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.bulk_invite.finish", Target: fmt.Sprintf("bulk_invite:%d", runID),
			Outcome: outcome, Detail: fmt.Sprintf("%d sent, %d with an error, %d with an unknown outcome", p.Sent, p.Errors, p.Unknown)})
	})
}

const progressSQL = `SELECT count(*), count(*) FILTER (WHERE state = 'invalid'), count(*) FILTER (WHERE state = 'queued'),
	count(*) FILTER (WHERE state = 'sending'), count(*) FILTER (WHERE state = 'sent'), count(*) FILTER (WHERE state = 'error'),
	count(*) FILTER (WHERE state = 'unknown')
	FROM bulk_invite_rows WHERE run_id = $1`

func scanProgress(row pgx.Row, p *BulkProgress) error {
	return row.Scan(&p.Total, &p.Invalid, &p.Queued, &p.Sending, &p.Sent, &p.Errors, &p.Unknown)
}

// BulkRunProgress counts a run's rows by state.
func (s *Store) BulkRunProgress(ctx context.Context, runID int64) (BulkProgress, error) {
	var p BulkProgress
	if err := scanProgress(s.db.QueryRow(ctx, progressSQL, runID), &p); err != nil {
		return p, fmt.Errorf("store: bulk progress %d: %w", runID, err)
	}
	return p, nil
}

// ExistingEmails returns which of emails (lower-cased) already belong to an
// employee, for flagging duplicates in a bulk preview.
func (s *Store) ExistingEmails(ctx context.Context, emails []string) (map[string]bool, error) {
	rows, err := s.db.Query(ctx, `SELECT lower(email) FROM employees WHERE lower(email) = ANY($1)`, emails)
	if err != nil {
		return nil, fmt.Errorf("store: existing emails: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: existing emails: %w", err)
	}
	m := make(map[string]bool, len(list))
	for _, e := range list {
		m[e] = true
	}
	return m, nil
}
