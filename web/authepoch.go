package web

import (
	"context"
	"net/http"
	"sync/atomic"

	"partneradmin/store"
)

// authEpoch makes the in-memory copies of sessions and staff honest across
// replicas at the very next request. LISTEN/NOTIFY drops a changed entry a
// moment after the change commits, whichever replica made it; a request
// that reaches another replica within that moment (or while its listening
// connection is silently dead, until the heartbeat notices) would still be
// served the old copy: a sign-out, a disabled account or a removed role
// not yet in effect. So every request that would use the copies first
// reads store.AuthEpoch (one row, one round trip), which every such change
// moves at commit; when it has moved, both copies are emptied before the
// request reads them.
type authEpoch struct {
	store    *store.Store
	staff    *store.StaffCache
	sessions *sessionStore
	seen     atomic.Int64
}

func newAuthEpoch(st *store.Store, staff *store.StaffCache, sessions *sessionStore) *authEpoch {
	e := &authEpoch{store: st, staff: staff, sessions: sessions}
	e.seen.Store(-1)
	return e
}

// wrap checks the epoch before next loads the session and the viewer.
// While neither copy is in use (the listener is not listening) they read
// through to the database anyway, and the check is skipped.
func (e *authEpoch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.staff.Live() || e.sessions.live() {
			e.sync(r.Context())
		}
		next.ServeHTTP(w, r)
	})
}

// sync empties the copies when the epoch moved since it was last seen, or
// when it cannot be read (nothing can be vouched for then).
func (e *authEpoch) sync(ctx context.Context) {
	n, err := e.store.AuthEpoch(ctx)
	if err != nil {
		e.clear()
		return
	}
	for {
		old := e.seen.Load()
		if n == old {
			return
		}
		e.clear()
		// The epoch only grows: a slower request's older reading must not
		// set it back.
		if n < old || e.seen.CompareAndSwap(old, n) {
			return
		}
	}
}

func (e *authEpoch) clear() {
	e.staff.Clear()
	e.sessions.clear()
}
