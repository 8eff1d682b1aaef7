package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Passkey is one WebAuthn credential of a staff member.
type Passkey struct {
	ID           int64
	StaffID      int64
	CredentialID []byte
	// Credential is the go-webauthn Credential as JSON.
	Credential []byte
	Name       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// TOTP is a staff member's authenticator-app secret, sealed.
type TOTP struct {
	Sealed   []byte
	LastStep int64
}

// setSecondFactorFlag keeps staff.second_factor equal to "has a passkey or
// an authenticator app"; the row's update announces the change to every
// staff cache.
func setSecondFactorFlag(ctx context.Context, tx pgx.Tx, staffID int64) error {
	_, err := tx.Exec(ctx, `
		UPDATE staff SET second_factor = (
			EXISTS (SELECT 1 FROM staff_passkeys WHERE staff_id = $1) OR
			EXISTS (SELECT 1 FROM staff_totp WHERE staff_id = $1)), updated_at = now()
		WHERE id = $1`, staffID)
	if err != nil {
		return fmt.Errorf("store: second factor flag of staff %d: %w", staffID, err)
	}
	return nil
}

// SecondFactorPolicy returns the roles the owner decided about: required
// or not. A role missing from the map follows the app's default.
func (s *Store) SecondFactorPolicy(ctx context.Context) (map[Role]bool, error) {
	rows, err := s.db.Query(ctx, `SELECT role, required FROM second_factor_policy`)
	if err != nil {
		return nil, fmt.Errorf("store: second factor policy: %w", err)
	}
	out := map[Role]bool{}
	var role Role
	var req bool
	_, err = pgx.ForEachRow(rows, []any{&role, &req}, func() error {
		out[role] = req
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: second factor policy: %w", err)
	}
	return out, nil
}

// RoleSecondFactor returns whether the owner requires a second factor of
// the role; decided is false when they never said (the default applies).
func (s *Store) RoleSecondFactor(ctx context.Context, role Role) (required, decided bool, err error) {
	err = s.db.QueryRow(ctx, `SELECT required FROM second_factor_policy WHERE role = $1`, role).Scan(&required)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("store: second factor policy of %s: %w", role, err)
	}
	return required, true, nil
}

// SetSecondFactorPolicy records, for every role given, whether it must have
// a second factor, with one audit row saying what changed (before is what
// applied until now, defaults included).
func (s *Store) SetSecondFactorPolicy(ctx context.Context, required, before map[Role]bool, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var changes []string
		for _, r := range Roles() {
			req, ok := required[r]
			if !ok {
				continue
			}
			var byID *int64
			if by.StaffID != 0 {
				byID = &by.StaffID
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO second_factor_policy (role, required, updated_by) VALUES ($1, $2, $3)
				ON CONFLICT (role) DO UPDATE SET required = $2, updated_by = $3, updated_at = now()`,
				r, req, byID); err != nil {
				return fmt.Errorf("store: set second factor policy: %w", err)
			}
			if before[r] != req {
				word := "not required"
				if req {
					word = "required"
				}
				changes = append(changes, r.Label()+": "+word)
			}
		}
		detail := "no change"
		if len(changes) > 0 {
			detail = strings.Join(changes, ", ")
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "settings.second_factor", Target: "second_factor_policy",
			Outcome: OutcomeOK, Detail: detail})
	})
}

// Passkeys lists a staff member's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, staffID int64) ([]Passkey, error) {
	rows, err := s.db.Query(ctx, `
		SELECT id, staff_id, credential_id, credential, name, created_at, last_used_at
		FROM staff_passkeys WHERE staff_id = $1 ORDER BY id`, staffID)
	if err != nil {
		return nil, fmt.Errorf("store: passkeys of staff %d: %w", staffID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Passkey, error) {
		var p Passkey
		err := r.Scan(&p.ID, &p.StaffID, &p.CredentialID, &p.Credential, &p.Name, &p.CreatedAt, &p.LastUsedAt)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: passkeys of staff %d: %w", staffID, err)
	}
	return list, nil
}

// AddPasskey stores a new passkey of a staff member, with its audit row.
// A credential registered already (to anyone) is ErrConflict.
func (s *Store) AddPasskey(ctx context.Context, staffID int64, credentialID, credential []byte, name string, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO staff_passkeys (staff_id, credential_id, credential, name) VALUES ($1, $2, $3, $4)`,
			staffID, credentialID, credential, name)
		if isUniqueViolation(err) {
			return ErrConflict
		}
		if err != nil {
			return fmt.Errorf("store: add passkey of staff %d: %w", staffID, err)
		}
		if err := setSecondFactorFlag(ctx, tx, staffID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.second_factor.enrol",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: "passkey " + name})
	})
}

// PasskeyUsed records a passkey's use: its updated credential (the sign
// count) and when.
func (s *Store) PasskeyUsed(ctx context.Context, staffID int64, credentialID, credential []byte) error {
	_, err := s.db.Exec(ctx, `UPDATE staff_passkeys SET credential = $3, last_used_at = now()
		WHERE staff_id = $1 AND credential_id = $2`, staffID, credentialID, credential)
	if err != nil {
		return fmt.Errorf("store: passkey use of staff %d: %w", staffID, err)
	}
	return nil
}

// RemovePasskey deletes one of a staff member's passkeys, with its audit
// row; ErrNotFound when it is not theirs.
func (s *Store) RemovePasskey(ctx context.Context, staffID, id int64, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var name string
		err := tx.QueryRow(ctx, `DELETE FROM staff_passkeys WHERE id = $1 AND staff_id = $2 RETURNING name`, id, staffID).Scan(&name)
		if err != nil {
			return fmt.Errorf("store: remove passkey %d: %w", id, notFound(err))
		}
		if err := setSecondFactorFlag(ctx, tx, staffID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.second_factor.remove",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: "passkey " + name})
	})
}

