// Package handlers holds everything that arrives: HTTP requests, webhook
// events and scheduled jobs, one sub-package per area. This package has what
// every area shares: rendering, the signed-in viewer, flashes and the one
// place server errors are logged and shown.
package handlers

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"

	"partneradmin/store"
	"partneradmin/views"
)

// htmx request and response headers.
const (
	HeaderHXRequest  = "HX-Request"
	HeaderHXBoosted  = "HX-Boosted"
	HeaderHXRedirect = "HX-Redirect"
	HeaderHXTrigger  = "HX-Trigger"
	HeaderHXRefresh  = "HX-Refresh"
)

// Session keys.
const (
	SessionStaffID = "staff_id"
	// SessionLastSeen is when the session was last used (Unix seconds),
	// for the idle timeout.
	SessionLastSeen = "last_seen"
	sessionFlash    = "flash"
	sessionFlashK   = "flash_kind"
)

// Viewer is the signed-in staff member and the navigation their role allows,
// put in the request context by web's authentication middleware.
type Viewer struct {
	Staff store.Staff
	// Nav is the viewer's navigation.
	Nav []views.NavItem
}

// Can reports whether the viewer's role holds a permission.
func (v *Viewer) Can(p store.Permission) bool { return v != nil && v.Staff.Role.Can(p) }

type viewerKey struct{}

type sessionKey struct{}

// WithSession marks a context as carrying loaded session data. Pages
// rendered without it (stateless routes, requests refused before the
// session loads) show no flash.
func WithSession(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionKey{}, true)
}

func hasSession(ctx context.Context) bool {
	ok, _ := ctx.Value(sessionKey{}).(bool)
	return ok
}

// WithViewer returns a context carrying the viewer.
func WithViewer(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerFrom returns the viewer, or nil for an anonymous request.
func ViewerFrom(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// ActorFrom is the viewer as an audit actor (zero for anonymous requests).
func ActorFrom(ctx context.Context) store.Actor {
	if v := ViewerFrom(ctx); v != nil {
		return v.Staff.Actor()
	}
	return store.Actor{}
}

// Base is what every area's handler struct embeds.
type Base struct {
	Logger   *slog.Logger
	Sessions *scs.SessionManager
	Assets   views.Assets
	// Sandbox: the app runs on the sandbox, and forms whose values only its
	// test data accepts list them (views.SandboxHint).
	Sandbox bool
}

// IsFragmentRequest reports whether htmx asked for a fragment (and not a
// boosted whole page).
func IsFragmentRequest(r *http.Request) bool {
	return r.Header.Get(HeaderHXRequest) == "true" && r.Header.Get(HeaderHXBoosted) != "true"
}

// Render writes page inside the layout, or fragment alone when htmx asked for
// a fragment. Rendering is buffered: a failed render never sends half a page.
func (b *Base) Render(w http.ResponseWriter, r *http.Request, status int, title string, page, fragment templ.Component) {
	w.Header().Add("Vary", HeaderHXRequest)
	var c templ.Component
	if fragment != nil && IsFragmentRequest(r) {
		c = fragment
	} else {
		c = views.Layout(b.PageMeta(r, title), page)
	}
	b.write(w, r, status, c)
}

// RenderFragment writes a component alone (an htmx swap target).
func (b *Base) RenderFragment(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	w.Header().Add("Vary", HeaderHXRequest)
	b.write(w, r, status, c)
}

func (b *Base) write(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(views.WithSandbox(r.Context(), b.Sandbox), &buf); err != nil {
		b.ServerError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// A known length spares chunked encoding and lets the body go out in
	// one write.
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// PageMeta builds the layout's model for this request.
func (b *Base) PageMeta(r *http.Request, title string) views.Page {
	p := views.Page{Title: title, Assets: b.Assets}
	if v := ViewerFrom(r.Context()); v != nil {
		p.Viewer = &views.Viewer{Name: displayName(v.Staff), Email: v.Staff.Email, RoleLabel: v.Staff.Role.Label()}
		p.Nav = v.Nav
	}
	if b.Sessions != nil && hasSession(r.Context()) {
		if msg := b.Sessions.PopString(r.Context(), sessionFlash); msg != "" {
			p.Flash = views.Flash{Kind: b.Sessions.PopString(r.Context(), sessionFlashK), Message: msg}
		}
	}
	return p
}

func displayName(s store.Staff) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Email
}

// Flash keeps a message for the next page this session sees.
func (b *Base) Flash(r *http.Request, kind, msg string) {
	if b.Sessions == nil || !hasSession(r.Context()) {
		return
	}
	b.Sessions.Put(r.Context(), sessionFlash, msg)
	b.Sessions.Put(r.Context(), sessionFlashK, kind)
}

// Redirect answers a successful POST: 303 for a form, HX-Redirect for htmx.
func (b *Base) Redirect(w http.ResponseWriter, r *http.Request, to string) {
	if r.Header.Get(HeaderHXRequest) == "true" {
		w.Header().Set(HeaderHXRedirect, to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// StatusClientClosedRequest is the status nginx logs for a request its
// client abandoned before the answer (there is no standard one): nobody
// reads it, it only tells the logs and metrics what happened.
const StatusClientClosedRequest = 499

// ServerError logs err with the request's context and shows a generic page
// (503 "temporarily unavailable" when the database could not be reached).
// The error's text never reaches the user. A request whose client went
// away (its context canceled) failed because of that, not a fault here:
// it is logged as abandoned, with 499.
func (b *Base) ServerError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(r.Context().Err(), context.Canceled) {
		b.Logger.InfoContext(r.Context(), "request abandoned by the client", "method", r.Method, "path", LogPath(r), "err", err)
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	if store.Unavailable(err) {
		b.Logger.WarnContext(r.Context(), "request failed: database unavailable", "method", r.Method, "path", LogPath(r), "err", err)
		w.Header().Set("Retry-After", "10")
		b.ErrorPage(w, r, http.StatusServiceUnavailable, "Temporarily unavailable",
			"The app cannot reach its database right now, so nothing was read or changed. Nothing you entered was lost: wait a moment and try again.")
		return
	}
	b.Logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", LogPath(r), "err", err)
	b.ErrorPage(w, r, http.StatusInternalServerError, "Something went wrong",
		"The request could not be completed. Nothing you entered was lost: go back and try again. If it keeps happening, tell an owner the time it happened.")
}

// ErrorPage shows the error page with a status.
func (b *Base) ErrorPage(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	v := views.ErrorView{Status: status, Title: title, Message: message, Back: Previous(r)}
	var buf bytes.Buffer
	c := views.Layout(b.PageMeta(r, title), views.ErrorPage(v))
	if IsFragmentRequest(r) {
		c = views.ErrorPage(v)
	}
	if err := c.Render(r.Context(), &buf); err != nil {
		b.Logger.ErrorContext(r.Context(), "render error page", "err", err)
		http.Error(w, title, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// NotFound shows the 404 page.
func (b *Base) NotFound(w http.ResponseWriter, r *http.Request) {
	b.ErrorPage(w, r, http.StatusNotFound, "Not found", "There is nothing at this address. It may have been removed, or the link may be mistyped.")
}

// Forbidden shows the 403 page.
func (b *Base) Forbidden(w http.ResponseWriter, r *http.Request) {
	b.ErrorPage(w, r, http.StatusForbidden, "Not allowed", "Your role does not allow this. Ask an owner if you need it.")
}
