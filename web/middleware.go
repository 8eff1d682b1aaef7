package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"partneradmin/handlers"
	"partneradmin/store"
)

type requestIDKey struct{}

// requestID gives every request an id, in the context and the response.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// RequestIDFrom returns the request's id.
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// contextHandler adds the request id to every log record made with a
// request's context.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestIDFrom(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}

// NewLogger returns the app's structured logger, which tags records with the
// request id.
func NewLogger(h slog.Handler) *slog.Logger { return slog.New(contextHandler{h}) }

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// accessLog logs one line per request: method, path (never the query, which
// may carry names or emails), status, size and duration. Bodies, cookies and
// headers are never logged.
func accessLog(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			path := handlers.LogPath(r) // link tokens are credentials: never logged
			status := rec.status
			if status == 0 && errors.Is(r.Context().Err(), context.Canceled) {
				// Nothing was written for a client that went away.
				status = handlers.StatusClientClosedRequest
			}
			logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", path),
				slog.Int("status", status), slog.Int("bytes", rec.bytes),
				slog.Duration("duration", time.Since(start)))
		})
	}
}

// recoverer turns a panic into a logged error and a 500 page.
func recoverer(base *handlers.Base) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					base.Logger.ErrorContext(r.Context(), "panic", "value", fmt.Sprint(v), "stack", string(debug.Stack()))
					base.ServerError(w, r, fmt.Errorf("panic: %v", v))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// clientAddress sets r.RemoteAddr to the client's address when the request
// came through one of the trusted proxies: the rightmost address of
// X-Forwarded-For that is not itself a trusted proxy (everything left of it
// was written by the client, who may write anything). With no trusted
// proxies, or from any other peer, forwarded headers are ignored and
// RemoteAddr is the connection's peer. Rate limits count by RemoteAddr.
func clientAddress(trusted []netip.Prefix) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if len(trusted) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if addr, ok := forwardedClient(r, trusted); ok {
				r2 := *r
				r2.RemoteAddr = addr
				r = &r2
			}
			next.ServeHTTP(w, r)
		})
	}
}

// forwardedClient returns the client address of a request from a trusted
// proxy, as host:port (the peer's port: the client's is not known).
func forwardedClient(r *http.Request, trusted []netip.Prefix) (string, bool) {
	isTrusted := func(ip netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(ip) {
				return true
			}
		}
		return false
	}
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !isTrusted(peer.Addr().Unmap()) {
		return "", false
	}
	// Several X-Forwarded-For lines are one list, in order.
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := netip.Addr{}
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			// Not an address (or no header): nothing from here leftwards
			// can be believed; the last trusted hop is the client.
			break
		}
		client = ip.Unmap().WithZone("")
		if !isTrusted(client) {
			break
		}
	}
	if !client.IsValid() {
		return "", false
	}
	return netip.AddrPortFrom(client, peer.Port()).String(), true
}

// contentSecurityPolicy allows scripts, styles and requests to this origin
// only: no inline script, no eval, no inline style. QR codes are data: images.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(secure bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Security-Policy", contentSecurityPolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			// The app's own pages send their address to the app, which
			// draws "Back" links from it (handlers.Previous); no other
			// origin ever gets it (it may hold a search or a link token).
			h.Set("Referrer-Policy", "same-origin")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
			if !strings.HasPrefix(r.URL.Path, "/static/") {
				h.Set("Cache-Control", "no-store")
			}
			if secure {
				h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
			}
			next.ServeHTTP(w, r)
		})
	}
}

// crossOrigin refuses state-changing cross-origin browser requests (CSRF).
// Requests with no Origin or Sec-Fetch-Site header (devices, the API's
// webhook sender) pass, as Go's CrossOriginProtection documents.
func crossOrigin(base *handlers.Base, publicOrigin string) (func(http.Handler) http.Handler, error) {
	cop := http.NewCrossOriginProtection()
	if err := cop.AddTrustedOrigin(publicOrigin); err != nil {
		return nil, fmt.Errorf("web: trusted origin: %w", err)
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base.ErrorPage(w, r, http.StatusForbidden, "Request refused",
			"This request came from another site, so it was refused. Reload the page and try again from here.")
	}))
	return cop.Handler, nil
}

