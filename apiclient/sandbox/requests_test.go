package sandbox

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Every request to an API route is counted per method and route pattern on
// arrival, whatever it is answered; control API and unknown routes are not.
func TestRequestCounts_PerRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)                                                                      // POST /v1/users, 201
	e.want(e.call("POST", "/v1/users", keyA, map[string]any{"email": "nope"}), 400)        // validation
	e.want(e.call("POST", "/v1/users", "", map[string]any{"email": "a@example.com"}), 401) // no key
	e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/account/wallets", keyA, nil), 200) // a pattern, not a path
	e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/account/wallets", keyB, nil), 403) // another partner's user
	e.want(e.call("GET", "/v1/no-such-route", keyA, nil), 404)                             // unknown: not counted
	e.want(e.call("GET", "/_sandbox/clock", "", nil), 200)                                 // control: not counted
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"route": "/v1/users", "drop": true}), 201)
	req, _ := http.NewRequest("POST", e.ts.URL+"/v1/users", strings.NewReader(`{"email":"drop@example.com","firstName":"D","lastName":"R"}`))
	req.Header.Set("x-api-key", keyA)
	if res, err := e.ts.Client().Do(req); err == nil { // dropped before it was handled, still counted
		res.Body.Close()
		t.Fatalf("dropped connection answered %d", res.StatusCode)
	}

	counts := []struct {
		method, pattern string
		want            int
	}{
		{"POST", "/v1/users", 4},
		{"post", "/v1/users", 4},
		{"GET", "/v1/users/{userId}/smart-wallets/account/wallets", 2},
		{"GET", "/v1/users/" + u + "/smart-wallets/account/wallets", 0},
		{"GET", "/_sandbox/clock", 0},
		{"POST", "/_sandbox/faults", 0},
		{"DELETE", "/v1/users", 0},
	}
	for _, c := range counts {
		if got := e.s.RequestCount(c.method, c.pattern); got != c.want {
			t.Errorf("RequestCount(%q, %q) = %d, want %d", c.method, c.pattern, got, c.want)
		}
	}

	r := e.want(e.call("GET", "/_sandbox/requests", "", nil), 200)
	want := []any{
		map[string]any{"method": "POST", "route": "/v1/users", "count": 4.0},
		map[string]any{"method": "GET", "route": "/v1/users/{userId}/smart-wallets/account/wallets", "count": 2.0},
	}
	if !reflect.DeepEqual(r.list(), want) {
		t.Errorf("GET /_sandbox/requests = %s", r.raw)
	}

	e.want(e.call("DELETE", "/_sandbox/requests", "", nil), 200)
	if n := e.s.RequestCount("POST", "/v1/users"); n != 0 {
		t.Errorf("after DELETE /_sandbox/requests: %d", n)
	}
	if r := e.want(e.call("GET", "/_sandbox/requests", "", nil), 200); r.list() == nil || len(r.list()) != 0 {
		t.Errorf("after reset: %s", r.raw)
	}

	e.want(e.call("GET", "/v1/smart-wallets/supported-currencies", keyA, nil), 200)
	if n := e.s.RequestCount("GET", "/v1/smart-wallets/supported-currencies"); n != 1 {
		t.Errorf("counting after a reset: %d", n)
	}
	e.s.ResetRequestCounts()
	if n := e.s.RequestCount("GET", "/v1/smart-wallets/supported-currencies"); n != 0 {
		t.Errorf("after ResetRequestCounts: %d", n)
	}
}

// Counting is safe while requests run concurrently (go test -race).
func TestRequestCounts_Concurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				req, _ := http.NewRequest("GET", e.ts.URL+"/v1/smart-wallets/supported-currencies", nil)
				req.Header.Set("x-api-key", keyA)
				res, err := e.ts.Client().Do(req)
				if err != nil {
					errs <- err
					continue
				}
				res.Body.Close()
				if res.StatusCode != 200 {
					errs <- fmt.Errorf("status %d", res.StatusCode)
				}
				_ = e.s.RequestCount("GET", "/v1/smart-wallets/supported-currencies")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := e.s.RequestCount("GET", "/v1/smart-wallets/supported-currencies"); n != workers*each {
		t.Errorf("count %d, want %d", n, workers*each)
	}
}
