package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SessionChannel is the notification channel of the session_changed
// trigger; its payload is SessionKey of the token.
const SessionChannel = "session_changed"

// PruneSessions deletes expired sessions (none is served after its expiry
// anyway): the periodic prune job does it once across replicas, instead of
// a cleanup goroutine in every process.
func (s *Store) PruneSessions(ctx context.Context) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM sessions WHERE expiry < current_timestamp`)
	if err != nil {
		return 0, fmt.Errorf("store: prune sessions: %w", err)
	}
	// An ended session's tombstone is needed until the session would have
	// expired (migration 0070).
	if _, err := s.db.Exec(ctx, `DELETE FROM session_tombstones WHERE expiry < current_timestamp`); err != nil {
		return 0, fmt.Errorf("store: prune session tombstones: %w", err)
	}
	return tag.RowsAffected(), nil
}

// FindSession reads a live session of the scs sessions table (the table
// pgxstore writes) with its expiry, which pgxstore's Find does not return.
func (s *Store) FindSession(ctx context.Context, token string) (data []byte, expiry time.Time, found bool, err error) {
	err = s.db.QueryRow(ctx, `SELECT data, expiry FROM sessions WHERE token = $1 AND current_timestamp < expiry`, token).Scan(&data, &expiry)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("store: find session: %w", err)
	}
	return data, expiry, true, nil
}
