package nginxtest_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/handlers/webhooks"
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
	// nginx writes a request's access log line after its answer has gone
	// out: wait for the fourth line.
	var served []int64
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		served, err = lb.Served()
		if err != nil || served[0]+served[1] >= 4 || time.Now().After(deadline) {
			break
		}
	}
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

// A request a replica could not take goes to the next one: a GET, and a
// POST never received (the connection refused). A POST the replica
// received and then dropped without an answer is sent again only when it
// is a webhook delivery (stored once by its id); any other is answered
// 502, for it may have been acted on.
func TestNextReplicaWhenOneGoesAway(t *testing.T) {
	// refused: a port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	ln.Close()
	// dropping: reads the request, then closes the connection.
	dropping := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(dropping.Close)
	var mu sync.Mutex
	var took []string
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		took = append(took, r.Method+" "+r.URL.Path)
		mu.Unlock()
	}))
	t.Cleanup(live.Close)

	status := func(lb *nginxtest.Server, method, path string) int {
		t.Helper()
		req, err := http.NewRequest(method, lb.URL+path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// Each request meets the failing replica first or second: nginx's
	// round robin, four times over.
	gone := nginxtest.Start(t, refused, live.Listener.Addr().String())
	for range 4 {
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			if s := status(gone, m, "/x"); s != http.StatusOK {
				t.Fatalf("%s with one replica refusing connections: %d\n%s", m, s, gone.ErrorLog())
			}
		}
	}
	drop := nginxtest.Start(t, dropping.Listener.Addr().String(), live.Listener.Addr().String())
	var form502 int
	for range 4 {
		if s := status(drop, http.MethodGet, "/x"); s != http.StatusOK {
			t.Fatalf("GET with one replica dropping requests: %d\n%s", s, drop.ErrorLog())
		}
		if s := status(drop, http.MethodPost, webhooks.ReceiverPath); s != http.StatusOK {
			t.Fatalf("webhook delivery with one replica dropping requests: %d\n%s", s, drop.ErrorLog())
		}
		switch s := status(drop, http.MethodPost, "/x"); s {
		case http.StatusOK:
		case http.StatusBadGateway:
			form502++
		default:
			t.Fatalf("POST /x with one replica dropping requests: %d", s)
		}
	}
	if form502 == 0 {
		t.Fatal("a POST the dropping replica received was sent again to another")
	}
}
