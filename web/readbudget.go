package web

import (
	"net/http"
	"time"

	"partneradmin/apiclient"
)

// pageReadBudget is how long one page may spend reading the Partner API,
// all its reads and their retries together. The server's write timeout is
// far longer; past the budget a page shows what it knows and says the API
// did not answer, instead of leaving the browser waiting.
const pageReadBudget = 4 * time.Second

// readBudget gives every page request (GET, HEAD) one deadline for its
// upstream reads. Posted forms are not bounded by it: their writes have
// their own timeout and their read-backs must not be cut short.
func readBudget(budget time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				r = r.WithContext(apiclient.WithReadDeadline(r.Context(), time.Now().Add(budget)))
			}
			next.ServeHTTP(w, r)
		})
	}
}
