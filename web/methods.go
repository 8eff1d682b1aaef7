package web

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// setAllow names in the Allow header the methods the request's path takes,
// as a 405 answer must (RFC 9110 15.5.6). chi's own 405 sets it, but not a
// custom MethodNotAllowed handler.
func setAllow(w http.ResponseWriter, r *http.Request) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil {
		return
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	// The methods a 405 may name: those of the route table, and HEAD
	// wherever GET is served (GET routes answer HEAD through
	// middleware.GetHead).
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		probe := m
		if m == http.MethodHead {
			probe = http.MethodGet
		}
		if rctx.Routes.Match(chi.NewRouteContext(), probe, path) {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
	}
}
