package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Payroll run states.
const (
	PayrollPreview  = "preview"
	PayrollSending  = "sending"
	PayrollSent     = "sent"
	PayrollCanceled = "canceled"
)

// Payroll run sources.
const (
	PayrollFromCSV       = "csv"
	PayrollFromEmployees = "employees"
)

// PayrollActionKey is the ledger key of a run's row: a retried job, a
// double click or a resumed run never creates a second proposal for it.
func PayrollActionKey(runID int64, line int) string { return fmt.Sprintf("payroll:%d:%d", runID, line) }

// PayrollRun is one payroll run.
type PayrollRun struct {
	ID           int64
	Name         string
	Source       string
	State        string
	CreatedByID  int64
	CreatedBy    string
	CancelReason string
	CreatedAt    time.Time
	StartedAt    *time.Time
	FinishedAt   *time.Time
	CanceledAt   *time.Time
	// Rows and ValidRows count the run's rows (read with the run).
	Rows, ValidRows int
	// Totals sums the valid rows per token code (read with the run).
	Totals []PayrollTotal
}

// PayrollTotal is the sum of a run's valid rows in one token.
type PayrollTotal struct {
	Currency string
	Sum      decimal.Decimal
}

// PayrollRow is one row of a run: what was asked, its problems, and (read
// with it) its action and its proposal as the mirror knows it.
type PayrollRow struct {
	Line          int
	Recipient     string
	Name          string
	ServiceUserID string
	AmountText    string
	Amount        decimal.NullDecimal
	CurrencyText  string
	Currency      string
	Description   string
	Problems      []string
	WalletID      string
	ProposalID    string

	// ActionState is the state of the row's action ("" when none was
	// begun); ActionMessage its outcome in words.
	ActionState   ActionState
	ActionMessage string
	// Proposal is the row's proposal in the mirror, nil before it exists.
	Proposal *Proposal
	// State is the row's state (payrollRowState).
	State string
}

// Valid reports whether the row is to be sent.
func (r PayrollRow) Valid() bool { return len(r.Problems) == 0 }

const payrollRunColumns = `r.id, r.name, r.source, r.state, coalesce(r.created_by_id, 0), r.created_by, r.cancel_reason, r.created_at,
	r.started_at, r.finished_at, r.canceled_at, r.rows_total, r.rows_valid, r.totals`

// payrollRunCounts writes a new run's row counts and per-currency totals
// (the currencies, then their sums): its rows never change after.
const payrollRunCounts = `UPDATE payroll_runs r SET
	rows_total = (SELECT count(*) FROM payroll_rows w WHERE w.run_id = r.id),
	rows_valid = (SELECT count(*) FROM payroll_rows w WHERE w.run_id = r.id AND cardinality(w.problems) = 0),
	totals = (SELECT coalesce(array_agg(t.currency ORDER BY t.currency), '{}') || coalesce(array_agg(t.sum ORDER BY t.currency), '{}')
		FROM (SELECT w.currency, coalesce(sum(w.amount), 0)::text AS sum FROM payroll_rows w
			WHERE w.run_id = r.id AND cardinality(w.problems) = 0 GROUP BY w.currency) t)
	WHERE r.id = $1`

func scanPayrollRun(row pgx.Row) (PayrollRun, error) {
	var r PayrollRun
	var totals []string // the currencies, then their sums
	err := row.Scan(&r.ID, &r.Name, &r.Source, &r.State, &r.CreatedByID, &r.CreatedBy, &r.CancelReason, &r.CreatedAt,
		&r.StartedAt, &r.FinishedAt, &r.CanceledAt, &r.Rows, &r.ValidRows, &totals)
	if err != nil {
		return r, err
	}
	n := len(totals) / 2
	for i := range n {
		d, err := decimal.NewFromString(totals[n+i])
		if err != nil {
			return r, fmt.Errorf("total %q: %w", totals[n+i], err)
		}
		r.Totals = append(r.Totals, PayrollTotal{Currency: totals[i], Sum: d})
	}
	return r, nil
}

