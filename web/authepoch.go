package web

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

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
//
// The same read brings the data versions (store.Epochs): a request that
// changes nothing (GET, HEAD) carries them in its context, and the store
// serves it reads kept at exactly those versions (store.WithVersions).
//
// Concurrent requests share reads: a request waits for the next read that
// starts after it arrived (one at a time), so however many requests are
// in flight the epoch costs about one query per round trip, and requests
// served from memory still mostly need no pooled connection of their own.
type authEpoch struct {
	store    *store.Store
	staff    *store.StaffCache
	sessions *sessionStore
	seen     atomic.Int64

	mu      sync.Mutex
	next    *epochRead // the read that starts next; new requests join it
	reading bool
}

// epochRead is one read of the epoch, shared by the requests that arrived
// before it started.
type epochRead struct {
	done chan struct{}
	e    store.Epochs
	err  error
}

// epochReadTimeout bounds one read; a database that does not answer in
// time is treated as unreadable (the copies are emptied).
const epochReadTimeout = 2 * time.Second

func newAuthEpoch(st *store.Store, staff *store.StaffCache, sessions *sessionStore) *authEpoch {
	e := &authEpoch{store: st, staff: staff, sessions: sessions}
	e.seen.Store(-1)
	return e
}

// wrap checks the epoch before next loads the session and the viewer.
// While neither copy is in use (the listener is not listening) they read
// through to the database anyway, and the check is skipped. A request that
// changes nothing gets the data versions of the same read.
func (e *authEpoch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		copies := e.staff.Live() || e.sessions.live()
		safe := r.Method == http.MethodGet || r.Method == http.MethodHead
		if copies || safe {
			ep, err := e.read(r.Context())
			if copies {
				e.sync(ep.Auth, err)
			}
			if err == nil && safe {
				r = r.WithContext(store.WithVersions(r.Context(), ep.Data))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// sync empties the copies when the epoch n moved since it was last seen,
// or when it could not be read (nothing can be vouched for then).
func (e *authEpoch) sync(n int64, err error) {
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

// read returns the epochs as read by a query that started after the call.
func (e *authEpoch) read(ctx context.Context) (store.Epochs, error) {
	e.mu.Lock()
	if e.next == nil {
		e.next = &epochRead{done: make(chan struct{})}
	}
	r := e.next
	if !e.reading {
		e.reading = true
		e.next = nil
		go e.run(r)
	}
	e.mu.Unlock()
	select {
	case <-r.done:
		return r.e, r.err
	case <-ctx.Done():
		return store.Epochs{}, ctx.Err()
	}
}

// run makes r's read, then the reads requested meanwhile, one at a time.
func (e *authEpoch) run(r *epochRead) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), epochReadTimeout)
		r.e, r.err = e.store.Epochs(ctx)
		cancel()
		close(r.done)
		e.mu.Lock()
		r = e.next
		e.next = nil
		if r == nil {
			e.reading = false
			e.mu.Unlock()
			return
		}
		e.mu.Unlock()
	}
}
