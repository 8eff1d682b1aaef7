package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Invite call outcomes. An invite row is written when the API answered
// (the action ledger keeps the call before and while it is sent).
const (
	InviteCallSent    = "sent"
	InviteCallNotSent = "not_sent" // the API answered sent: false, with its error
)

// Invite is one invite or re-invite call the API answered.
type Invite struct {
	ID         int64
	EmployeeID int64
	Email      string
	Name       string
	Reinvite   bool
	BulkRunID  int64
	State      string
	InviteURL  string
	Error      string
	CreatedBy  string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// AnsweredInvite is an invite call and the API's answer. Identification
// numbers and the BVN are not part of it (DESIGN.md decision 8).
type AnsweredInvite struct {
	Email          string
	FirstName      string
	LastName       string
	Country        string // ISO 3166-1 alpha-3 of the address
	OccupationCode string
	Reinvite       bool
	BulkRunID      int64
	// Sent is the API's "sent"; InviteURL its link; Error its words when
	// it did not send.
	Sent      bool
	InviteURL string
	Error     string
	By        Actor
}

// Name is the invitee's full name.
func (n AnsweredInvite) Name() string { return strings.TrimSpace(n.FirstName + " " + n.LastName) }

const inviteColumns = `id, employee_id, email, name, reinvite, coalesce(bulk_run_id, 0), state, invite_url, error, created_by, created_at, finished_at`

func scanInvite(row pgx.Row) (Invite, error) {
	var i Invite
	err := row.Scan(&i.ID, &i.EmployeeID, &i.Email, &i.Name, &i.Reinvite, &i.BulkRunID, &i.State, &i.InviteURL, &i.Error,
		&i.CreatedBy, &i.CreatedAt, &i.FinishedAt)
	return i, err
}

// RecordInvite records an invite call the API answered: the employee
// (created by a first invite, keyed by email; names, country and occupation
// code follow the latest invite while the person is only invited), the
// invite row with the answer, and the link. It writes no audit row: it is
// the local change of an invite action, whose finish writes the row in the
// same transaction. A re-invite of an email no employee has is ErrNotFound.
func (s *Store) RecordInvite(ctx context.Context, n AnsweredInvite) (Invite, Employee, error) {
	var inv Invite
	var emp Employee
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		emp, err = recordInviteEmployee(ctx, tx, n)
		if err != nil {
			return err
		}
		var bulk *int64
		if n.BulkRunID != 0 {
			bulk = &n.BulkRunID
		}
		state := InviteCallSent
		if !n.Sent {
			state = InviteCallNotSent
		}
		inv, err = scanInvite(tx.QueryRow(ctx, `
			INSERT INTO invites (employee_id, email, name, reinvite, bulk_run_id, created_by, state, invite_url, error, finished_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
			RETURNING `+inviteColumns, emp.ID, emp.Email, n.Name(), n.Reinvite, bulk, n.By.Email, state, n.InviteURL, n.Error))
		if err != nil {
			return fmt.Errorf("store: record invite %s: %w", n.Email, err)
		}
		return nil
	})
	return inv, emp, err
}

func recordInviteEmployee(ctx context.Context, tx pgx.Tx, n AnsweredInvite) (Employee, error) {
	email := strings.TrimSpace(n.Email)
	if n.Reinvite {
		e, err := scanEmployee(tx.QueryRow(ctx, `
			UPDATE employees SET invite_url = CASE WHEN $2 <> '' THEN $2 ELSE invite_url END,
				last_activity_at = now(), updated_at = now()
			WHERE lower(email) = lower($1) RETURNING `+employeeColumns, email, n.InviteURL))
		if err != nil {
			return Employee{}, fmt.Errorf("store: re-invite %s: %w", email, notFound(err))
		}
		return e, nil
	}
	e, err := scanEmployee(tx.QueryRow(ctx, `
		INSERT INTO employees (kind, email, first_name, last_name, country, invite_state, occupation_code, invite_url)
		VALUES ('employee', $1, $2, $3, $4, 'invited', $5, $6)
		ON CONFLICT ((lower(email))) DO UPDATE SET
			first_name = CASE WHEN employees.service_user_id IS NULL THEN EXCLUDED.first_name ELSE employees.first_name END,
			last_name = CASE WHEN employees.service_user_id IS NULL THEN EXCLUDED.last_name ELSE employees.last_name END,
			country = CASE WHEN employees.service_user_id IS NULL THEN EXCLUDED.country ELSE employees.country END,
			occupation_code = CASE WHEN employees.service_user_id IS NULL THEN EXCLUDED.occupation_code ELSE employees.occupation_code END,
			invite_url = CASE WHEN EXCLUDED.invite_url <> '' THEN EXCLUDED.invite_url ELSE employees.invite_url END,
			last_activity_at = now(), updated_at = now()
		RETURNING `+employeeColumns, email, n.FirstName, n.LastName, n.Country, n.OccupationCode, n.InviteURL))
	if err != nil {
		return Employee{}, fmt.Errorf("store: invite %s: %w", email, err)
	}
	return e, nil
}