// Authenticator loads the signed-in staff member from the session.
type Authenticator struct {
	Base  *handlers.Base
	Store interface {
		StaffByID(ctx context.Context, id int64) (store.Staff, error)
	}
	// Nav is the main navigation's entries (navigation()).
	Nav []NavEntry
	Now func() time.Time
}

// A session unused for sessionIdleTimeout is signed out; its last use is
// recorded at most every sessionTouchEvery, so most requests write nothing.
const (
	sessionIdleTimeout = 2 * time.Hour
	sessionTouchEvery  = time.Minute
)

// authenticate puts the viewer in the context when the session names an
// active staff member. Disabled accounts lose their session at once.
func (a *Authenticator) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := handlers.WithSession(r.Context())
		r = r.WithContext(ctx)
		id := a.Base.Sessions.GetInt64(ctx, handlers.SessionStaffID)
		if id == 0 {
			next.ServeHTTP(w, r)
			return
		}
		now := a.Now()
		seen := time.Unix(a.Base.Sessions.GetInt64(ctx, handlers.SessionLastSeen), 0)
		if now.Sub(seen) > sessionIdleTimeout {
			a.Base.Sessions.Remove(ctx, handlers.SessionStaffID)
			a.Base.Sessions.Remove(ctx, handlers.SessionLastSeen)
			a.Base.Flash(r, "info", "You were signed out after two hours without activity.")
			next.ServeHTTP(w, r)
			return
		}
		if now.Sub(seen) >= sessionTouchEvery {
			a.Base.Sessions.Put(ctx, handlers.SessionLastSeen, now.Unix())
		}
		staff, err := a.Store.StaffByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && staff.Disabled) {
			a.Base.Sessions.Remove(ctx, handlers.SessionStaffID)
			if err == nil {
				a.Base.Flash(r, "error", "Your account has been disabled, so you were signed out. Ask an owner of this Partner Admin to enable it again.")
			}
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			a.Base.ServerError(w, r, err)
			return
		}
		v := &handlers.Viewer{Staff: staff}
		v.Nav = navFor(a.Nav, staff.Role, r.URL.Path)
		next.ServeHTTP(w, r.WithContext(handlers.WithViewer(ctx, v)))
	})
}

// maxDeniedPath is the most of a refused request's path its audit row
// keeps, in characters: the path is whatever was sent, and the row must be
// written (no NUL byte, no invalid UTF-8, under the target index's size).
const maxDeniedPath = 300

// authorize enforces a route's permission: anonymous requests go to the
// sign-in page, roles without the permission get 403 (audited for
// state-changing methods).
func authorize(base *handlers.Base, auditor interface {
	Audit(ctx context.Context, e store.AuditEntry) error
}, perm store.Permission, next http.Handler) http.Handler {
	if perm == store.PermPublic {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := handlers.ViewerFrom(r.Context())
		if v == nil {
			to := "/login"
			if r.Method == http.MethodGet && r.URL.Path != "/" {
				to += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			base.Redirect(w, r, to)
			return
		}
		if !v.Can(perm) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				err := auditor.Audit(r.Context(), store.AuditEntry{
					Actor: v.Staff.Actor(), Action: "access.denied", Target: r.Method + " " + handlers.Printable(r.URL.Path, maxDeniedPath),
					Outcome: store.OutcomeDenied, Detail: "role " + string(v.Staff.Role) + " lacks " + string(perm),
				})
				if err != nil {
					base.Logger.ErrorContext(r.Context(), "audit denied request", "err", err)
				}
			}
			base.Forbidden(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// minLevelHandler drops records below a level; river's info logs are too
// chatty for the app's log.
type minLevelHandler struct {
	slog.Handler
	min slog.Level
}

func (h minLevelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevelHandler{h.Handler.WithAttrs(attrs), h.min}
}

func (h minLevelHandler) WithGroup(name string) slog.Handler {
	return minLevelHandler{h.Handler.WithGroup(name), h.min}
}
