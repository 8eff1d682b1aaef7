package sandbox

import (
	"sort"
	"strings"
	"sync"
)

// requestCounts counts the requests that reached each API route, so tests
// can count upstream calls. It is not part of the state: not exported,
// imported, persisted or reset by /_sandbox/reset.
type requestCounts struct {
	mu sync.Mutex
	n  map[routeKey]int
}

type routeKey struct{ method, route string }

func (rc *requestCounts) add(method, route string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.n == nil {
		rc.n = map[routeKey]int{}
	}
	rc.n[routeKey{method, route}]++
}

// RequestCount is the number of requests to the API route with this method
// and pattern ("POST", "/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals")
// since the start or the last reset. Every request that matched the route
// counts, whatever it was answered, counted on arrival: before authentication,
// validation and injected faults (a dropped or faulted request counts).
// Control API requests are not counted.
func (s *Server) RequestCount(method, pattern string) int {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	return s.requests.n[routeKey{strings.ToUpper(method), pattern}]
}

// ResetRequestCounts sets every request count back to zero.
func (s *Server) ResetRequestCounts() {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	s.requests.n = nil
}

// ctlRequests implements GET /_sandbox/requests: the counts, sorted by route
// then method.
func (c *call) ctlRequests() (any, error) {
	rc := &c.s.requests
	rc.mu.Lock()
	keys := make([]routeKey, 0, len(rc.n))
	for k := range rc.n {
		keys = append(keys, k)
	}
	out := make([]any, 0, len(keys))
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].route != keys[j].route {
			return keys[i].route < keys[j].route
		}
		return keys[i].method < keys[j].method
	})
	for _, k := range keys {
		out = append(out, map[string]any{"method": k.method, "route": k.route, "count": rc.n[k]})
	}
	rc.mu.Unlock()
	return map[string]any{"data": out}, nil
}

// ctlResetRequests implements DELETE /_sandbox/requests.
func (c *call) ctlResetRequests() (any, error) {
	c.s.ResetRequestCounts()
	return map[string]any{"success": true}, nil
}
