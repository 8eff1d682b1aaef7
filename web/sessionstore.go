package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/alexedwards/scs/pgxstore"

	"partneradmin/store"
)

// sessionStore is pgxstore with the sessions this process reads kept in
// memory, so that a request does not need a round trip to load its
// session. PostgreSQL keeps the copy honest: every update or deletion of a
// session row is announced (the session_changed trigger, migration 0010)
// and the row dropped here, whichever replica made it; this process's own
// commits and deletions replace or drop the row at once. Like the staff
// cache, it answers from memory only while its listener is listening, and
// starts empty each time it listens again. Entries are keyed by the
// token's SHA-256, and one past its expiry is never served.
type sessionStore struct {
	db   *pgxstore.PostgresStore
	st   *store.Store
	now  func() time.Time
	rows store.Memo[string, cachedSession]
}

type cachedSession struct {
	data   []byte
	expiry time.Time
}

// maxCachedSessions bounds the memory: past it the copy starts again empty.
const maxCachedSessions = 100_000

func newSessionStore(st *store.Store, l *store.Listener, now func() time.Time) *sessionStore {
	// No cleanup goroutine: expired sessions are deleted by the periodic
	// prune job (auth.PruneLoginFailuresWorker), once across replicas.
	s := &sessionStore{db: pgxstore.NewWithCleanupInterval(st.Pool(), 0), st: st, now: now}
	s.rows.Max = maxCachedSessions
	l.Subscribe(store.SessionChannel, s)
	return s
}

// sessionKey is how a token is named in memory and in notices.
func sessionKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func (s *sessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s *sessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	key := sessionKey(token)
	e, ok, ticket := s.rows.Get(key, func(e cachedSession) bool { return s.now().Before(e.expiry) })
	if ok {
		return e.data, true, nil
	}
	data, expiry, found, err := s.st.FindSession(ctx, token)
	if err != nil || !found {
		return nil, false, err
	}
	s.rows.Keep(key, ticket, cachedSession{data: data, expiry: expiry})
	return data, true, nil
}

func (s *sessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

func (s *sessionStore) CommitCtx(_ context.Context, token string, b []byte, expiry time.Time) error {
	// The next read goes to the database (the trigger's notice of this very
	// write would drop a copy kept now anyway).
	key := sessionKey(token)
	s.forget(key)
	err := s.db.Commit(token, b, expiry)
	s.forget(key)
	return err
}

func (s *sessionStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}

func (s *sessionStore) DeleteCtx(_ context.Context, token string) error {
	s.forget(sessionKey(token))
	err := s.db.Delete(token)
	s.forget(sessionKey(token))
	return err
}

// Notice drops the session a change notice names (the token's SHA-256).
func (s *sessionStore) Notice(key string) { s.forget(key) }

func (s *sessionStore) forget(key string) { s.rows.Forget(key) }

// SetLive starts or stops answering from memory; both start from empty.
func (s *sessionStore) SetLive(live bool) { s.rows.SetLive(live) }

// clear drops every session kept (auth_epoch moved).
func (s *sessionStore) clear() { s.rows.Clear() }

// live reports whether sessions are served from memory.
func (s *sessionStore) live() bool { return s.rows.Live() }
