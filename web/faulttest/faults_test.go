package faulttest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/store/localpg"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

// ownCluster starts a PostgreSQL server of the test's own (the shared test
// cluster must not be stopped), with a migrated database.
func ownCluster(t *testing.T) (*localpg.Cluster, localpg.Options, string) {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		// The server runs as another user, who must pass through these
		// 0700 directories.
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o711); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts := localpg.Options{DataDir: filepath.Join(dir, "data"), ForTests: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	ctx := context.Background()
	cluster, err := localpg.Start(ctx, opts)
	if errors.Is(err, localpg.ErrNoBinaries) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.EnsureDatabase(ctx, "faults"); err != nil {
		t.Fatal(err)
	}
	dsn := cluster.ConnString("faults")
	pool, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	err = store.Migrate(ctx, pool, slog.New(slog.DiscardHandler))
	pool.Close()
	if err != nil {
		t.Fatal(err)
	}
	opts.Port = cluster.Port() // a restart comes back where the app looks
	return cluster, opts, dsn
}

// TestDatabaseStoppedAndStartedMidRun: PostgreSQL stops under a running
// app. Meanwhile pages answer 503 with the app's own page (no stack, no
// error text), the webhook receiver answers 503 (the sender retries),
// /readyz says not ready and /healthz stays up. Once PostgreSQL is back the
// same app, not restarted, serves the same signed-in session, stores and
// processes deliveries, and is ready again.
func TestDatabaseStoppedAndStartedMidRun(t *testing.T) {
	t.Parallel()
	cluster, opts, dsn := ownCluster(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = cluster.Stop(ctx)
	})
	env := webtest.New(t, webtest.Options{DatabaseURL: dsn, StartWorkers: true, EncryptionKey: web.Secret(strings.Repeat("3c", 32))})
	secret := webtest.AdoptWebhookSecret(t, env)
	owner, _ := env.SignedIn(store.RoleOwner)
	if s := webtest.Status(t, env, owner, "/staff"); s != http.StatusOK {
		t.Fatalf("before: %d", s)
	}

	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cluster.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"/staff", "/", "/events"} {
		resp := env.Get(owner, path)
		body := webtest.ReadBody(t, resp)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "Temporarily unavailable") ||
			!strings.Contains(body, "cannot reach its database") {
			t.Fatalf("%s with the database down: %d\n%s", path, resp.StatusCode, body)
		}
		for _, leak := range []string{"goroutine", "pgconn", "SQLSTATE", "connection refused", "dial"} {
			if strings.Contains(body, leak) {
				t.Fatalf("%s shows %q", path, leak)
			}
		}
		if resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: no Retry-After", path)
		}
	}
	body := webtest.EventBody("wh-fault-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-fault", "amount": "3"})
	if code := webtest.MustDeliver(t, env, secret, "wh-fault-1", body); code != http.StatusServiceUnavailable {
		t.Fatalf("webhook with the database down: %d", code)
	}
	resp, err := http.Get(env.URL("/readyz"))
	if err != nil {
		t.Fatal(err)
	}
	var ready map[string]any
	if err := json.Unmarshal([]byte(webtest.ReadBody(t, resp)), &ready); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || ready["database"] != "unavailable" || ready["upstream"] != "ok" {
		t.Fatalf("readyz with the database down: %d %v", resp.StatusCode, ready)
	}
	if resp, err := http.Get(env.URL("/healthz")); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz with the database down: %v %v", resp, err)
	} else {
		webtest.ReadBody(t, resp)
	}
	if strings.Contains(env.Logs.String(), "panic") {
		t.Fatal("a panic was logged")
	}

	startCtx, cancelStart := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancelStart()
	restarted, err := localpg.Start(startCtx, opts)
	if err != nil {
		t.Fatal(err)
	}
	cluster = restarted
	began := time.Now()
	webtest.WaitFor(t, "the signed-in page again", 60*time.Second, func() bool { return webtest.Status(t, env, owner, "/staff") == http.StatusOK })
	pageBack := time.Since(began)
	webtest.WaitFor(t, "ready again", 30*time.Second, func() bool {
		resp, err := http.Get(env.URL("/readyz"))
		if err != nil {
			return false
		}
		webtest.ReadBody(t, resp)
		return resp.StatusCode == http.StatusOK
	})

	// The sender's retry is stored and processed by the same workers.
	if code := webtest.MustDeliver(t, env, secret, "wh-fault-1", body); code != http.StatusOK {
		t.Fatalf("webhook retried after the restart: %d", code)
	}
	webtest.WaitFor(t, "processing after the restart", 60*time.Second, func() bool {
		return webtest.EventByWebhookID(t, env, "wh-fault-1").State == store.EventProcessed
	})

	// A state-changing form works again too.
	staff := env.CreateStaff(store.RoleSupport)
	resp = env.PostForm(owner, "/staff/"+strconv.FormatInt(staff.ID, 10)+"/disable", nil)
	webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable after the restart: %d", resp.StatusCode)
	}
	t.Logf("database back: signed-in page served again %s after the server accepted connections, deliveries processed after %s",
		pageBack.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}