// CreatePayrollRun stores a checked run (every row, with its problems) for
// preview, with its audit row in the same transaction. Nothing is sent.
func (s *Store) CreatePayrollRun(ctx context.Context, name, source string, rows []PayrollRow, by Actor) (PayrollRun, error) {
	var run PayrollRun
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var byID *int64
		if by.StaffID != 0 {
			byID = &by.StaffID
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO payroll_runs (name, source, created_by_id, created_by) VALUES ($1, $2, $3, $4) RETURNING id`,
			name, source, byID, by.Email).Scan(&id); err != nil {
			return fmt.Errorf("store: create payroll run: %w", err)
		}
		batch := make([][]any, 0, len(rows))
		valid := 0
		for _, r := range rows {
			var amount *string
			if r.Amount.Valid {
				a := r.Amount.Decimal.String()
				amount = &a
			}
			problems := r.Problems
			if problems == nil {
				problems = []string{}
			}
			if len(problems) == 0 {
				valid++
			}
			batch = append(batch, []any{id, r.Line, r.Recipient, r.Name, r.ServiceUserID, r.AmountText, amount, r.CurrencyText,
				r.Currency, r.Description, problems, r.WalletID})
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"payroll_rows"},
			[]string{"run_id", "line", "recipient", "name", "service_user_id", "amount_text", "amount", "currency_text", "currency",
				"description", "problems", "wallet_id"}, pgx.CopyFromRows(batch)); err != nil {
			return fmt.Errorf("store: create payroll rows: %w", err)
		}
		var err error
		if _, err := tx.Exec(ctx, payrollRunCounts, id); err != nil {
			return fmt.Errorf("store: create payroll run: %w", err)
		}
		run, err = scanPayrollRun(tx.QueryRow(ctx, `SELECT `+payrollRunColumns+` FROM payroll_runs r WHERE r.id = $1`, id))
		if err != nil {
			return fmt.Errorf("store: create payroll run: %w", err)
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "payroll.create", Target: fmt.Sprintf("payroll:%d", id),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("%s (%s): %d rows, %d valid", name, source, len(rows), valid)})
	})
	return run, err
}

// PayrollRunByID loads a run.
func (s *Store) PayrollRunByID(ctx context.Context, id int64) (PayrollRun, error) {
	r, err := scanPayrollRun(s.db.QueryRow(ctx, `SELECT `+payrollRunColumns+` FROM payroll_runs r WHERE r.id = $1`, id))
	if err != nil {
		return PayrollRun{}, fmt.Errorf("store: load payroll run %d: %w", id, notFound(err))
	}
	return r, nil
}

// PayrollRunState reads a run's state alone (the sender asks before each
// row, so a canceled run stops).
func (s *Store) PayrollRunState(ctx context.Context, id int64) (string, error) {
	var state string
	if err := s.db.QueryRow(ctx, `SELECT state FROM payroll_runs WHERE id = $1`, id).Scan(&state); err != nil {
		return "", fmt.Errorf("store: payroll run %d state: %w", id, notFound(err))
	}
	return state, nil
}

// ListPayrollRuns lists runs, newest first.
func (s *Store) ListPayrollRuns(ctx context.Context, limit int) ([]PayrollRun, error) {
	rows, err := s.db.Query(ctx, `SELECT `+payrollRunColumns+` FROM payroll_runs r ORDER BY r.created_at DESC, r.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list payroll runs: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PayrollRun, error) { return scanPayrollRun(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list payroll runs: %w", err)
	}
	return list, nil
}

// payrollRowState is a row's state: the one definition the run page, its
// poll, the counts and the result CSV share. "invalid" rows are never sent;
// once a proposal exists its status (lower case) is the state; before, the
// row's action says sending, unknown, refused or sent; a row with no action
// is canceled, ready (preview) or queued with its run.
const payrollRowState = `CASE
	WHEN cardinality(w.problems) > 0 THEN 'invalid'
	WHEN p.id IS NOT NULL THEN lower(p.status)
	WHEN a.state = 'begun' THEN 'sending'
	WHEN a.state = 'unknown' THEN 'unknown'
	WHEN a.state = 'refused' THEN 'refused'
	WHEN a.state = 'done' THEN 'sent'
	WHEN r.state = 'canceled' THEN 'canceled'
	WHEN r.state = 'preview' THEN 'ready'
	ELSE 'queued' END`

// payrollRowSource joins a row with its run, its action and its proposal.
const payrollRowSource = `payroll_rows w JOIN payroll_runs r ON r.id = w.run_id
	LEFT JOIN actions a ON a.key = 'payroll:' || w.run_id || ':' || w.line
	LEFT JOIN proposals p ON p.id = w.proposal_id`

// PayrollRows lists a run's rows in order, each with its state, its action
// and its proposal.
func (s *Store) PayrollRows(ctx context.Context, runID int64) ([]PayrollRow, error) {
	rows, _, err := s.PayrollRowsWindow(ctx, runID, "", 0, 0)
	return rows, err
}

// PayrollRowsWindow lists at most limit rows (all when limit is 0) of a run
// in state (any when ""), from line from on, and the line of the next such
// row (0 when none).
func (s *Store) PayrollRowsWindow(ctx context.Context, runID int64, state string, from, limit int) ([]PayrollRow, int, error) {
	max := int64(-1)
	if limit > 0 {
		max = int64(limit) + 1
	}
	rows, err := s.db.Query(ctx, `SELECT * FROM (
		SELECT w.line, w.recipient, w.name, w.service_user_id, w.amount_text, w.amount::text, w.currency_text, w.currency,
			w.description, w.problems, w.wallet_id, coalesce(w.proposal_id, ''), coalesce(a.state, ''), coalesce(a.message, ''),
			p.id IS NOT NULL, coalesce(p.status, ''), coalesce(p.approvals, '{}'), coalesce(p.required_approvals, 0),
			coalesce(p.collected_signatures, 0), coalesce(p.required_signatures, 0), coalesce(p.rejection_reason, ''),
			coalesce(p.failure_reason, ''), coalesce(p.round, 1), coalesce(p.created_by_staff_id, 0), coalesce(p.approval_mode, ''),
			coalesce(p.owner_user_id, ''), coalesce(p.wallet_id, ''), `+payrollRowState+` AS state
		FROM `+payrollRowSource+`
		WHERE w.run_id = $1 AND w.line >= $3) x
		WHERE $2 = '' OR x.state = $2
		ORDER BY x.line LIMIT CASE WHEN $4::bigint < 0 THEN NULL ELSE $4::bigint END`, runID, state, from, max)
	if err != nil {
		return nil, 0, fmt.Errorf("store: payroll rows of %d: %w", runID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PayrollRow, error) {
		var w PayrollRow
		var amount *string
		var hasProposal bool
		var p Proposal
		err := r.Scan(&w.Line, &w.Recipient, &w.Name, &w.ServiceUserID, &w.AmountText, &amount, &w.CurrencyText, &w.Currency,
			&w.Description, &w.Problems, &w.WalletID, &w.ProposalID, &w.ActionState, &w.ActionMessage,
			&hasProposal, &p.Status, &p.Approvals, &p.RequiredApprovals, &p.CollectedSignatures, &p.RequiredSignatures,
			&p.RejectionReason, &p.FailureReason, &p.Round, &p.CreatedByStaffID, &p.ApprovalMode, &p.OwnerUserID, &p.WalletID, &w.State)
		if err != nil {
			return w, err
		}
		if amount != nil {
			d, err := decimal.NewFromString(*amount)
			if err != nil {
				return w, fmt.Errorf("amount %q: %w", *amount, err)
			}
			w.Amount = decimal.NullDecimal{Decimal: d, Valid: true}
		}
		if hasProposal {
			p.ID, p.Currency, p.Type, p.ToUserID, p.Description = w.ProposalID, w.Currency, "TRANSFER", w.ServiceUserID, w.Description
			if w.Amount.Valid {
				p.Amount = w.Amount.Decimal
			}
			w.Proposal = &p
		}
		return w, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: payroll rows of %d: %w", runID, err)
	}
	next := 0
	if limit > 0 && len(list) > limit {
		next, list = list[limit].Line, list[:limit]
	}
	return list, next, nil
}

// StartPayrollRun moves a previewed run to sending and calls enqueue (which
// inserts the background job) in the same transaction. It writes no audit
// row: it is the local change of the "send" form's action, whose finish
// writes it. A run that is not in preview is ErrConflict: a second click or
// a second tab never sends twice.
func (s *Store) StartPayrollRun(ctx context.Context, id int64, enqueue func(ctx context.Context, tx pgx.Tx) error) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE payroll_runs SET state = 'sending', started_at = now() WHERE id = $1 AND state = 'preview'`, id)
		if err != nil {
			return fmt.Errorf("store: start payroll run %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: start payroll run %d: %w", id, ErrConflict)
		}
		return enqueue(ctx, tx)
	})
}

// SetPayrollRowProposal records the proposal a row created (inside the
// transaction that finishes the row's action).
func (s *Store) SetPayrollRowProposal(ctx context.Context, runID int64, line int, proposalID string) error {
	_, err := s.db.Exec(ctx, `UPDATE payroll_rows SET proposal_id = $3 WHERE run_id = $1 AND line = $2`, runID, line, proposalID)
	if err != nil {
		return fmt.Errorf("store: payroll row %d/%d proposal: %w", runID, line, err)
	}
	return nil
}

// FinishPayrollRun marks a sending run sent, with the audit row of its
// outcome, once every valid row's action is settled or unknown. It reports
// whether the run is finished now.
func (s *Store) FinishPayrollRun(ctx context.Context, runID int64, by Actor) (bool, error) {
	finished := false
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var open, sent, refused, unknown int
		err := tx.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE a.state IS NULL OR a.state = 'begun'),
				count(*) FILTER (WHERE a.state = 'done'), count(*) FILTER (WHERE a.state = 'refused'),
				count(*) FILTER (WHERE a.state = 'unknown')
			FROM payroll_rows w LEFT JOIN actions a ON a.key = 'payroll:' || w.run_id || ':' || w.line
			WHERE w.run_id = $1 AND cardinality(w.problems) = 0`, runID).Scan(&open, &sent, &refused, &unknown)
		if err != nil {
			return fmt.Errorf("store: finish payroll run %d: %w", runID, err)
		}
		if open > 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE payroll_runs SET state = 'sent', finished_at = now() WHERE id = $1 AND state = 'sending'`, runID)
		if err != nil {
			return fmt.Errorf("store: finish payroll run %d: %w", runID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		finished = true
		outcome := OutcomeOK
		if refused+unknown > 0 {
			outcome = OutcomeFailed
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "payroll.send.finish", Target: fmt.Sprintf("payroll:%d", runID),
			Outcome: outcome, Detail: fmt.Sprintf("%d proposals created, %d refused, %d with an unknown outcome", sent, refused, unknown)})
	})
	return finished, err
}

// CancelPayrollRun marks a run canceled: its rows not sent yet will not be
// sent. It writes no audit row (the cancel action's finish does).
// ErrConflict when the run is already canceled.
func (s *Store) CancelPayrollRun(ctx context.Context, runID int64, reason string) error {
	tag, err := s.db.Exec(ctx, `UPDATE payroll_runs SET state = 'canceled', cancel_reason = $2, canceled_at = now()
		WHERE id = $1 AND state <> 'canceled'`, runID, reason)
	if err != nil {
		return fmt.Errorf("store: cancel payroll run %d: %w", runID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: cancel payroll run %d: %w", runID, ErrConflict)
	}
	return nil
}

// PayrollRecipient is an employee a run may pay, with their wallets by
// token code.
type PayrollRecipient struct {
	Employee Employee
	Wallets  map[string]Wallet
}

// PayrollRecipients finds the employees (not the treasury) that the given
// emails or serviceUserIds name, with their wallets. The map is keyed by
// lower-cased email and by serviceUserId.
func (s *Store) PayrollRecipients(ctx context.Context, keys []string) (map[string]PayrollRecipient, error) {
	lower := make([]string, len(keys))
	for i, k := range keys {
		lower[i] = strings.ToLower(k)
	}
	rows, err := s.db.Query(ctx, `SELECT `+employeeColumns+` FROM employees
		WHERE kind = 'employee' AND (lower(email) = ANY($1) OR service_user_id = ANY($2))`, lower, keys)
	if err != nil {
		return nil, fmt.Errorf("store: payroll recipients: %w", err)
	}
	emps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: payroll recipients: %w", err)
	}
	ids := make([]int64, len(emps))
	byID := make(map[int64]*PayrollRecipient, len(emps))
	for i, e := range emps {
		ids[i] = e.ID
		byID[e.ID] = &PayrollRecipient{Employee: e, Wallets: map[string]Wallet{}}
	}
	ws, err := s.queryWallets(ctx, `SELECT `+walletColumns+` FROM wallets WHERE employee_id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	for _, w := range ws {
		byID[w.EmployeeID].Wallets[w.Currency] = w
	}
	out := make(map[string]PayrollRecipient, 2*len(emps))
	for _, r := range byID {
		out[strings.ToLower(r.Employee.Email)] = *r
		if r.Employee.ServiceUserID != "" {
			out[r.Employee.ServiceUserID] = *r
		}
	}
	return out, nil
}

