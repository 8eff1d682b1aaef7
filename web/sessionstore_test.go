package web

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/store/pgtest"
)

func sessionTestStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return store.New(pool)
}

// writeQuietly changes a session row behind the cache's back (the trigger
// that announces changes is off for the update).
func writeQuietly(t *testing.T, st *store.Store, token string, data []byte) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Pool().Exec(ctx, `ALTER TABLE sessions DISABLE TRIGGER session_changed`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE sessions SET data = $2 WHERE token = $1`, token, data); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `ALTER TABLE sessions ENABLE TRIGGER session_changed`); err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer is a log sink the listener's goroutine writes to while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func find(t *testing.T, s *sessionStore, token string) (string, bool) {
	t.Helper()
	b, ok, err := s.FindCtx(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), ok
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSessionStoreKeepsSessionsHonest(t *testing.T) {
	st := sessionTestStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs lockedBuffer
	l := store.NewListener(st, slog.New(slog.NewTextHandler(&logs, nil)))
	now := time.Now
	s := newSessionStore(st, l, func() time.Time { return now() })

	// Not listening yet: every read goes to the database.
	if err := s.Commit("tok-a", []byte("v1"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	find(t, s, "tok-a")
	writeQuietly(t, st, "tok-a", []byte("v2"))
	if got, _ := find(t, s, "tok-a"); got != "v2" {
		t.Fatalf("not listening, yet served %q from memory", got)
	}

	go func() { _ = l.Run(ctx) }()
	select {
	case <-l.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("not listening after 5 s")
	}
	// Listening: the second read comes from memory.
	if got, ok := find(t, s, "tok-a"); !ok || got != "v2" {
		t.Fatalf("first read %q %v", got, ok)
	}
	writeQuietly(t, st, "tok-a", []byte("v3"))
	if got, _ := find(t, s, "tok-a"); got != "v2" {
		t.Fatalf("second read %q: not from memory", got)
	}
	// This process's commit and delete are seen at once.
	if err := s.Commit("tok-a", []byte("v4"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := find(t, s, "tok-a"); got != "v4" {
		t.Fatalf("after commit: %q", got)
	}
	if err := s.Delete("tok-a"); err != nil {
		t.Fatal(err)
	}
	if _, ok := find(t, s, "tok-a"); ok {
		t.Fatal("a deleted session was found")
	}

	// Another replica signs a session out (plain SQL here): the notice
	// drops it shortly after.
	if err := s.Commit("tok-b", []byte("b1"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the session was never kept", func() bool {
		find(t, s, "tok-b")
		_, kept, _ := s.rows.Get(sessionKey("tok-b"), nil)
		return kept
	})
	if _, err := st.Pool().Exec(ctx, `DELETE FROM sessions WHERE token = 'tok-b'`); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a session deleted elsewhere was still found", func() bool {
		_, ok := find(t, s, "tok-b")
		return !ok
	})

	// A kept session past its expiry is not served.
	if err := s.Commit("tok-c", []byte("c1"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	find(t, s, "tok-c")
	now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	for _, sql := range []string{`ALTER TABLE sessions DISABLE TRIGGER session_changed`,
		`UPDATE sessions SET expiry = now() - interval '1 second' WHERE token = 'tok-c'`,
		`ALTER TABLE sessions ENABLE TRIGGER session_changed`} {
		if _, err := st.Pool().Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := find(t, s, "tok-c"); ok {
		t.Fatal("an expired session was served")
	}
	now = time.Now

	// The listening connection dies: nothing kept is used until it listens
	// again.
	if err := s.Commit("tok-d", []byte("d1"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	find(t, s, "tok-d")
	if _, err := st.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	writeQuietly(t, st, "tok-d", []byte("d2"))
	eventually(t, "after losing its connection the store kept serving a session it could not hear about", func() bool {
		got, _ := find(t, s, "tok-d")
		return got == "d2"
	})
	// The token itself never reaches a notice or a log line.
	if got := logs.String(); strings.Contains(got, "tok-") {
		t.Errorf("a session token was logged:\n%s", got)
	}
}

// TestEndedSessionStaysEnded: a request that loaded a session before it
// was ended (signed out, ended from the account page) and commits it after
// must not write it back: the token stays unknown, on every replica, until
// the prune job clears the tombstone with the expired sessions.
func TestEndedSessionStaysEnded(t *testing.T) {
	st := sessionTestStore(t)
	ctx := context.Background()
	codec := newSessionCodec()
	signedIn, err := codec.Encode(time.Now().Add(time.Hour), map[string]any{"staff_id": int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	s := newSessionStore(st, store.NewListener(st, slog.New(slog.DiscardHandler)), time.Now)
	const token = "tombstone-test-token"
	expiry := time.Now().Add(time.Hour)
	if err := s.CommitCtx(ctx, token, signedIn, expiry); err != nil {
		t.Fatal(err)
	}
	// Another request changes the live session: an update, allowed.
	if err := s.CommitCtx(ctx, token, signedIn, expiry); err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.FindCtx(ctx, token); err != nil || !found {
		t.Fatalf("live session: found %v, %v", found, err)
	}
	// Signed out (scs deletes the row), then the slower request commits.
	if err := s.DeleteCtx(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitCtx(ctx, token, signedIn, expiry); err != nil {
		t.Fatalf("late commit: %v", err)
	}
	if _, found, err := s.FindCtx(ctx, token); err != nil || found {
		t.Fatalf("the ended session came back: found %v, %v", found, err)
	}
	// The same through the staff page's "end every session": a plain
	// DELETE of the rows.
	const other = "tombstone-test-token-2"
	if err := s.CommitCtx(ctx, other, signedIn, expiry); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM sessions WHERE token = $1`, other); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitCtx(ctx, other, signedIn, expiry); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.FindCtx(ctx, other); found {
		t.Fatal("a session ended by DELETE came back")
	}
	// Tombstones go with the expired sessions.
	if _, err := st.Pool().Exec(ctx, `UPDATE session_tombstones SET expiry = now() - interval '1 minute'`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PruneSessions(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM session_tombstones`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d tombstones left after the prune (%v)", left, err)
	}
}
