package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrStaffDisabled refuses an action that a disabled account cannot take part in.
var ErrStaffDisabled = errors.New("store: the staff account is disabled")

// staffSessionMarker is how a staff member's id appears in a session row:
// web's session codec (web/session_json.go) writes JSON, the staff id under
// "staff_id" (handlers.SessionStaffID) as {"i":<id>}. Inside a JSON string
// value a quote is escaped, so these bytes can only be that key and value.
// Sessions in the older gob form are not matched; they expired long ago
// (a session lives at most 12 hours).
func staffSessionMarker(staffID int64) []byte {
	return []byte(`"staff_id":{"i":` + strconv.FormatInt(staffID, 10) + `}`)
}

// endStaffSessions deletes the staff member's sessions except the one whose
// token is keep ("" keeps none).
func endStaffSessions(ctx context.Context, tx pgx.Tx, staffID int64, keep string) (int64, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM sessions WHERE position($1::bytea IN data) > 0 AND token <> $2`,
		staffSessionMarker(staffID), keep)
	if err != nil {
		return 0, fmt.Errorf("store: end sessions of staff %d: %w", staffID, err)
	}
	return tag.RowsAffected(), nil
}

// ChangeStaffPassword replaces a staff member's password hash, ends their
// other sessions (all but the one whose token is keep) and writes the audit
// row, in one transaction. It returns how many sessions were ended.
func (s *Store) ChangeStaffPassword(ctx context.Context, id int64, hash string, keep string, by Actor) (int64, error) {
	var ended int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var forced bool
		err := tx.QueryRow(ctx, `
			UPDATE staff n SET password_hash = $2, password_must_change = false, updated_at = now()
			FROM staff o WHERE n.id = $1 AND o.id = n.id
			RETURNING o.password_must_change`, id, hash).Scan(&forced)
		if err != nil {
			return fmt.Errorf("store: set password %d: %w", id, notFound(err))
		}
		if ended, err = endStaffSessions(ctx, tx, id, keep); err != nil {
			return err
		}
		detail := fmt.Sprintf("changed by the staff member; %d other sessions ended", ended)
		if forced {
			detail = fmt.Sprintf("first password (chosen by an owner) replaced by the staff member's own; %d other sessions ended", ended)
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: by, Action: "staff.password", Target: fmt.Sprintf("staff:%d", id), Outcome: OutcomeOK,
			Detail: detail,
		})
	})
	return ended, err
}

// IssueSetPasswordLink stores a one-time set-password link for an active
// staff member (only its token's hash), replacing any earlier link, with its
// audit row in the same transaction. It returns when the link expires.
func (s *Store) IssueSetPasswordLink(ctx context.Context, staffID int64, tokenHash []byte, ttl time.Duration, by Actor) (time.Time, error) {
	var expires time.Time
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var disabled bool
		err := tx.QueryRow(ctx, `SELECT disabled FROM staff WHERE id = $1 FOR UPDATE`, staffID).Scan(&disabled)
		if err != nil {
			return fmt.Errorf("store: load staff %d: %w", staffID, notFound(err))
		}
		if disabled {
			return ErrStaffDisabled
		}
		tag, err := tx.Exec(ctx, `DELETE FROM set_password_links WHERE staff_id = $1`, staffID)
		if err != nil {
			return fmt.Errorf("store: void set-password link of staff %d: %w", staffID, err)
		}
		var createdBy *int64
		if by.StaffID != 0 {
			createdBy = &by.StaffID
		}
		err = tx.QueryRow(ctx, `
			INSERT INTO set_password_links (staff_id, token_hash, created_by, expires_at)
			VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
			RETURNING expires_at`, staffID, tokenHash, createdBy, ttl.Milliseconds()).Scan(&expires)
		if err != nil {
			return fmt.Errorf("store: issue set-password link for staff %d: %w", staffID, err)
		}
		detail := "expires " + expires.UTC().Format(time.RFC3339)
		if tag.RowsAffected() > 0 {
			detail += "; the previous link no longer works"
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: by, Action: "staff.set_password_link", Target: fmt.Sprintf("staff:%d", staffID),
			Outcome: OutcomeOK, Detail: detail,
		})
	})
	return expires, err
}

// SetPasswordLink is a live set-password link and whom it is for.
type SetPasswordLink struct {
	StaffID   int64
	Email     string
	Name      string
	ExpiresAt time.Time
}

// SetPasswordLinkByTokenHash loads the unexpired link of an active staff
// member; anything else is ErrNotFound.
func (s *Store) SetPasswordLinkByTokenHash(ctx context.Context, hash []byte) (SetPasswordLink, error) {
	var l SetPasswordLink
	err := s.db.QueryRow(ctx, `
		SELECT s.id, s.email, s.name, l.expires_at
		FROM set_password_links l JOIN staff s ON s.id = l.staff_id
		WHERE l.token_hash = $1 AND l.expires_at > now() AND NOT s.disabled`, hash).
		Scan(&l.StaffID, &l.Email, &l.Name, &l.ExpiresAt)
	if err != nil {
		return SetPasswordLink{}, fmt.Errorf("store: load set-password link: %w", notFound(err))
	}
	return l, nil
}

// UseSetPasswordLink spends a live link: it is deleted, the staff member's
// password hash replaced and all their sessions ended, with the audit row
// (the staff member as actor), in one transaction. A link that is unknown,
// expired, already used or for a disabled account is ErrNotFound.
func (s *Store) UseSetPasswordLink(ctx context.Context, tokenHash []byte, passwordHash string) (SetPasswordLink, error) {
	var l SetPasswordLink
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			DELETE FROM set_password_links l USING staff s
			WHERE l.token_hash = $1 AND l.expires_at > now() AND s.id = l.staff_id AND NOT s.disabled
			RETURNING s.id, s.email, s.name, l.expires_at`, tokenHash).Scan(&l.StaffID, &l.Email, &l.Name, &l.ExpiresAt)
		if err != nil {
			return fmt.Errorf("store: use set-password link: %w", notFound(err))
		}
		// The staff member chose this password: no change is asked of them.
		if _, err := tx.Exec(ctx, `UPDATE staff SET password_hash = $2, password_must_change = false, updated_at = now() WHERE id = $1`,
			l.StaffID, passwordHash); err != nil {
			return fmt.Errorf("store: set password %d: %w", l.StaffID, err)
		}
		ended, err := endStaffSessions(ctx, tx, l.StaffID, "")
		if err != nil {
			return err
		}
		return writeAudit(ctx, tx, AuditEntry{
			Actor: Actor{StaffID: l.StaffID, Email: l.Email}, Action: "staff.password",
			Target: fmt.Sprintf("staff:%d", l.StaffID), Outcome: OutcomeOK,
			Detail: fmt.Sprintf("set through a set-password link; %d sessions ended", ended),
		})
	})
	return l, err
}

// PruneSetPasswordLinks deletes links that expired before the given time.
func (s *Store) PruneSetPasswordLinks(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM set_password_links WHERE expires_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("store: prune set-password links: %w", err)
	}
	return tag.RowsAffected(), nil
}