// StaffTOTP loads a staff member's sealed authenticator-app secret.
func (s *Store) StaffTOTP(ctx context.Context, staffID int64) (TOTP, error) {
	var t TOTP
	err := s.db.QueryRow(ctx, `SELECT secret_sealed, last_step FROM staff_totp WHERE staff_id = $1`, staffID).Scan(&t.Sealed, &t.LastStep)
	if err != nil {
		return TOTP{}, fmt.Errorf("store: totp of staff %d: %w", staffID, notFound(err))
	}
	return t, nil
}

// SetTOTP stores (or replaces) a staff member's sealed authenticator-app
// secret, the step of the code that confirmed it already spent, with its
// audit row.
func (s *Store) SetTOTP(ctx context.Context, staffID int64, sealed []byte, step int64, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO staff_totp (staff_id, secret_sealed, last_step) VALUES ($1, $2, $3)
			ON CONFLICT (staff_id) DO UPDATE SET secret_sealed = $2, last_step = $3, created_at = now()`,
			staffID, sealed, step); err != nil {
			return fmt.Errorf("store: set totp of staff %d: %w", staffID, err)
		}
		if err := setSecondFactorFlag(ctx, tx, staffID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.second_factor.enrol",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: "authenticator app"})
	})
}

// UseTOTPStep spends the 30-second step of an accepted code: false when
// that step (or a later one) was used already, so a code works once.
func (s *Store) UseTOTPStep(ctx context.Context, staffID, step int64) (bool, error) {
	tag, err := s.db.Exec(ctx, `UPDATE staff_totp SET last_step = $2 WHERE staff_id = $1 AND last_step < $2`, staffID, step)
	if err != nil {
		return false, fmt.Errorf("store: spend totp step of staff %d: %w", staffID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// ReplaceRecoveryCodes replaces a staff member's recovery codes by new ones
// (their SHA-256 only), with the audit row.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, staffID int64, hashes [][]byte, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM staff_recovery_codes WHERE staff_id = $1`, staffID); err != nil {
			return fmt.Errorf("store: clear recovery codes of staff %d: %w", staffID, err)
		}
		for _, h := range hashes {
			if _, err := tx.Exec(ctx, `INSERT INTO staff_recovery_codes (staff_id, code_hash) VALUES ($1, $2)`, staffID, h); err != nil {
				return fmt.Errorf("store: add recovery code of staff %d: %w", staffID, err)
			}
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.recovery_codes",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: fmt.Sprintf("%d new codes; earlier codes no longer work", len(hashes))})
	})
}

// UseRecoveryCode spends an unused recovery code of the staff member,
// with its audit row; false (and nothing written) when no unused code has
// that hash. It returns how many unused codes remain.
func (s *Store) UseRecoveryCode(ctx context.Context, staffID int64, hash []byte, by Actor) (ok bool, left int, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE staff_recovery_codes SET used_at = now()
			WHERE staff_id = $1 AND code_hash = $2 AND used_at IS NULL`, staffID, hash)
		if err != nil {
			return fmt.Errorf("store: use recovery code of staff %d: %w", staffID, err)
		}
		if ok = tag.RowsAffected() == 1; !ok {
			return nil
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM staff_recovery_codes WHERE staff_id = $1 AND used_at IS NULL`, staffID).Scan(&left); err != nil {
			return fmt.Errorf("store: count recovery codes of staff %d: %w", staffID, err)
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.recovery_code",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: fmt.Sprintf("recovery code used; %d left", left)})
	})
	return ok, left, err
}

// RecoveryCodesLeft counts a staff member's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, staffID int64) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM staff_recovery_codes WHERE staff_id = $1 AND used_at IS NULL`, staffID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count recovery codes of staff %d: %w", staffID, err)
	}
	return n, nil
}

