package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/store/localpg"
)

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startApp runs the app as `go run ./cmd/partner-admin` would, until the
// returned stop function is called.
func startApp(t *testing.T, dataDir, addr string, moreEnv ...string) (stdout string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &syncBuffer{}, &syncBuffer{}
	env := map[string]string{"DATA_DIR": dataDir, "ADDR": addr}
	for i := 0; i+1 < len(moreEnv); i += 2 {
		env[moreEnv[i]] = moreEnv[i+1]
	}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"partner-admin"}, func(k string) string { return env[k] }, out, errOut)
	}()
	deadline := time.After(90 * time.Second)
	for !strings.Contains(out.String(), "listening on") {
		select {
		case err := <-done:
			cancel()
			if errors.Is(err, localpg.ErrNoBinaries) && os.Getenv("CI") != "true" {
				t.Skip("PostgreSQL server binaries not found: apt-get install postgresql")
			}
			t.Fatalf("run ended early: %v\nstdout: %s\nstderr: %s", err, out, errOut)
		case <-deadline:
			cancel()
			t.Fatalf("app not ready\nstderr: %s", errOut)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return out.String(), func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v\nstderr: %s", err, errOut)
			}
		case <-time.After(60 * time.Second):
			t.Error("app did not shut down")
		}
	}
}

func login(t *testing.T, addr, email, password string) int {
	t.Helper()
	code, _ := signIn(t, addr, email, password)
	return code
}

// signIn posts the sign-in form and returns its status and the signed-in
// client, which follows no redirects.
func signIn(t *testing.T, addr, email, password string) (int, *http.Client) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm("http://"+addr+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, c
}

// startPage is where the signed-in client lands on the start page: "" when
// it is shown, else the redirect's target.
func startPage(t *testing.T, c *http.Client, addr string) string {
	t.Helper()
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return ""
	}
	return resp.Header.Get("Location")
}

var printedLogin = regexp.MustCompile(`Sign in as (\S+) with password (\S+)`)

// TestRunPrintsLoginAndReusesDatabase: a fresh data directory gets a first
// owner whose generated password is printed once and works; a second run
// reuses the same cluster and data.
func TestRunPrintsLoginAndReusesDatabase(t *testing.T) {
	dataDir := t.TempDir()
	addr := freeAddr(t)
	out, stop := startApp(t, dataDir, addr)
	m := printedLogin.FindStringSubmatch(out)
	if m == nil {
		stop()
		t.Fatalf("no login printed:\n%s", out)
	}
	if !strings.Contains(out, fmt.Sprintf("running at http://%s", addr)) {
		t.Errorf("no URL printed:\n%s", out)
	}
	if !strings.Contains(out, "this demo keeps it usable") {
		t.Errorf("the demo does not say its printed password stays usable:\n%s", out)
	}
	got, c := signIn(t, addr, m[1], m[2])
	if got != http.StatusSeeOther {
		t.Errorf("first run login: %d", got)
	}
	// The zero-config demo keeps the printed password usable.
	if to := startPage(t, c, addr); to != "" {
		t.Errorf("the demo owner is sent to %q instead of the start page", to)
	}
	stop()

	out, stop = startApp(t, dataDir, addr)
	defer stop()
	if strings.Contains(out, "with password") {
		t.Errorf("second run created another owner:\n%s", out)
	}
	if got := login(t, addr, m[1], m[2]); got != http.StatusSeeOther {
		t.Errorf("second run login with the first run's password: %d", got)
	}
}

func TestConfigErrors(t *testing.T) {
	env := map[string]string{"PARTNER_API_BASE_URL": "https://api.example", "OWNER_EMAIL": "a@b.example"}
	err := run(context.Background(), []string{"partner-admin"}, func(k string) string { return env[k] }, &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "PARTNER_API_KEY") || !strings.Contains(err.Error(), "OWNER_PASSWORD") {
		t.Fatalf("err = %v", err)
	}
}

// TestMetricsListener: with METRICS_ADDR the app serves /metrics and the
// probes there without a session, while /metrics on the main address still
// needs a signed-in owner.
func TestMetricsListener(t *testing.T) {
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	out, stop := startApp(t, t.TempDir(), addr, "METRICS_ADDR", metricsAddr)
	defer stop()
	if !strings.Contains(out, "metrics at http://"+metricsAddr+"/metrics") {
		t.Fatalf("stdout does not name the metrics listener:\n%s", out)
	}
	get := func(u string) (int, string) {
		t.Helper()
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		if _, err := io.Copy(&b, resp.Body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b.String()
	}
	code, body := get("http://" + metricsAddr + "/metrics")
	if code != http.StatusOK || !strings.Contains(body, "partner_admin_db_pool_max_connections") {
		t.Fatalf("metrics listener: %d\n%.500s", code, body)
	}
	if code, body := get("http://" + metricsAddr + "/readyz"); code != http.StatusOK || !strings.Contains(body, `"database":"ok"`) {
		t.Fatalf("readyz on the metrics listener: %d %s", code, body)
	}
	if code, _ := get("http://" + addr + "/metrics"); code != http.StatusSeeOther {
		t.Fatalf("/metrics on the main address without a session: %d", code)
	}
}

// TestRealDatabaseOwnerChangesGeneratedPassword: against a database named by
// DATABASE_URL, the first owner's printed password signs in once, and every
// page then leads to choosing a password of the owner's own.
func TestRealDatabaseOwnerChangesGeneratedPassword(t *testing.T) {
	ctx := t.Context()
	cluster, err := localpg.Start(ctx, localpg.Options{DataDir: t.TempDir(), ForTests: true})
	if errors.Is(err, localpg.ErrNoBinaries) && os.Getenv("CI") != "true" {
		t.Skip("PostgreSQL server binaries not found: apt-get install postgresql")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	if err := cluster.EnsureDatabase(ctx, "owner_first_run"); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	out, stop := startApp(t, t.TempDir(), addr, "DATABASE_URL", cluster.ConnString("owner_first_run"))
	defer stop()
	m := printedLogin.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no login printed:\n%s", out)
	}
	if !strings.Contains(out, "you choose your own password at the first sign-in") {
		t.Errorf("the printed line does not say the password must change:\n%s", out)
	}
	got, c := signIn(t, addr, m[1], m[2])
	if got != http.StatusSeeOther {
		t.Fatalf("login with the printed password: %d", got)
	}
	if to := startPage(t, c, addr); to != "/account/password" {
		t.Errorf("start page after the first sign-in leads to %q, want /account/password", to)
	}
}
