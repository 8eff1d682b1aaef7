package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The quick bench runs end to end: it builds and starts the app as a child,
// seeds, loads every page while deliveries trickle in, and prints every
// row and budget; no delivery is lost or processed twice, and the payroll
// run's proposals are all created. Nothing about time is asserted.
//
// Not in parallel with the two-replica run: each is CPU-bound (a build,
// a cluster, load at full speed) and they only slowed each other.
func TestQuickBenchRunsAndPrintsEveryRow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the app with PostgreSQL: not in -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cfg := quickConfig()
	var out, progress bytes.Buffer
	rep, err := run(ctx, cfg, &out, &progress)
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, progress.String())
	}
	t.Logf("progress:\n%s\ntable:\n%s", progress.String(), out.String())
	table := out.String()
	if table != rep.Table {
		t.Error("what was printed is not the report's table")
	}
	if len(rep.Sizes) != 1 || rep.Sizes[0].Employees != 1000 {
		t.Fatalf("sizes measured: %+v", rep.Sizes)
	}
	s := rep.Sizes[0]
	if len(s.Pages) != 13 {
		t.Errorf("%d pages measured, want 13", len(s.Pages))
	}
	for _, p := range s.Pages {
		if !strings.Contains(table, "| "+p.Name+" (`") {
			t.Errorf("no row for %s", p.Name)
		}
		if len(p.App) != cfg.Rounds || len(p.Bare) != cfg.Rounds {
			t.Errorf("%s: %d app and %d bare rounds, want %d", p.Name, len(p.App), len(p.Bare), cfg.Rounds)
		}
		for _, r := range append(p.App, p.Bare...) {
			if r.Requests == 0 || r.P50 <= 0 || r.P99 < r.P50 {
				t.Errorf("%s: an empty or inconsistent round %+v", p.Name, r)
			}
		}
		if p.Bytes == 0 {
			t.Errorf("%s: captured no bytes", p.Name)
		}
	}
	if s.employeesInsert() <= 0 || s.Cards != s.Wallets*cfg.CardsPerWallet || s.Wallets != 200 {
		t.Errorf("seed: %+v", s.Seed)
	}
	if tr := s.Trickle; tr.Sent == 0 || tr.Lost != 0 || tr.ProcessedTwo != 0 || tr.Non2xx != 0 || tr.Errors != 0 {
		t.Errorf("deliveries while the pages were measured: %+v", tr)
	}
	if s.SyncReads == 0 || s.APIReads < s.SyncReads || s.ReadsFor <= 0 {
		t.Errorf("API reads: %d of proposals, %d in all, over %s", s.SyncReads, s.APIReads, s.ReadsFor)
	}
	for _, row := range []string{"webhook receiver: verified deliveries", "lost / processed twice", "payroll run of 100 rows",
		"proposals created against the sandbox", "file check: payroll file of 500 rows", "### Budgets", "every page's p99",
		"approvals sync: upstream reads", "peak RSS of the app", "the whole run"} {
		if !strings.Contains(table, row) {
			t.Errorf("no %q row", row)
		}
	}
	w := rep.Webhooks
	if w == nil {
		t.Fatal("no webhook receiver run")
	}
	if w.Lost != 0 || w.ProcessedTwo != 0 || w.Non2xx != 0 || w.Errors != 0 {
		t.Errorf("webhooks: lost %d, processed twice %d, non-2xx %d, errors %d", w.Lost, w.ProcessedTwo, w.Non2xx, w.Errors)
	}
	if w.Sent == 0 || w.Stored != w.Unique || w.Processed != w.Unique || w.Unique != w.Sent-w.Sent/5 {
		t.Errorf("webhooks: %d unique sent, %d stored, %d processed", w.Unique, w.Stored, w.Processed)
	}
	// The proposals made before the bench stopped looking, at most one a
	// row (how many is a figure, not asserted).
	if p := rep.Payroll; p == nil || p.Rows != cfg.PayrollRows || p.Valid != cfg.PayrollRows || p.Proposals < 1 || p.Proposals > p.Valid {
		t.Errorf("payroll run: %+v", p)
	}
	if f := rep.Files; f == nil || f.Payroll[0].Rows != 50 || f.Payroll[1].Rows != 500 || f.Bulk[1].Rows != 500 || f.Bulk[0].Took <= 0 {
		t.Errorf("file checks: %+v", f)
	}
	if rep.PeakRSSKiB <= 0 {
		t.Error("no peak RSS")
	}
}

// With two replicas behind the round-robin balancer, the quick bench's
// pages and deliveries are shared by both processes, the owner's session
// works on each and a sign-out ends it on each, deliveries are stored and
// processed once, and the periodic jobs run once across them.
func TestQuickBenchWithTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the app with PostgreSQL: not in -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cfg := quickConfig()
	cfg.Replicas, cfg.Only = 2, []string{"employees, first page", "approval queue", "webhook"}
	var out, progress bytes.Buffer
	rep, err := run(ctx, cfg, &out, &progress)
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, progress.String())
	}
	t.Logf("progress:\n%s\ntable:\n%s", progress.String(), out.String())
	rc := rep.Replicas
	if rc == nil || len(rc.Served) != 2 || rc.Served[0] == 0 || rc.Served[1] == 0 || !rc.SessionEverywhere || !rc.SignedOutEverywhere {
		t.Fatalf("replica checks: %+v", rc)
	}
	if rc.SyncRuns == 0 || rc.SyncRuns > rc.SyncPeriods+1 {
		t.Errorf("approvals_sync ran %d times in %d periods", rc.SyncRuns, rc.SyncPeriods)
	}
	if len(rep.Sizes) != 1 || len(rep.Sizes[0].Pages) != 2 || len(rep.ReplicaRSSKiB) != 2 {
		t.Errorf("%d sizes, %d replicas' RSS", len(rep.Sizes), len(rep.ReplicaRSSKiB))
	}
	if rep.Payroll != nil || rep.Files != nil {
		t.Error("--only webhook measured the payroll run or the files")
	}
	w := rep.Webhooks
	if w == nil {
		t.Fatal("no webhook receiver run")
	}
	if w.Sent == 0 || w.Lost != 0 || w.ProcessedTwo != 0 || w.Non2xx != 0 || w.Errors != 0 || w.Processed != w.Unique {
		t.Errorf("webhooks through two replicas: %+v", w)
	}
	for _, row := range []string{"requests the balancer sent to each replica", "the sign-in page on each", "peak RSS of each replica"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("no %q row", row)
		}
	}
}

