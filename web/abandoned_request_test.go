package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"partneradmin/handlers"
)

// recordedLogs keeps every record logged, with its attributes.
type recordedLogs struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *recordedLogs) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordedLogs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *recordedLogs) WithGroup(string) slog.Handler            { return l }
func (l *recordedLogs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

func (l *recordedLogs) all() []slog.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]slog.Record(nil), l.records...)
}

func attr(r slog.Record, key string) slog.Value {
	var v slog.Value
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value
			return false
		}
		return true
	})
	return v
}

// A request whose client goes away while the handler waits on something
// (here, as a query canceled with the request's context) is logged as
// abandoned: status 499 at info, and no error record.
func TestRequestAbandonedByTheClientIsLoggedAs499(t *testing.T) {
	t.Parallel()
	logs := &recordedLogs{}
	logger := NewLogger(logs)
	base := &handlers.Base{Logger: logger}
	arrived := make(chan struct{})
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		base.ServerError(w, r, fmt.Errorf("store: list employees: %w", r.Context().Err()))
	})
	srv := httptest.NewServer(requestID(accessLog(logger)(recoverer(base)(page))))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/employees", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := srv.Client().Do(req); !errors.Is(err, context.Canceled) {
		if err == nil {
			resp.Body.Close()
		}
		t.Fatalf("the client's request ended with %v, want it canceled", err)
	}

	var access slog.Record
	deadline := time.Now().Add(10 * time.Second)
	for access.Message == "" {
		for _, r := range logs.all() {
			if r.Message == "request" {
				access = r
			}
		}
		if access.Message == "" && time.Now().After(deadline) {
			t.Fatal("no access log line for the abandoned request")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := attr(access, "status").Int64(); got != handlers.StatusClientClosedRequest {
		t.Errorf("access log status %d, want 499", got)
	}
	abandoned := false
	for _, r := range logs.all() {
		if r.Level >= slog.LevelError {
			t.Errorf("logged at %s: %s (err %v)", r.Level, r.Message, attr(r, "err"))
		}
		if r.Message == "request abandoned by the client" && r.Level == slog.LevelInfo {
			abandoned = true
		}
	}
	if !abandoned {
		t.Error("no info record says the client abandoned the request")
	}
}
