package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Onboarding run states.
const (
	OnboardingRunSending = "sending"
	OnboardingRunDone    = "done"
)

// Onboarding run row states.
const (
	OnboardingRowQueued  = "queued"
	OnboardingRowSending = "sending"
	OnboardingRowStarted = "started"
	OnboardingRowRefused = "refused"
	// OnboardingRowSkipped: the employee was no longer ready when the row's
	// turn came (read again just before), so nothing was sent.
	OnboardingRowSkipped = "skipped"
	// OnboardingRowUnknown: the API did not answer whether it started; the
	// row's action is read back and the row shows its outcome.
	OnboardingRowUnknown = "unknown"
)

// OnboardingRun starts one currency's onboarding for every employee who was
// ready in it when the run was created.
type OnboardingRun struct {
	ID            int64
	Currency      string
	State         string
	IdentityLevel string // identityLevelName of the activation (Global path)
	CreatedBy     string
	CreatedAt     time.Time
	FinishedAt    *time.Time
}

// OnboardingRunRow is one employee of a run.
type OnboardingRunRow struct {
	EmployeeID int64
	Name       string
	Email      string
	Position   int
	State      string
	Detail     string
}

// OnboardingRunProgress counts a run's rows by state.
type OnboardingRunProgress struct {
	Total, Queued, Sending, Started, Refused, Skipped, Unknown int
}

// Done is how many rows have an outcome (unknown counts: it was sent, and
// its row says what is known).
func (p OnboardingRunProgress) Done() int { return p.Started + p.Refused + p.Skipped + p.Unknown }

// Percent is the share of rows with an outcome, 0 to 100.
func (p OnboardingRunProgress) Percent() int {
	if p.Total == 0 {
		return 100
	}
	return p.Done() * 100 / p.Total
}

const onboardingRunColumns = `id, currency, state, identity_level, created_by, created_at, finished_at`

func scanOnboardingRun(row pgx.Row) (OnboardingRun, error) {
	var r OnboardingRun
	err := row.Scan(&r.ID, &r.Currency, &r.State, &r.IdentityLevel, &r.CreatedBy, &r.CreatedAt, &r.FinishedAt)
	return r, err
}

// ErrNobodyReady: no employee is ready in the currency, so no run is made.
var ErrNobodyReady = errors.New("store: no employee is ready in this currency")

// CreateOnboardingRun makes a run over every linked employee whose
// readiness in currency is ReadyToActivate now, with its audit row, and
// calls enqueue (which inserts the background job) in the same
// transaction. ErrNobodyReady when there is no such employee.
//
// formKey is the asking form's key: a second post of the same form returns
// the run it made, with fresh false, and changes nothing.
func (s *Store) CreateOnboardingRun(ctx context.Context, formKey, currency, identityLevel string, by Actor,
	enqueue func(ctx context.Context, tx pgx.Tx, run OnboardingRun) error) (run OnboardingRun, n int, fresh bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		run, err = scanOnboardingRun(tx.QueryRow(ctx, `INSERT INTO onboarding_runs (form_key, currency, identity_level, created_by)
			VALUES ($1, $2, $3, $4) ON CONFLICT (form_key) DO NOTHING RETURNING `+onboardingRunColumns, formKey, currency, identityLevel, by.Email))
		if errors.Is(err, pgx.ErrNoRows) {
			run, err = scanOnboardingRun(tx.QueryRow(ctx, `SELECT `+onboardingRunColumns+` FROM onboarding_runs WHERE form_key = $1`, formKey))
			if err != nil {
				return fmt.Errorf("store: create onboarding run: %w", err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: create onboarding run: %w", err)
		}
		fresh = true
		tag, err := tx.Exec(ctx, `INSERT INTO onboarding_run_rows (run_id, employee_id, position)
			SELECT $1, e.id, row_number() OVER (ORDER BY e.id) FROM employees e
			JOIN employee_readiness r ON r.employee_id = e.id AND r.currency = $2 AND r.state = $3
			WHERE e.kind = 'employee' AND e.service_user_id IS NOT NULL AND e.invite_state <> 'deleted'`,
			run.ID, currency, ReadyToActivate)
		if err != nil {
			return fmt.Errorf("store: create onboarding run rows: %w", err)
		}
		n = int(tag.RowsAffected())
		if n == 0 {
			return ErrNobodyReady
		}
		if err := writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.onboarding.bulk_start", Target: fmt.Sprintf("onboarding_run:%d", run.ID),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("starting %s onboarding for the %d employees who are ready", currency, n)}); err != nil {
			return err
		}
		return enqueue(ctx, tx, run)
	})
	return run, n, fresh, err
}

// OnboardingRunByID loads a run.
func (s *Store) OnboardingRunByID(ctx context.Context, id int64) (OnboardingRun, error) {
	r, err := scanOnboardingRun(s.db.QueryRow(ctx, `SELECT `+onboardingRunColumns+` FROM onboarding_runs WHERE id = $1`, id))
	if err != nil {
		return OnboardingRun{}, fmt.Errorf("store: load onboarding run %d: %w", id, notFound(err))
	}
	return r, nil
}

const onboardingRowColumns = `r.employee_id, trim(e.first_name || ' ' || e.last_name), e.email, r.position, r.state, r.detail`

func scanOnboardingRow(row pgx.CollectableRow) (OnboardingRunRow, error) {
	var r OnboardingRunRow
	err := row.Scan(&r.EmployeeID, &r.Name, &r.Email, &r.Position, &r.State, &r.Detail)
	if r.Name == "" {
		r.Name = r.Email
	}
	return r, err
}

