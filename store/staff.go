package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Staff is a person who signs in to the app.
type Staff struct {
	ID           int64
	Email        string
	Name         string
	PasswordHash string
	Role         Role
	Disabled     bool
	// ServiceUserID is the wallet admin this staff member approves as
	// ("" until linked; see SetApproverLink).
	ServiceUserID string
	// SecondFactor: the staff member has a passkey, an authenticator app
	// or both (store/second_factor.go keeps it).
	SecondFactor bool
	// PasswordMustChange: the password was chosen by someone else (an
	// owner creating the account), so the staff member must choose their
	// own before anything else.
	PasswordMustChange bool
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Actor returns the staff member as an audit actor.
func (s Staff) Actor() Actor { return Actor{StaffID: s.ID, Email: s.Email} }

const staffColumns = `id, email, name, password_hash, role, disabled, service_user_id, second_factor, password_must_change, created_at, updated_at`

func scanStaff(row pgx.Row) (Staff, error) {
	var s Staff
	err := row.Scan(&s.ID, &s.Email, &s.Name, &s.PasswordHash, &s.Role, &s.Disabled, &s.ServiceUserID, &s.SecondFactor, &s.PasswordMustChange, &s.CreatedAt, &s.UpdatedAt)
	return s, err
}

// NewStaff is what creating a staff member needs.
type NewStaff struct {
	Email        string
	Name         string
	PasswordHash string
	Role         Role
	// PasswordMustChange: someone other than the staff member chose the
	// password; they are asked for their own at the first sign-in.
	PasswordMustChange bool
}

// CountStaff returns how many staff accounts exist.
func (s *Store) CountStaff(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM staff`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count staff: %w", err)
	}
	return n, nil
}

// CreateStaff inserts a staff member and its audit row in one transaction.
// A second account with the same email (case-insensitive) is ErrConflict.
func (s *Store) CreateStaff(ctx context.Context, n NewStaff, by Actor) (Staff, error) {
	var created Staff
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		row := tx.QueryRow(ctx, `
			INSERT INTO staff (email, name, password_hash, role, password_must_change)
			VALUES ($1, $2, $3, $4, $5)
			RETURNING `+staffColumns,
			strings.TrimSpace(n.Email), n.Name, n.PasswordHash, n.Role, n.PasswordMustChange)
		var err error
		created, err = scanStaff(row)
		if isUniqueViolation(err) {
			return ErrConflict
		}
		if err != nil {
			return fmt.Errorf("store: create staff: %w", err)
		}
		detail := fmt.Sprintf("%s as %s", created.Email, created.Role.Label())
		if created.PasswordMustChange {
			detail += "; chooses a new password at the first sign-in"
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: by, Action: "staff.create", Target: fmt.Sprintf("staff:%d", created.ID),
			Outcome: OutcomeOK, Detail: detail,
		})
	})
	return created, err
}

// StaffByID loads one staff member.
func (s *Store) StaffByID(ctx context.Context, id int64) (Staff, error) {
	st, err := scanStaff(s.db.QueryRow(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = $1`, id))
	if err != nil {
		return Staff{}, fmt.Errorf("store: load staff %d: %w", id, notFound(err))
	}
	return st, nil
}

// StaffByEmail loads one staff member by email, ignoring case.
func (s *Store) StaffByEmail(ctx context.Context, email string) (Staff, error) {
	st, err := scanStaff(s.db.QueryRow(ctx,
		`SELECT `+staffColumns+` FROM staff WHERE lower(email) = lower($1)`, strings.TrimSpace(email)))
	if err != nil {
		return Staff{}, fmt.Errorf("store: load staff by email: %w", notFound(err))
	}
	return st, nil
}

// ListStaff returns every staff member, by email.
func (s *Store) ListStaff(ctx context.Context) ([]Staff, error) {
	rows, err := s.db.Query(ctx, `SELECT `+staffColumns+` FROM staff ORDER BY lower(email)`)
	if err != nil {
		return nil, fmt.Errorf("store: list staff: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Staff, error) { return scanStaff(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list staff: %w", err)
	}
	return list, nil
}

// ErrLastOwner refuses a change that would leave no active owner.
var ErrLastOwner = fmt.Errorf("store: the last active owner cannot be demoted or disabled")

// UpdateStaffAccess changes a staff member's role and disabled flag, with its
// audit row. It refuses to leave the app without an active owner.
func (s *Store) UpdateStaffAccess(ctx context.Context, id int64, role Role, disabled bool, by Actor) (Staff, error) {
	var updated Staff
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := scanStaff(tx.QueryRow(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return fmt.Errorf("store: load staff %d: %w", id, notFound(err))
		}
		if before.Role == RoleOwner && !before.Disabled && (role != RoleOwner || disabled) {
			var owners int
			// Lock every active owner row so two demotions cannot both pass.
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT id FROM staff WHERE role = 'owner' AND NOT disabled FOR UPDATE) o`).Scan(&owners); err != nil {
				return fmt.Errorf("store: count owners: %w", err)
			}
			if owners <= 1 {
				return ErrLastOwner
			}
		}
		updated, err = scanStaff(tx.QueryRow(ctx, `
			UPDATE staff SET role = $2, disabled = $3, updated_at = now()
			WHERE id = $1 RETURNING `+staffColumns, id, role, disabled))
		if err != nil {
			return fmt.Errorf("store: update staff %d: %w", id, err)
		}
		var changes []string
		if before.Role != role {
			changes = append(changes, fmt.Sprintf("role %s → %s", before.Role.Label(), role.Label()))
		}
		if before.Disabled != disabled {
			if disabled {
				changes = append(changes, "disabled")
			} else {
				changes = append(changes, "enabled")
			}
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: by, Action: "staff.update", Target: fmt.Sprintf("staff:%d", id),
			Outcome: OutcomeOK, Detail: strings.Join(changes, ", "),
		})
	})
	return updated, err
}

// SetStaffPassword replaces a password hash, with its audit row.
func (s *Store) SetStaffPassword(ctx context.Context, id int64, hash string, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE staff SET password_hash = $2, updated_at = now() WHERE id = $1`, id, hash)
		if err != nil {
			return fmt.Errorf("store: set password %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: set password %d: %w", id, ErrNotFound)
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: by, Action: "staff.password", Target: fmt.Sprintf("staff:%d", id), Outcome: OutcomeOK,
		})
	})
}