// PayrollCandidateLimit bounds the employee list of the "from employees"
// form.
const PayrollCandidateLimit = 500

// PayrollCandidates lists employees (not the treasury) for the "from
// employees" form: whose name or email contains q (case-insensitive, no
// wildcards), in the invite state when one is given, by name.
func (s *Store) PayrollCandidates(ctx context.Context, q, state string, limit int) ([]Employee, error) {
	rows, err := s.db.Query(ctx, `SELECT `+employeeColumns+` FROM employees
		WHERE kind = 'employee' AND ($1 = '' OR strpos(lower(first_name || ' ' || last_name || ' ' || email), lower($1)) > 0)
			AND ($2 = '' OR invite_state = $2)
		ORDER BY lower(first_name), lower(last_name), id LIMIT $3`, strings.TrimSpace(q), state, limit)
	if err != nil {
		return nil, fmt.Errorf("store: payroll candidates: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: payroll candidates: %w", err)
	}
	return list, nil
}

// EmployeesByIDs loads employees by id.
func (s *Store) EmployeesByIDs(ctx context.Context, ids []int64) ([]Employee, error) {
	rows, err := s.db.Query(ctx, `SELECT `+employeeColumns+` FROM employees WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: employees by id: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: employees by id: %w", err)
	}
	return list, nil
}

// PayrollOutcome is what a run-wide action did to one row.
type PayrollOutcome struct {
	Line int    `json:"line"`
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

// PayrollApproval is one staff member's approval of a run in one action:
// the rows it concerns and, as a background job works through them, each
// row's outcome.
type PayrollApproval struct {
	ID         int64
	RunID      int64
	FormKey    string
	Staff      Actor
	State      string // running, done
	Lines      []int
	Outcomes   []PayrollOutcome // in line order
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// Done reports whether every row has its outcome.
func (a PayrollApproval) Done() bool { return a.State == "done" }

const payrollApprovalColumns = `id, run_id, form_key, staff_id, staff_email, state, lines, outcomes, created_at, finished_at`

func scanPayrollApproval(row pgx.Row) (PayrollApproval, error) {
	var a PayrollApproval
	var outcomes map[string]PayrollOutcome
	err := row.Scan(&a.ID, &a.RunID, &a.FormKey, &a.Staff.StaffID, &a.Staff.Email, &a.State, &a.Lines, &outcomes, &a.CreatedAt, &a.FinishedAt)
	for _, o := range outcomes {
		a.Outcomes = append(a.Outcomes, o)
	}
	slices.SortFunc(a.Outcomes, func(x, y PayrollOutcome) int { return x.Line - y.Line })
	return a, err
}

// StartPayrollApproval records a run's approval asked with a form, and
// calls enqueue (which inserts its job) in the same transaction, with its
// audit row. A form used before returns that approval (fresh false) and
// starts nothing.
func (s *Store) StartPayrollApproval(ctx context.Context, runID int64, formKey string, by Actor, lines []int,
	enqueue func(ctx context.Context, tx pgx.Tx, id int64) error) (a PayrollApproval, fresh bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		a, err = scanPayrollApproval(tx.QueryRow(ctx, `INSERT INTO payroll_approvals (run_id, form_key, staff_id, staff_email, lines)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (form_key) DO NOTHING RETURNING `+payrollApprovalColumns,
			runID, formKey, by.StaffID, by.Email, lines))
		if errors.Is(err, pgx.ErrNoRows) {
			a, err = scanPayrollApproval(tx.QueryRow(ctx, `SELECT `+payrollApprovalColumns+` FROM payroll_approvals WHERE form_key = $1`, formKey))
			return err
		}
		if err != nil {
			return fmt.Errorf("store: start payroll approval: %w", err)
		}
		fresh = true
		if err := enqueue(ctx, tx, a.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "payroll.approve", Target: fmt.Sprintf("payroll:%d", runID),
			Outcome: OutcomeOK, Detail: fmt.Sprintf("approving the %d proposals waiting for approvals", len(lines))})
	})
	if err != nil {
		return PayrollApproval{}, false, fmt.Errorf("store: start payroll approval of run %d: %w", runID, err)
	}
	return a, fresh, nil
}

// PayrollApprovalByID loads an approval.
func (s *Store) PayrollApprovalByID(ctx context.Context, id int64) (PayrollApproval, error) {
	a, err := scanPayrollApproval(s.db.QueryRow(ctx, `SELECT `+payrollApprovalColumns+` FROM payroll_approvals WHERE id = $1`, id))
	if err != nil {
		return a, fmt.Errorf("store: payroll approval %d: %w", id, notFound(err))
	}
	return a, nil
}

// LatestPayrollApproval is a staff member's latest approval of a run.
func (s *Store) LatestPayrollApproval(ctx context.Context, runID, staffID int64) (PayrollApproval, error) {
	a, err := scanPayrollApproval(s.db.QueryRow(ctx, `SELECT `+payrollApprovalColumns+` FROM payroll_approvals
		WHERE run_id = $1 AND staff_id = $2 ORDER BY id DESC LIMIT 1`, runID, staffID))
	if err != nil {
		return a, fmt.Errorf("store: latest payroll approval of %d: %w", runID, notFound(err))
	}
	return a, nil
}

// RecordPayrollApprovalOutcome records one row's outcome (again for the
// same row: replaced, so a resumed job counts each row once).
func (s *Store) RecordPayrollApprovalOutcome(ctx context.Context, id int64, o PayrollOutcome) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("store: payroll approval outcome: %w", err)
	}
	_, err = s.db.Exec(ctx, `UPDATE payroll_approvals SET outcomes = outcomes || jsonb_build_object($2::text, $3::jsonb) WHERE id = $1`,
		id, strconv.Itoa(o.Line), raw)
	if err != nil {
		return fmt.Errorf("store: payroll approval %d outcome: %w", id, err)
	}
	return nil
}

// FinishPayrollApproval marks an approval done with the audit row of what
// it did (the approvals themselves have theirs, one per action).
func (s *Store) FinishPayrollApproval(ctx context.Context, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		a, err := scanPayrollApproval(tx.QueryRow(ctx, `UPDATE payroll_approvals SET state = 'done', finished_at = now()
			WHERE id = $1 AND state = 'running' RETURNING `+payrollApprovalColumns, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: finish payroll approval %d: %w", id, err)
		}
		approved := 0
		var refused []string
		for _, o := range a.Outcomes {
			if o.OK {
				approved++
			} else {
				refused = append(refused, fmt.Sprintf("line %d: %s", o.Line, o.Text))
			}
		}
		outcome, detail := OutcomeOK, fmt.Sprintf("%d approved, %d not approved", approved, len(refused))
		if len(refused) > 0 {
			outcome = OutcomeRefused
			detail += ": " + strings.Join(refused, "; ")
			if r := []rune(detail); len(r) > 2000 {
				detail = string(r[:2000]) + "…"
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: a.Staff, Action: "payroll.approve.finish", Target: fmt.Sprintf("payroll:%d", a.RunID),
			Outcome: outcome, Detail: detail})
	})
}

// PayrollStateSum is a run's rows of one state in one currency: how many,
// the sum of the valid ones' amounts, and how many of those were sent
// (their action finished or their proposal exists).
type PayrollStateSum struct {
	State    string
	Currency string
	N        int
	Sum      decimal.Decimal
	Sent     int
}

// PayrollSummary is what a run's live poll shows of all its rows, read
// without reading them one by one: the counts and sums by state and
// currency, and the proposals waiting for the owner's signature (at most
// signLimit, in line order).
type PayrollSummary struct {
	States  []PayrollStateSum
	SignIDs []string
	// Signable is how many proposals wait for the signature in all.
	Signable int
}

// PayrollSummary reads a run's summary.
func (s *Store) PayrollSummary(ctx context.Context, runID int64, signLimit int) (PayrollSummary, error) {
	var out PayrollSummary
	b := &pgx.Batch{}
	b.Queue(`SELECT x.state, x.currency, count(*), coalesce(sum(x.amount) FILTER (WHERE x.valid), 0)::text,
			count(*) FILTER (WHERE x.valid AND ((x.astate <> '' AND x.astate <> 'begun') OR x.pid <> ''))
		FROM (SELECT `+payrollRowState+` AS state, w.currency, w.amount, cardinality(w.problems) = 0 AS valid,
				coalesce(a.state, '') AS astate, coalesce(w.proposal_id, '') AS pid
			FROM `+payrollRowSource+` WHERE w.run_id = $1) x
		GROUP BY 1, 2 ORDER BY 1, 2`, runID)
	b.Queue(`SELECT p.id, count(*) OVER () FROM payroll_rows w JOIN proposals p ON p.id = w.proposal_id
		WHERE w.run_id = $1 AND p.status = 'PENDING_SIGNATURES' ORDER BY w.line LIMIT $2`, runID, signLimit)
	br := s.db.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return out, fmt.Errorf("store: payroll summary of %d: %w", runID, err)
	}
	var st PayrollStateSum
	var sum string
	_, err = pgx.ForEachRow(rows, []any{&st.State, &st.Currency, &st.N, &sum, &st.Sent}, func() error {
		d, err := decimal.NewFromString(sum)
		if err != nil {
			return err
		}
		st.Sum = d
		out.States = append(out.States, st)
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store: payroll summary of %d: %w", runID, err)
	}
	if rows, err = br.Query(); err != nil {
		return out, fmt.Errorf("store: payroll summary of %d: %w", runID, err)
	}
	var id string
	_, err = pgx.ForEachRow(rows, []any{&id, &out.Signable}, func() error {
		out.SignIDs = append(out.SignIDs, id)
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store: payroll summary of %d: %w", runID, err)
	}
	return out, nil
}
