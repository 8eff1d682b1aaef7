package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// SignInSettings is how the owner decided staff sign in with the company's
// identity provider.
type SignInSettings struct {
	// JITRole is the role a verified address without an account is given
	// at its first sign-in; "" means invitation only.
	JITRole Role
	// AMRSecondFactor: the provider's multi-factor sign-in counts as the
	// second factor.
	AMRSecondFactor bool
	// PasswordOff: only BreakGlassStaffID signs in with a password.
	PasswordOff       bool
	BreakGlassStaffID int64
}

// SignInSettings returns the owner's sign-in settings (the zero value
// until decided: invitation only, passwords on).
func (s *Store) SignInSettings(ctx context.Context) (SignInSettings, error) {
	var out SignInSettings
	var role *string
	var bg *int64
	err := s.db.QueryRow(ctx, `SELECT jit_role, amr_second_factor, password_off, break_glass_staff_id FROM sign_in_settings`).
		Scan(&role, &out.AMRSecondFactor, &out.PasswordOff, &bg)
	if errors.Is(err, pgx.ErrNoRows) {
		return SignInSettings{}, nil
	}
	if err != nil {
		return SignInSettings{}, fmt.Errorf("store: sign-in settings: %w", err)
	}
	if role != nil {
		out.JITRole = Role(*role)
	}
	if bg != nil {
		out.BreakGlassStaffID = *bg
	}
	return out, nil
}

// SetSignInSettings records the owner's sign-in settings with one audit row
// saying what changed.
func (s *Store) SetSignInSettings(ctx context.Context, n SignInSettings, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := (&Store{db: tx}).SignInSettings(ctx)
		if err != nil {
			return err
		}
		var role *string
		if n.JITRole != "" {
			r := string(n.JITRole)
			role = &r
		}
		var bg, byID *int64
		if n.BreakGlassStaffID != 0 {
			bg = &n.BreakGlassStaffID
		}
		if by.StaffID != 0 {
			byID = &by.StaffID
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO sign_in_settings (id, jit_role, amr_second_factor, password_off, break_glass_staff_id, updated_by)
			VALUES (true, $1, $2, $3, $4, $5)
			ON CONFLICT (id) DO UPDATE SET jit_role = $1, amr_second_factor = $2, password_off = $3,
				break_glass_staff_id = $4, updated_by = $5, updated_at = now()`,
			role, n.AMRSecondFactor, n.PasswordOff, bg, byID); err != nil {
			return fmt.Errorf("store: set sign-in settings: %w", err)
		}
		var changes []string
		if before.JITRole != n.JITRole {
			if n.JITRole == "" {
				changes = append(changes, "new accounts: invitation only")
			} else {
				changes = append(changes, "new accounts: created at first sign-in as "+n.JITRole.Label())
			}
		}
		if before.AMRSecondFactor != n.AMRSecondFactor {
			changes = append(changes, fmt.Sprintf("provider's multi-factor sign-in counts as second factor: %t", n.AMRSecondFactor))
		}
		if before.PasswordOff != n.PasswordOff {
			changes = append(changes, fmt.Sprintf("password sign-in off: %t", n.PasswordOff))
		}
		if before.BreakGlassStaffID != n.BreakGlassStaffID {
			changes = append(changes, fmt.Sprintf("break-glass owner: staff:%d", n.BreakGlassStaffID))
		}
		detail := "no change"
		if len(changes) > 0 {
			detail = strings.Join(changes, ", ")
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "settings.sign_in", Target: "sign_in_settings",
			Outcome: OutcomeOK, Detail: detail})
	})
}
