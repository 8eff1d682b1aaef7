package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestObserverSeesEveryExchange: each attempt of a retried read is
// reported with the client method's name and the status, never the URL;
// a network failure is reported with status 0.
func TestObserverSeesEveryExchange(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, `{"message":"busy"}`, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"data":{"id":"card-1","status":"ACTIVE"}}`))
	}))
	defer srv.Close()
	var mu sync.Mutex
	var seen []Exchange
	observe := func(_ context.Context, e Exchange) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, e)
	}
	c, err := New(srv.URL, "k", fastRetry(), WithObserver(observe))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCard(context.Background(), "user-secret-id", "card-1"); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0].Op != "GetCard" || seen[0].Status != http.StatusServiceUnavailable || seen[1].Status != http.StatusOK || seen[1].Method != http.MethodGet {
		t.Fatalf("observed %+v", seen)
	}
	for _, e := range seen {
		if strings.Contains(e.Op, "user-secret-id") || e.Duration <= 0 {
			t.Fatalf("exchange %+v", e)
		}
	}

	srv.Close()
	seen = nil
	c, _ = New(srv.URL, "k", WithRetryPolicy(RetryPolicy{MaxAttempts: 1}), WithObserver(observe))
	if _, err := c.GetCard(context.Background(), "u", "card-1"); err == nil {
		t.Fatal("closed server answered")
	}
	if len(seen) != 1 || seen[0].Status != 0 || seen[0].Op != "GetCard" {
		t.Fatalf("network failure observed as %+v", seen)
	}
}