// The bare handler answers each captured URI, query included, with its
// bytes and content type, and nothing else.
func TestBareHandlerServesTheCapturedBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.html"), []byte("<p>list</p>"), 0o600); err != nil {
		t.Fatal(err)
	}
	list := `{"pages":[{"uri":"/employees?q=person0421","file":"a.html","contentType":"text/html; charset=utf-8"}]}`
	if err := os.WriteFile(filepath.Join(dir, "pages.json"), []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := loadBare(filepath.Join(dir, "pages.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for uri, want := range map[string]int{"/employees?q=person0421": 200, "/employees": 404, "/employees?q=other": 404} {
		resp, err := http.Get(srv.URL + uri)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", uri, resp.StatusCode, want)
		}
		if want == 200 && (string(body) != "<p>list</p>" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8") {
			t.Errorf("%s: %q %q", uri, body, resp.Header.Get("Content-Type"))
		}
	}
	if err := serveBare(context.Background(), filepath.Join(dir, "pages.json"), "0.0.0.0:0", io.Discard); err == nil {
		t.Error("the bare handler listened on a non-loopback address")
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 21900: "21,900", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseScale(t *testing.T) {
	t.Parallel()
	got, err := parseScale("1000, 10_000,100000")
	if err != nil || !slices.Equal(got, []int{1000, 10000, 100000}) {
		t.Errorf("parseScale: %v, %v", got, err)
	}
	for _, bad := range []string{"", "10000,1000", "1000,1000", "50", "ten", "1000,,10000"} {
		if _, err := parseScale(bad); err == nil {
			t.Errorf("parseScale(%q) accepted", bad)
		}
	}
}

// The budgets compare the largest size with the one a tenth of it and
// mark each PASS or MISS by its figure; what was not measured is neither.
func TestBudgets(t *testing.T) {
	t.Parallel()
	round := func(p50, p99 time.Duration) []roundResult { return []roundResult{{Requests: 10, P50: p50, P99: p99}} }
	size := func(n int, p50, p99 time.Duration, syncReads int, insert time.Duration) sizeReport {
		return sizeReport{Employees: n, Wallets: n / 5, ReadsFor: time.Minute, SyncReads: syncReads, APIReads: syncReads,
			Seed:  []seedStep{{What: "employees", Took: insert}},
			Pages: []pageStats{{page: page{Name: "employees, first page", URI: "/employees", List: true}, App: round(p50, p99), Bare: round(p50, p99)}}}
	}
	rep := &report{Config: fullConfig(), Took: 10 * time.Minute, PeakRSSKiB: 100 << 10,
		Sizes: []sizeReport{size(10000, 4*time.Millisecond, 20*time.Millisecond, 600, time.Second),
			size(100000, 6*time.Millisecond, 60*time.Millisecond, 1000, 15*time.Second)},
		Webhooks: &webhookResult{Sent: 30000, Unique: 24000, Processed: 24000, Elapsed: 10 * time.Second, Drain: 2 * time.Second, AckP99: 30 * time.Millisecond},
		Payroll:  &payrollResult{Want: 10000, Rows: 5000, Valid: 5000, Proposals: 5000, Check: time.Second, Send: 10 * time.Second, State: "sent"}}
	table := rep.format()
	for budget, mark := range map[string]string{
		"every page's p99":                   "**MISS**", // 60 ms
		"employees, first page: p50":         "**MISS**", // 1.5 ×
		"≥ 2,000 verified deliveries":        "PASS",     // 3,000/s
		"ack p99":                            "PASS",
		"≥ 1,000 processed a second":         "PASS", // 2,000/s
		"0 lost, 0 processed twice":          "PASS",
		"payroll run of 10,000 rows checked": "**MISS**", // only 5,000 rows
		"≥ 100 proposals created":            "PASS",
		"approvals sync":                     "PASS",     // 1.67 ×
		"seed: inserting 100,000":            "**MISS**", // 15 ×
		"file checks":                        "not measured",
		"peak RSS":                           "PASS",
		"the whole run":                      "PASS",
	} {
		var line string
		for l := range strings.SplitSeq(table, "\n") {
			if strings.HasPrefix(l, "| ") && strings.Contains(l, budget) && strings.Contains(l, " | ") && strings.HasSuffix(l, " |") &&
				strings.Count(l, " | ") == 2 {
				line = l
			}
		}
		if !strings.HasSuffix(line, "| "+mark+" |") {
			t.Errorf("%s: want %s, got %q", budget, mark, line)
		}
	}
}