// InvitesOf lists an employee's invite calls, newest first.
func (s *Store) InvitesOf(ctx context.Context, employeeID int64) ([]Invite, error) {
	rows, err := s.db.Query(ctx, `SELECT `+inviteColumns+` FROM invites WHERE employee_id = $1 ORDER BY id DESC LIMIT 50`, employeeID)
	if err != nil {
		return nil, fmt.Errorf("store: invites of %d: %w", employeeID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Invite, error) { return scanInvite(r) })
	if err != nil {
		return nil, fmt.Errorf("store: invites of %d: %w", employeeID, err)
	}
	return list, nil
}

// LinkInput is what linking learns: from an employee.linked webhook
// (invitationId, serviceUserId, companyEmail, linkedAt, kycSubmitted) or
// from the refresh action's reconciliation with the API.
type LinkInput struct {
	InvitationID  string
	Email         string // the work email the invite went to (companyEmail)
	ServiceUserID string
	LinkedAt      time.Time
	KYCSubmitted  bool
	Source        string // "webhook" or "refresh", for the audit row
}

// LinkInvite turns an invite into a linked employee: it records the
// serviceUserId, linkedAt and kycSubmitted and moves the invite state to
// linked (or kyc_submitted). The employee is found by invitationId, then
// by email (case-insensitive). It is idempotent: linking again with the same
// values changes nothing and writes no second audit row. A deleted employee
// keeps its deleted state. ErrNotFound when no local invite matches (the
// webhooks area keeps such events for reconciliation).
//
// For the webhooks area: call it from employee.linked with Source "webhook".
func (s *Store) LinkInvite(ctx context.Context, in LinkInput, by Actor) (Employee, bool, error) {
	var out Employee
	changed := false
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		e, err := scanEmployee(tx.QueryRow(ctx, `
			SELECT `+employeeColumns+` FROM employees
			WHERE kind = 'employee' AND ((invitation_id <> '' AND invitation_id = $1) OR lower(email) = lower($2))
			ORDER BY (invitation_id = $1) DESC LIMIT 1 FOR UPDATE`, in.InvitationID, strings.TrimSpace(in.Email)))
		if err != nil {
			return fmt.Errorf("store: link invite %s: %w", in.Email, notFound(err))
		}
		state := InviteLinked
		if in.KYCSubmitted || e.KYCSubmitted {
			state = InviteKYCSubmitted
		}
		if e.InviteState == InviteDeleted || e.InviteState == InviteActionRequired {
			state = e.InviteState
		}
		if e.ServiceUserID == in.ServiceUserID && e.InviteState == state && e.LinkedAt != nil && e.KYCSubmitted == (in.KYCSubmitted || e.KYCSubmitted) {
			out = e
			return nil
		}
		linkedAt := in.LinkedAt
		if linkedAt.IsZero() {
			linkedAt = time.Now()
		}
		out, err = scanEmployee(tx.QueryRow(ctx, `
			UPDATE employees SET service_user_id = $2, linked_at = coalesce(linked_at, $3), kyc_submitted = kyc_submitted OR $4,
				invite_state = $5, invitation_id = CASE WHEN $6 <> '' THEN $6 ELSE invitation_id END,
				last_activity_at = now(), updated_at = now()
			WHERE id = $1 RETURNING `+employeeColumns, e.ID, in.ServiceUserID, linkedAt, in.KYCSubmitted, state, in.InvitationID))
		if isUniqueViolation(err) {
			return fmt.Errorf("store: link invite %s: serviceUserId already belongs to another employee: %w", in.Email, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("store: link invite %s: %w", in.Email, err)
		}
		changed = true
		detail := "linked through " + in.Source
		if in.KYCSubmitted {
			detail += "; employer-held KYC submitted"
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.link", Target: fmt.Sprintf("employee:%d", e.ID),
			Outcome: OutcomeOK, Detail: detail})
	})
	return out, changed, err
}