// ResetSecondFactor removes every second factor of a staff member
// (passkeys, authenticator app, recovery codes) and ends all their
// sessions, with the audit row, in one transaction: they enrol again at
// their next sign-in.
func (s *Store) ResetSecondFactor(ctx context.Context, staffID int64, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM staff WHERE id = $1`, staffID).Scan(&n); err != nil {
			return fmt.Errorf("store: reset second factor of staff %d: %w", staffID, err)
		}
		if n == 0 {
			return fmt.Errorf("store: reset second factor of staff %d: %w", staffID, ErrNotFound)
		}
		var parts []string
		for _, q := range []struct{ sql, what string }{
			{`DELETE FROM staff_passkeys WHERE staff_id = $1`, "passkeys"},
			{`DELETE FROM staff_totp WHERE staff_id = $1`, "authenticator app"},
			{`DELETE FROM staff_recovery_codes WHERE staff_id = $1`, "recovery codes"},
		} {
			tag, err := tx.Exec(ctx, q.sql, staffID)
			if err != nil {
				return fmt.Errorf("store: reset second factor of staff %d: %w", staffID, err)
			}
			parts = append(parts, fmt.Sprintf("%d %s", tag.RowsAffected(), q.what))
		}
		if err := setSecondFactorFlag(ctx, tx, staffID); err != nil {
			return err
		}
		ended, err := endStaffSessions(ctx, tx, staffID, "")
		if err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "staff.second_factor_reset",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK,
			Detail: fmt.Sprintf("removed %s; %d sessions ended", strings.Join(parts, ", "), ended)})
	})
}

// Session data keys the sign-in writes besides the staff id and last use
// (handlers.SessionStaffID, handlers.SessionLastSeen), read back by
// StaffSessions.
const (
	SessionKeyCreated   = "created_at"
	SessionKeyUserAgent = "user_agent"
	SessionKeyAddress   = "client_addr"
	sessionKeyLastSeen  = "last_seen"
)

// StaffSession is one live session of a staff member. Key is the SHA-256
// of its token (hex): the token itself is a credential and never shown.
type StaffSession struct {
	Key       string
	UserAgent string
	Address   string
	CreatedAt time.Time
	LastSeen  time.Time
	Expiry    time.Time
}

// sessionJSON is the part of web's session codec (web/session_json.go)
// StaffSessions reads.
type sessionJSON struct {
	Values map[string]struct {
		S *string `json:"s"`
		I *int64  `json:"i"`
	} `json:"v"`
}

// StaffSessions lists a staff member's live sessions, most recently used
// first.
func (s *Store) StaffSessions(ctx context.Context, staffID int64) ([]StaffSession, error) {
	rows, err := s.db.Query(ctx, `
		SELECT encode(sha256(convert_to(token, 'UTF8')), 'hex'), data, expiry FROM sessions
		WHERE position($1::bytea IN data) > 0 AND current_timestamp < expiry`, staffSessionMarker(staffID))
	if err != nil {
		return nil, fmt.Errorf("store: sessions of staff %d: %w", staffID, err)
	}
	var out []StaffSession
	var key string
	var data []byte
	var expiry time.Time
	_, err = pgx.ForEachRow(rows, []any{&key, &data, &expiry}, func() error {
		var d sessionJSON
		if json.Unmarshal(data, &d) != nil {
			return nil // not the JSON codec's: cannot be shown, expires soon
		}
		ss := StaffSession{Key: key, Expiry: expiry}
		str := func(k string) string {
			if v, ok := d.Values[k]; ok && v.S != nil {
				return *v.S
			}
			return ""
		}
		unix := func(k string) time.Time {
			if v, ok := d.Values[k]; ok && v.I != nil {
				return time.Unix(*v.I, 0)
			}
			return time.Time{}
		}
		ss.UserAgent, ss.Address = str(SessionKeyUserAgent), str(SessionKeyAddress)
		ss.CreatedAt, ss.LastSeen = unix(SessionKeyCreated), unix(sessionKeyLastSeen)
		out = append(out, ss)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: sessions of staff %d: %w", staffID, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	return out, nil
}

// EndStaffSession ends one session of a staff member by its key, with the
// audit row; ErrNotFound when they have no such session.
func (s *Store) EndStaffSession(ctx context.Context, staffID int64, key string, by Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM sessions
			WHERE position($1::bytea IN data) > 0 AND encode(sha256(convert_to(token, 'UTF8')), 'hex') = $2`,
			staffSessionMarker(staffID), key)
		if err != nil {
			return fmt.Errorf("store: end session of staff %d: %w", staffID, err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.sessions.end",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: "1 session ended"})
	})
}

// EndStaffSessions ends every session of a staff member except the one
// whose token is keep ("" ends all), with the audit row; it returns how
// many ended.
func (s *Store) EndStaffSessions(ctx context.Context, staffID int64, keep string, by Actor) (int64, error) {
	var ended int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		if ended, err = endStaffSessions(ctx, tx, staffID, keep); err != nil {
			return err
		}
		detail := fmt.Sprintf("%d sessions ended", ended)
		if keep != "" {
			detail = fmt.Sprintf("%d other sessions ended", ended)
		}
		return writeAudit(ctx, tx, AuditEntry{Actor: by, Action: "auth.sessions.end",
			Target: fmt.Sprintf("staff:%d", staffID), Outcome: OutcomeOK, Detail: detail})
	})
	return ended, err
}
