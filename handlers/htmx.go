package handlers

import (
	"net/http"

	"github.com/a-h/templ"
)

// The htmx convention, in one place: Render decides page or fragment from
// the request; Fragment answers a change htmx sent with the part it
// swaps; Unchanged answers a poll whose page is current with 204; and
// ReloadWhenFinished ends a progress poll with one reload. Refusals keep
// their 4xx status: static/app.js makes htmx swap 400, 409 and 422.

// Fragment answers an htmx fragment request with the fragment alone, its
// status kept, and reports whether it did; otherwise the caller answers
// with a page or a redirect.
func (b *Base) Fragment(w http.ResponseWriter, r *http.Request, status int, fragment templ.Component) bool {
	if !IsFragmentRequest(r) {
		return false
	}
	b.RenderFragment(w, r, status, fragment)
	return true
}

// Unchanged answers a poll with 204 (htmx keeps what it shows) when current
// says the stamp the poll carries is still the page's, and reports whether
// it did. A route that also serves the whole page counts only a fragment
// request as a poll (current includes IsFragmentRequest there).
func (b *Base) Unchanged(w http.ResponseWriter, r *http.Request, current bool) bool {
	if !current || r.Method != http.MethodGet {
		return false
	}
	w.Header().Add("Vary", HeaderHXRequest)
	w.WriteHeader(http.StatusNoContent)
	return true
}

// ReloadWhenFinished makes the last poll of a progress fragment reload the
// page once, so it shows every outcome.
func (b *Base) ReloadWhenFinished(w http.ResponseWriter, r *http.Request, finished bool) {
	if finished && IsFragmentRequest(r) {
		w.Header().Set(HeaderHXRefresh, "true")
	}
}