// OnboardingRunRows lists a run's rows in order.
func (s *Store) OnboardingRunRows(ctx context.Context, runID int64) ([]OnboardingRunRow, error) {
	rows, err := s.db.Query(ctx, `SELECT `+onboardingRowColumns+` FROM onboarding_run_rows r JOIN employees e ON e.id = r.employee_id
		WHERE r.run_id = $1 ORDER BY r.position`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: onboarding run rows of %d: %w", runID, err)
	}
	list, err := pgx.CollectRows(rows, scanOnboardingRow)
	if err != nil {
		return nil, fmt.Errorf("store: onboarding run rows of %d: %w", runID, err)
	}
	return list, nil
}

// OnboardingRunProgressOf counts a run's rows by state.
func (s *Store) OnboardingRunProgressOf(ctx context.Context, runID int64) (OnboardingRunProgress, error) {
	return onboardingProgress(ctx, s.db, runID)
}

func onboardingProgress(ctx context.Context, db interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, runID int64) (OnboardingRunProgress, error) {
	var p OnboardingRunProgress
	err := db.QueryRow(ctx, `SELECT count(*),
			count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'sending'),
			count(*) FILTER (WHERE state = 'started'), count(*) FILTER (WHERE state = 'refused'),
			count(*) FILTER (WHERE state = 'skipped'), count(*) FILTER (WHERE state = 'unknown')
		FROM onboarding_run_rows WHERE run_id = $1`, runID).
		Scan(&p.Total, &p.Queued, &p.Sending, &p.Started, &p.Refused, &p.Skipped, &p.Unknown)
	if err != nil {
		return p, fmt.Errorf("store: onboarding run progress of %d: %w", runID, err)
	}
	return p, nil
}

// NextOnboardingRow claims the next row to send: a queued row, or a row
// left 'sending' by a sender that stopped (its action's key finds what the
// first attempt did: nothing is sent twice). skip lists the employees the
// caller has already handled. ErrNotFound when none is left.
func (s *Store) NextOnboardingRow(ctx context.Context, runID int64, skip []int64) (OnboardingRunRow, error) {
	if skip == nil {
		skip = []int64{}
	}
	var row OnboardingRunRow
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `UPDATE onboarding_run_rows SET state = 'sending'
			WHERE run_id = $1 AND employee_id = (SELECT employee_id FROM onboarding_run_rows
				WHERE run_id = $1 AND state IN ('queued', 'sending') AND employee_id <> ALL($2)
				ORDER BY (state = 'sending') DESC, position LIMIT 1 FOR UPDATE SKIP LOCKED)
			RETURNING employee_id`, runID, skip).Scan(&id)
		if err != nil {
			return fmt.Errorf("store: next onboarding row of %d: %w", runID, notFound(err))
		}
		rows, err := tx.Query(ctx, `SELECT `+onboardingRowColumns+` FROM onboarding_run_rows r JOIN employees e ON e.id = r.employee_id
			WHERE r.run_id = $1 AND r.employee_id = $2`, runID, id)
		if err != nil {
			return fmt.Errorf("store: next onboarding row of %d: %w", runID, err)
		}
		row, err = pgx.CollectExactlyOneRow(rows, scanOnboardingRow)
		if err != nil {
			return fmt.Errorf("store: next onboarding row of %d: %w", runID, notFound(err))
		}
		return nil
	})
	return row, err
}

// FinishOnboardingRow records a row's outcome. It is the local change of
// the row's action (applied in the transaction that finishes it, with its
// audit row) or follows a finish that changed nothing here.
func (s *Store) FinishOnboardingRow(ctx context.Context, runID, employeeID int64, state, detail string) error {
	_, err := s.db.Exec(ctx, `UPDATE onboarding_run_rows SET state = $3, detail = $4 WHERE run_id = $1 AND employee_id = $2`,
		runID, employeeID, state, detail)
	if err != nil {
		return fmt.Errorf("store: finish onboarding row %d/%d: %w", runID, employeeID, err)
	}
	return nil
}

// SkipOnboardingRow records that a row was not sent because the employee
// was no longer ready, with its audit row, in one transaction.
func (s *Store) SkipOnboardingRow(ctx context.Context, run OnboardingRun, employeeID int64, why string, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE onboarding_run_rows SET state = 'skipped', detail = $3
			WHERE run_id = $1 AND employee_id = $2 AND state IN ('queued', 'sending')`, run.ID, employeeID, why)
		if err != nil {
			return fmt.Errorf("store: skip onboarding row %d/%d: %w", run.ID, employeeID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.onboarding.start", Target: fmt.Sprintf("employee:%d", employeeID),
			Outcome: OutcomeRefused, Detail: fmt.Sprintf("%s onboarding not started (run %d): %s", run.Currency, run.ID, why)})
	})
}

// FinishOnboardingRun marks a run done, with the audit row of its outcome,
// once no row is left to send.
func (s *Store) FinishOnboardingRun(ctx context.Context, runID int64, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		p, err := onboardingProgress(ctx, tx, runID)
		if err != nil {
			return err
		}
		if p.Queued+p.Sending > 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE onboarding_runs SET state = 'done', finished_at = now() WHERE id = $1 AND state = 'sending'`, runID)
		if err != nil {
			return fmt.Errorf("store: finish onboarding run %d: %w", runID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		outcome := OutcomeOK
		if p.Refused+p.Unknown > 0 {
			outcome = OutcomeFailed
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.onboarding.bulk_finish", Target: fmt.Sprintf("onboarding_run:%d", runID),
			Outcome: outcome, Detail: fmt.Sprintf("%d started, %d refused, %d skipped (no longer ready), %d with an unknown outcome",
				p.Started, p.Refused, p.Skipped, p.Unknown)})
	})
}
