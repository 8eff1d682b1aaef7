package deploy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store/pgtest"
	"partneradmin/web/webtest"
)

// startSandbox serves a fresh sandbox of the Partner API over HTTP, as the
// real API's stand-in, and returns its URL and API key.
func startSandbox(t *testing.T) (baseURL, apiKey string) {
	t.Helper()
	apiKey = "pk_test_deploy"
	sb, err := sandbox.New(sandbox.Options{APIKeys: []string{apiKey}, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	return srv.URL, apiKey
}

// replica is one partner-admin process.
type replica struct {
	cmd    *exec.Cmd
	addr   string // where it listens, from its "listening on" line
	stderr *lockedBuffer
	done   chan error
	// sandbox gets the in-process sandbox's URL when the replica starts
	// one (no PARTNER_API_BASE_URL): it prints it after listening.
	sandbox chan string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// listenTimeout bounds a replica's start, migrations of an empty database
// included, on a machine shared with other test binaries.
const listenTimeout = 5 * time.Minute

// startReplica starts the binary with env (and nothing of the test's own
// environment but PATH), and returns once it listens. It may run on any
// goroutine: it reports failures instead of failing t.
func startReplica(t *testing.T, bin string, env map[string]string) (*replica, error) {
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	r := &replica{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan error, 1), sandbox: make(chan string, 1)}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on http://"); ok {
				found <- a
			}
			if rest, ok := strings.CutPrefix(sc.Text(), "Partner API sandbox at "); ok && len(strings.Fields(rest)) > 0 {
				r.sandbox <- strings.Fields(rest)[0]
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() { r.stop(t) })
	select {
	case r.addr = <-found:
		return r, nil
	case err := <-r.done:
		r.done <- err
		return nil, fmt.Errorf("partner-admin exited before listening (%v):\n%s", err, r.stderr)
	case <-time.After(listenTimeout):
		return nil, fmt.Errorf("partner-admin does not listen after %s:\n%s", listenTimeout, r.stderr)
	}
}

// stop sends SIGTERM, as the kubelet does, and waits for a clean exit.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("partner-admin after SIGTERM: %v\n%s", err, r.stderr)
		}
	case <-time.After(time.Minute):
		_ = r.cmd.Process.Kill()
		t.Errorf("partner-admin did not stop within a minute of SIGTERM")
	}
}

// getStatus is the status of a GET at url (0 when it fails).
func getStatus(url string) int {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestThreeReplicasStartTogether starts three replicas of the binary at
// once on an empty database, as a Deployment's rollout does: the
// migrations are applied once (store.Migrate's advisory lock), the first
// owner is created once, and all three answer the manifests' readiness
// and liveness probes.
func TestThreeReplicasStartTogether(t *testing.T) {
	t.Parallel()
	m := loadManifests(t)
	c := m.Deployment.Spec.Template.Spec.Containers[0]
	bin := buildBinary(t)
	dsn := pgtest.NewDatabase(t)
	apiURL, apiKey := startSandbox(t)
	env := map[string]string{
		"DATABASE_URL": dsn, "PARTNER_API_BASE_URL": apiURL, "PARTNER_API_KEY": apiKey,
		"ENCRYPTION_KEY": strings.Repeat("3c", 32), "OWNER_EMAIL": "owner@partner.example", "OWNER_PASSWORD": "three replicas at once",
		"ADDR": "127.0.0.1:0", "PUBLIC_ORIGIN": "http://127.0.0.1", "DATA_DIR": t.TempDir(), "TRUSTED_PROXIES": "127.0.0.1",
	}
	replicas := make([]*replica, 3)
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { replicas[i], errs[i] = startReplica(t, bin, env) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, r := range replicas {
		for _, p := range []string{c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path} {
			webtest.WaitFor(t, fmt.Sprintf("replica %d: 200 on %s", i+1, p), 30*time.Second, func() bool {
				return getStatus("http://"+r.addr+p) == http.StatusOK
			})
		}
	}

	// Each migration was applied by one replica: the logs of all three
	// name each version once, and goose recorded each once.
	files, err := filepath.Glob("../migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found (%v)", err)
	}
	applied := map[string]int{}
	for _, r := range replicas {
		for line := range strings.Lines(r.stderr.String()) {
			if strings.Contains(line, `msg="migration applied"`) {
				_, v, _ := strings.Cut(line, " version=")
				v, _, _ = strings.Cut(v, " ")
				applied[v]++
			}
		}
	}
	if len(applied) != len(files) {
		t.Errorf("the replicas' logs name %d migrations applied, want the %d of migrations/", len(applied), len(files))
	}
	for v, n := range applied {
		if n != 1 {
			t.Errorf("migration %s applied %d times", v, n)
		}
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var twice, owners int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT version_id FROM goose_db_version GROUP BY 1 HAVING count(*) > 1) v`).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if twice != 0 {
		t.Errorf("goose recorded %d versions more than once", twice)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM staff WHERE email = $1`, env["OWNER_EMAIL"]).Scan(&owners); err != nil {
		t.Fatal(err)
	}
	if owners != 1 {
		t.Errorf("%d first owners created", owners)
	}
}
