package nginxtest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"partneradmin/web/nginxtest"
)

// nginx sends requests to the upstreams in turn, appends the client's
// address to X-Forwarded-For, keeps the Host, and counts what each
// upstream was sent.
func TestRoundRobinAndForwardedFor(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	upstream := func(name string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, name+" "+r.Host+" "+r.Header.Get("X-Forwarded-For"))
			mu.Unlock()
			_, _ = io.WriteString(w, name)
		}))
		t.Cleanup(s.Close)
		return s
	}
	a, b := upstream("a"), upstream("b")
	lb := nginxtest.Start(t, a.Listener.Addr().String(), b.Listener.Addr().String())
	for range 4 {
		req, err := http.NewRequest(http.MethodGet, lb.URL+"/x", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", "203.0.113.9")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("through nginx: %d\n%s", resp.StatusCode, lb.ErrorLog())
		}
	}
	host := strings.TrimPrefix(lb.URL, "http://")
	want := []string{"a " + host + " 203.0.113.9, 127.0.0.1", "b " + host + " 203.0.113.9, 127.0.0.1"}
	mu.Lock()
	got := slices.Clone(seen)
	mu.Unlock()
	slices.Sort(got)
	if len(got) != 4 || got[0] != want[0] || got[1] != want[0] || got[2] != want[1] || got[3] != want[1] {
		t.Fatalf("upstreams saw %q, want each of %q twice", got, want)
	}
	served, err := lb.Served()
	if err != nil || !slices.Equal(served, []int64{2, 2}) {
		t.Fatalf("served %v (%v), want [2 2]", served, err)
	}
	if err := lb.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(lb.URL + "/x"); err == nil {
		t.Fatal("nginx still answers after Stop")
	}
}