// FlagActionRequired records a kyc.action_required event: the employee must
// do something further (often a selfie), described in words by what. It is
// idempotent. ErrNotFound when no employee has that serviceUserId.
//
// For the webhooks area: call it from kyc.action_required.
func (s *Store) FlagActionRequired(ctx context.Context, serviceUserID, what string, by Actor) (Employee, error) {
	if strings.TrimSpace(what) == "" {
		what = "The Partner API asks for a further action from the employee (often a selfie in the app)."
	}
	var out Employee
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		e, err := scanEmployee(tx.QueryRow(ctx, `SELECT `+employeeColumns+` FROM employees WHERE service_user_id = $1 FOR UPDATE`, serviceUserID))
		if err != nil {
			return fmt.Errorf("store: flag action required: %w", notFound(err))
		}
		if e.InviteState == InviteActionRequired && e.ActionRequired == what {
			out = e
			return nil
		}
		state := InviteActionRequired
		if e.InviteState == InviteDeleted {
			state = InviteDeleted
		}
		out, err = scanEmployee(tx.QueryRow(ctx, `
			UPDATE employees SET invite_state = $2, action_required = $3, action_required_at = now(),
				last_activity_at = now(), updated_at = now()
			WHERE id = $1 RETURNING `+employeeColumns, e.ID, state, what))
		if err != nil {
			return fmt.Errorf("store: flag action required: %w", err)
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.kyc_action_required", Target: fmt.Sprintf("employee:%d", e.ID),
			Outcome: OutcomeOK, Detail: what})
	})
	return out, err
}

// ClearActionRequired clears an employee's action-required flag: the
// invite state goes back to kyc_submitted or linked (a deleted account stays
// deleted), and an audit row saying who cleared it, what had been required
// and why is written in the same transaction. It reports false and writes
// nothing when the employee is not flagged. ErrNotFound when no employee has
// that id.
func (s *Store) ClearActionRequired(ctx context.Context, employeeID int64, by Actor, reason string) (bool, error) {
	return s.clearActionRequired(ctx, employeeID, time.Time{}, by, reason, true)
}

// ResolveActionRequired clears the flag as ClearActionRequired does, without
// an audit row: it is the local change of a "mark as resolved" action, whose
// finish writes the row in the same transaction. It reports false and
// changes nothing when the employee is not flagged.
func (s *Store) ResolveActionRequired(ctx context.Context, employeeID int64) (bool, error) {
	return s.clearActionRequired(ctx, employeeID, time.Time{}, Actor{}, "", false)
}

// ClearActionRequiredAsOf is ClearActionRequired on evidence from asOf (when
// a delivery arrived, when a read of the API began): a flag raised after
// asOf is newer than the evidence and stays, reported as nothing changed.
func (s *Store) ClearActionRequiredAsOf(ctx context.Context, employeeID int64, asOf time.Time, by Actor, reason string) (bool, error) {
	if asOf.IsZero() {
		return false, fmt.Errorf("store: clear action required %d: no time for the evidence", employeeID)
	}
	return s.clearActionRequired(ctx, employeeID, asOf, by, reason, true)
}

// DatabaseNow is the time on the database's clock, the clock flags and
// deliveries are dated by: evidence dated with it compares with them
// whatever the app's own clock says.
func (s *Store) DatabaseNow(ctx context.Context) (time.Time, error) {
	var t time.Time
	if err := s.db.QueryRow(ctx, `SELECT now()`).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("store: database clock: %w", err)
	}
	return t, nil
}

