package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The quick bench runs end to end: it builds and starts the app as a child,
// seeds, loads every page, and prints every row; no delivery is lost or
// processed twice. Nothing about time is asserted.
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
	if len(rep.Pages) != 13 {
		t.Errorf("%d pages measured, want 13", len(rep.Pages))
	}
	for _, p := range rep.Pages {
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
	for _, row := range []string{"webhook receiver", "lost / processed twice", "PostgreSQL commit ceiling",
		"0 ms injected", "50 ms injected", "peak RSS of the app"} {
		if !strings.Contains(table, row) {
			t.Errorf("no %q row", row)
		}
	}
	w := rep.Webhooks
	if w.Lost != 0 || w.ProcessedTwo != 0 || w.Non2xx != 0 || w.Errors != 0 {
		t.Errorf("webhooks: lost %d, processed twice %d, non-2xx %d, errors %d", w.Lost, w.ProcessedTwo, w.Non2xx, w.Errors)
	}
	if w.Sent == 0 || w.Stored != w.Unique || w.Processed != w.Unique || w.Unique != w.Sent-w.Sent/5 {
		t.Errorf("webhooks: %d unique sent, %d stored, %d processed", w.Unique, w.Stored, w.Processed)
	}
	if rep.CeilingTPS <= 0 {
		t.Error("no commit ceiling")
	}
	if len(rep.Mirror) != 2 {
		t.Fatalf("%d mirror refreshes, want 2", len(rep.Mirror))
	}
	for _, m := range rep.Mirror {
		if m.Wallets < cfg.Wallets || len(m.Took) != cfg.MirrorRounds {
			t.Errorf("mirror refresh at %d ms: %d wallets read in %d rounds", m.LatencyMs, m.Wallets, len(m.Took))
		}
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
	if len(rep.Pages) != 2 || len(rep.ReplicaRSSKiB) != 2 {
		t.Errorf("%d pages, %d replicas' RSS", len(rep.Pages), len(rep.ReplicaRSSKiB))
	}
	w := rep.Webhooks
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
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 21900: "21,900", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
