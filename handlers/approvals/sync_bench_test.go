package approvals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
	"partneradmin/store/pgtest"
	"partneradmin/web/webtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// countingAPI records the most ListProposals calls in flight at once.
type countingAPI struct {
	api      *apiclient.Client
	inFlight atomic.Int64
	mu       sync.Mutex
	max      int64
}

func (c *countingAPI) ListProposals(ctx context.Context, userID, walletID string) ([]apiclient.Proposal, error) {
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	c.mu.Lock()
	if n > c.max {
		c.max = n
	}
	c.mu.Unlock()
	return c.api.ListProposals(ctx, userID, walletID)
}

func control(tb testing.TB, base, method, path string, body any) []byte {
	tb.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		tb.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out.String())
	}
	return out.Bytes()
}

// mirrorOf builds a sandbox with wallets users × 6 currencies, mirrored in a
// fresh store.
func mirrorOf(tb testing.TB, users int) (*store.Store, *apiclient.Client, string) {
	tb.Helper()
	ctx := context.Background()
	sb, err := sandbox.New(sandbox.Options{Control: true, APIKeys: []string{"sbx_bench"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(sb.Close)
	srv := httptest.NewServer(sb)
	tb.Cleanup(srv.Close)
	api, err := apiclient.New(srv.URL, "sbx_bench", apiclient.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}))
	if err != nil {
		tb.Fatal(err)
	}
	pool, err := store.Open(ctx, webtest.MigratedDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	st := store.New(pool)
	coins := []string{"USDB", "CNGN", "CADC", "EURe", "GBPe", "MEXe"}
	for i := range users {
		u, err := api.CreateUser(ctx, apiclient.CreateUserRequest{Email: fmt.Sprintf("bench%d@example.com", i), FirstName: "Bench", LastName: strconv.Itoa(i)})
		if err != nil {
			tb.Fatal(err)
		}
		e, err := st.UpsertEmployee(ctx, store.Employee{ServiceUserID: u.ServiceUserID, Email: u.Email, FirstName: "Bench", LastName: strconv.Itoa(i), InviteState: store.InviteLinked})
		if err != nil {
			tb.Fatal(err)
		}
		for j, c := range coins {
			owner := fmt.Sprintf("0x%040x", i*10+j+1)
			var w struct {
				Data apiclient.Wallet `json:"data"`
			}
			if err := json.Unmarshal(control(tb, srv.URL, http.MethodPost, "/_sandbox/users/"+u.ServiceUserID+"/legacy-wallets",
				map[string]any{"currency": c, "userOwnerAddress": owner}), &w); err != nil {
				tb.Fatal(err)
			}
			if err := st.UpsertWallet(ctx, store.Wallet{ID: w.Data.ID, EmployeeID: e.ID, Currency: c, OwnerAddress: owner}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return st, api, srv.URL
}

// BenchmarkMirrorRefresh reads the proposals of 2,000 wallets with 50 ms of
// injected upstream latency per call. Budget: ≤ 5 s per refresh, never more
// than the configured concurrency in flight.
//
//	go test -run '^$' -bench MirrorRefresh -benchtime 1x ./handlers/approvals/
func BenchmarkMirrorRefresh(b *testing.B) {
	users := 334 // × 6 currencies = 2,004 wallets
	if n, err := strconv.Atoi(os.Getenv("BENCH_USERS")); err == nil && n > 0 {
		users = n
	}
	concurrency := approvals.DefaultSyncConcurrency
	if n, err := strconv.Atoi(os.Getenv("BENCH_CONCURRENCY")); err == nil && n > 0 {
		concurrency = n
	}
	st, api, base := mirrorOf(b, users)
	control(b, base, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET",
		"route": "/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals", "latencyMs": 50})
	counting := &countingAPI{api: api}
	s := &approvals.Syncer{API: counting, Store: st, Concurrency: concurrency, Clock: time.Now}
	b.ResetTimer()
	var total time.Duration
	for range b.N {
		start := time.Now()
		res, err := s.SyncAll(context.Background())
		total += time.Since(start)
		if err != nil || res.Failed != 0 || res.Wallets < 2000 {
			b.Fatalf("sync: %+v %v", res, err)
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/refresh")
	b.ReportMetric(float64(counting.max), "max-in-flight")
	b.ReportMetric(float64(concurrency), "limit")
	if counting.max > int64(concurrency) {
		b.Fatalf("%d calls in flight, limit %d", counting.max, concurrency)
	}
}

// TestSyncNeverExceedsItsConcurrency checks the bound on a small mirror.
func TestSyncNeverExceedsItsConcurrency(t *testing.T) {
	st, api, base := mirrorOf(t, 5)
	control(t, base, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET",
		"route": "/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals", "latencyMs": 20})
	counting := &countingAPI{api: api}
	s := &approvals.Syncer{API: counting, Store: st, Concurrency: 4, Clock: time.Now}
	res, err := s.SyncAll(context.Background())
	if err != nil || res.Wallets != 30 || res.Failed != 0 {
		t.Fatalf("sync: %+v %v", res, err)
	}
	if counting.max > 4 || counting.max < 2 {
		t.Fatalf("max in flight %d, limit 4", counting.max)
	}
}