func (s *Store) clearActionRequired(ctx context.Context, employeeID int64, asOf time.Time, by Actor, reason string, audit bool) (bool, error) {
	changed := false
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var state, what string
		var flaggedAt *time.Time
		err := tx.QueryRow(ctx, `SELECT invite_state, action_required, action_required_at FROM employees WHERE id = $1 FOR UPDATE`,
			employeeID).Scan(&state, &what, &flaggedAt)
		if err != nil {
			return fmt.Errorf("store: clear action required %d: %w", employeeID, notFound(err))
		}
		if state != InviteActionRequired && what == "" {
			return nil
		}
		if !asOf.IsZero() && flaggedAt != nil && flaggedAt.After(asOf) {
			return nil
		}
		if _, err := tx.Exec(ctx, `
			UPDATE employees SET invite_state = CASE WHEN invite_state = 'deleted' THEN 'deleted'
					WHEN kyc_submitted THEN 'kyc_submitted' ELSE 'linked' END,
				action_required = '', action_required_at = NULL, last_activity_at = now(), updated_at = now()
			WHERE id = $1`, employeeID); err != nil {
			return fmt.Errorf("store: clear action required %d: %w", employeeID, err)
		}
		changed = true
		if !audit {
			return nil
		}
		if what == "" {
			what = "an action (not described)"
		}
		detail := "no longer required: " + what
		if reason = strings.TrimSpace(reason); reason != "" {
			detail += "; " + reason
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "employee.kyc_action_cleared", Target: fmt.Sprintf("employee:%d", employeeID),
			Outcome: OutcomeOK, Detail: detail})
	})
	return changed, err
}

// InvitedEmployees lists the employees still only invited (for the refresh
// action's reconciliation), oldest first.
func (s *Store) InvitedEmployees(ctx context.Context, limit int) ([]Employee, error) {
	rows, err := s.db.Query(ctx, `SELECT `+employeeColumns+` FROM employees
		WHERE kind = 'employee' AND invite_state = 'invited' AND service_user_id IS NULL ORDER BY id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: invited employees: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Employee, error) { return scanEmployee(r) })
	if err != nil {
		return nil, fmt.Errorf("store: invited employees: %w", err)
	}
	return list, nil
}

// InviteExtras are the employees-area columns of an employee.
type InviteExtras struct {
	InvitationID   string
	InviteURL      string
	OccupationCode string
}

// InviteExtrasOf loads the invite columns of an employee.
func (s *Store) InviteExtrasOf(ctx context.Context, employeeID int64) (InviteExtras, error) {
	var x InviteExtras
	err := s.db.QueryRow(ctx, `SELECT invitation_id, invite_url, occupation_code FROM employees WHERE id = $1`, employeeID).
		Scan(&x.InvitationID, &x.InviteURL, &x.OccupationCode)
	if err != nil {
		return x, fmt.Errorf("store: invite of employee %d: %w", employeeID, notFound(err))
	}
	return x, nil
}

// SetDeleted records a deletion the API accepted. It writes no audit row: it
// is the local change of a delete action, whose finish writes the row.
func (s *Store) SetDeleted(ctx context.Context, employeeID int64, at time.Time) error {
	tag, err := s.db.Exec(ctx, `UPDATE employees SET invite_state = 'deleted', deleted_at = $2, last_activity_at = now(), updated_at = now()
		WHERE id = $1`, employeeID, at)
	if err != nil {
		return fmt.Errorf("store: set deleted %d: %w", employeeID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set deleted %d: %w", employeeID, ErrNotFound)
	}
	return nil
}

// SetReactivated records a reactivation the API accepted, without an audit
// row (the reactivate action's finish writes it).
func (s *Store) SetReactivated(ctx context.Context, employeeID int64) error {
	tag, err := s.db.Exec(ctx, `UPDATE employees SET deleted_at = NULL,
			invite_state = CASE WHEN action_required <> '' THEN 'action_required' WHEN kyc_submitted THEN 'kyc_submitted'
				WHEN service_user_id IS NOT NULL THEN 'linked' ELSE 'invited' END,
			last_activity_at = now(), updated_at = now()
		WHERE id = $1`, employeeID)
	if err != nil {
		return fmt.Errorf("store: set reactivated %d: %w", employeeID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set reactivated %d: %w", employeeID, ErrNotFound)
	}
	return nil
}
