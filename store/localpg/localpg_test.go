package localpg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// start starts a cluster in dir, or skips (fails under CI=true) when this
// machine has no PostgreSQL. The cluster is stopped at cleanup.
func start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, nil))
	}
	c, err := Start(t.Context(), opts)
	if errors.Is(err, ErrNoBinaries) {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Stop(ctx); err != nil && !c.hasExited() {
			t.Errorf("stop: %v", err)
		}
	})
	return c
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// query runs sql on database db of c over the connection the package
// itself uses, and returns the rows of all its statements as text (NULL as
// "").
func query(t testing.TB, c *Cluster, db, sql string) [][]string {
	t.Helper()
	conn, err := connect(t.Context(), c.addr(), c.password, db)
	if err != nil {
		t.Fatalf("connect to %s: %v", db, err)
	}
	defer conn.Close(t.Context())
	results, err := conn.Exec(t.Context(), sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var rows [][]string
	for _, r := range results {
		for _, values := range r.Rows {
			row := make([]string, len(values))
			for i, v := range values {
				row[i] = string(v)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func TestStartConnectStop(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	c := start(t, Options{DataDir: dataDir, ForTests: true})

	if c.Timings().InitDB == 0 || c.Timings().Start == 0 {
		t.Errorf("timings = %+v, want both measured for a new cluster", c.Timings())
	}
	want := fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/app?sslmode=disable", c.password, c.Port())
	if got := c.ConnString("app"); got != want {
		t.Errorf("ConnString = %q, want %q", got, want)
	}

	// EnsureDatabase is idempotent, and pgx accepts ConnString.
	for range 2 {
		if err := c.EnsureDatabase(t.Context(), "app"); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(t.Context(), c.ConnString("app"))
	if err != nil {
		t.Fatal(err)
	}
	var db, fsync, maxConns string
	err = conn.QueryRow(t.Context(), "SELECT current_database(), current_setting('fsync'), current_setting('max_connections')").Scan(&db, &fsync, &maxConns)
	conn.Close(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if db != "app" || fsync != "off" || maxConns != "200" {
		t.Errorf("database %q fsync %q max_connections %q, want app, off, 200", db, fsync, maxConns)
	}

	if err := c.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(t.Context()); err != nil {
		t.Errorf("second Stop = %v, want the first result (nil)", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid after Stop: %v, want it removed by a clean shutdown", err)
	}
	if nc, err := net.DialTimeout("tcp", c.addr(), time.Second); err == nil {
		nc.Close()
		t.Errorf("port %d still accepts connections after Stop", c.Port())
	}
}

func TestEnsureDatabaseConcurrently(t *testing.T) {
	t.Parallel()
	c := start(t, Options{DataDir: filepath.Join(t.TempDir(), "data"), ForTests: true})

	// Several processes may start against the same cluster at once, and
	// a name is quoted, not pasted into the statement.
	names := []string{"shared", `we"ird; DROP DATABASE postgres`}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(names))
	for range 8 {
		for _, name := range names {
			wg.Go(func() { errs <- c.EnsureDatabase(t.Context(), name) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("EnsureDatabase: %v", err)
		}
	}
	for _, name := range names {
		if rows := query(t, c, name, "SELECT current_database()"); len(rows) != 1 || rows[0][0] != name {
			t.Errorf("connected to database %v, want %q", rows, name)
		}
	}
	rows := query(t, c, "postgres", "SELECT count(*) FROM pg_database WHERE datname = 'postgres'")
	if rows[0][0] != "1" {
		t.Error("the postgres database is gone")
	}
}

func TestRestartKeepsData(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	// Durable settings, as partner-admin's ./.data uses.
	first := start(t, Options{DataDir: dataDir})
	query(t, first, "postgres", "CREATE TABLE employee (email text); INSERT INTO employee VALUES ('ada@example.com')")
	if rows := query(t, first, "postgres", "SHOW fsync"); rows[0][0] != "on" {
		t.Errorf("fsync = %s without ForTests, want on", rows[0][0])
	}
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}

	second := start(t, Options{DataDir: dataDir})
	if second.Timings().InitDB != 0 {
		t.Errorf("second start ran initdb (%v), want the cluster reused", second.Timings().InitDB)
	}
	rows := query(t, second, "postgres", "SELECT email FROM employee")
	if len(rows) != 1 || rows[0][0] != "ada@example.com" {
		t.Errorf("rows after restart = %v, want the employee inserted before", rows)
	}
}

func TestMissingBinaries(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	_, err := Start(t.Context(), Options{DataDir: filepath.Join(t.TempDir(), "data"), BinDir: empty})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("Start with an empty BinDir = %v, want ErrNoBinaries", err)
	}
	for _, hint := range []string{"apt-get install postgresql", "DATABASE_URL", empty} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("error %q does not mention %q", err, hint)
		}
	}

	_, err = findBinaries(t.Context(), searchPlaces{pathEnv: "", debianRoot: filepath.Join(empty, "none")}, 0)
	if !errors.Is(err, ErrNoBinaries) {
		t.Errorf("findBinaries with an empty PATH = %v, want ErrNoBinaries", err)
	}
}

// fakeInstall makes dir/initdb and dir/postgres scripts whose --version
// prints version.
func fakeInstall(t *testing.T, dir, version string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho 'postgres (PostgreSQL) " + version + "'\n"
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindBinariesChoosesVersion(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fakeInstall(t, filepath.Join(root, "9.6", "bin"), "9.6.24")
	fakeInstall(t, filepath.Join(root, "14", "bin"), "14.13")
	fakeInstall(t, filepath.Join(root, "17", "bin"), "17.2")
	onPath := filepath.Join(t.TempDir(), "bin")
	fakeInstall(t, onPath, "16.4")
	noInitdb := t.TempDir()

	tests := []struct {
		name      string
		places    searchPlaces
		wantMajor int
		wantDir   string
		wantErr   bool
	}{
		{"PATH first", searchPlaces{pathEnv: noInitdb + ":" + onPath, debianRoot: root}, 0, onPath, false},
		{"highest Debian version", searchPlaces{pathEnv: noInitdb, debianRoot: root}, 0, filepath.Join(root, "17", "bin"), false},
		{"version of the existing cluster", searchPlaces{pathEnv: onPath, debianRoot: root}, 14, filepath.Join(root, "14", "bin"), false},
		{"BinDir only", searchPlaces{binDir: filepath.Join(root, "14", "bin"), pathEnv: onPath, debianRoot: root}, 0, filepath.Join(root, "14", "bin"), false},
		{"too old", searchPlaces{binDir: filepath.Join(root, "9.6", "bin")}, 0, "", true},
		{"no install of the cluster's version", searchPlaces{pathEnv: onPath, debianRoot: root}, 15, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bins, err := findBinaries(t.Context(), tt.places, tt.wantMajor)
			if tt.wantErr {
				if !errors.Is(err, ErrNoBinaries) {
					t.Fatalf("err = %v, want ErrNoBinaries", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := filepath.Dir(bins.postgres); got != tt.wantDir {
				t.Errorf("chose %s, want %s", got, tt.wantDir)
			}
		})
	}
}

func TestRootRunsServerAsUnprivilegedUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root switches users")
	}
	// t.TempDir's parent is 0700 root: Start must make it reachable.
	dataDir := filepath.Join(t.TempDir(), "nested", "data")
	c := start(t, Options{DataDir: dataDir, ForTests: true})
	id, err := currentIdentity()
	if err != nil {
		t.Fatal(err)
	}

	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	wantUid := strconv.FormatUint(uint64(id.cred.Uid), 10)
	for line := range strings.Lines(string(status)) {
		if fields := strings.Fields(line); len(fields) > 1 && fields[0] == "Uid:" && fields[1] != wantUid {
			t.Errorf("server runs as uid %s, want %s (%s)", fields[1], wantUid, id.name)
		}
	}
	info, err := os.Stat(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if st := info.Sys().(*syscall.Stat_t); st.Uid != id.cred.Uid {
		t.Errorf("data directory owned by uid %d, want %d", st.Uid, id.cred.Uid)
	}
	if rows := query(t, c, "postgres", "SELECT current_user"); rows[0][0] != "postgres" {
		t.Errorf("current_user = %v", rows)
	}
}

func TestSecondServerOnSameDataDirRefused(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	c := start(t, Options{DataDir: dataDir, ForTests: true})

	_, err := Start(t.Context(), Options{DataDir: dataDir, ForTests: true, Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second Start = %v, want ErrAlreadyRunning", err)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(c.process.Pid)) {
		t.Errorf("error %q does not name the running server's pid %d", err, c.process.Pid)
	}
	query(t, c, "postgres", "SELECT 1") // the first server is unharmed
}

func TestStartAfterCrash(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	crashed := start(t, Options{DataDir: dataDir, ForTests: true})
	query(t, crashed, "postgres", "CREATE TABLE card (id int); INSERT INTO card VALUES (7)")
	// With synchronous_commit=off a commit reaches the WAL file only
	// later; a checkpoint after it makes sure the crash does not lose it.
	query(t, crashed, "postgres", "CHECKPOINT")
	if err := crashed.process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-crashed.exited
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err != nil {
		t.Fatalf("a killed server should leave postmaster.pid: %v", err)
	}
	// The killed server's children notice and exit on their own; wait so
	// the test checks recovery, not a race with them.
	waitNoProcessIn(t, dataDir)

	recovered := start(t, Options{DataDir: dataDir, ForTests: true})
	if rows := query(t, recovered, "postgres", "SELECT id FROM card"); len(rows) != 1 || rows[0][0] != "7" {
		t.Errorf("rows after crash recovery = %v, want [[7]]", rows)
	}
}

func TestStalePidFileNamingAnotherProcess(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("needs /proc")
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	first := start(t, Options{DataDir: dataDir, ForTests: true})
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}

	// As after a reboot: the pid in the file now belongs to something else.
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	pidFile := fmt.Sprintf("%d\n%s\n", other.Process.Pid, dataDir)
	if err := os.WriteFile(filepath.Join(dataDir, "postmaster.pid"), []byte(pidFile), 0o600); err != nil {
		t.Fatal(err)
	}

	c := start(t, Options{DataDir: dataDir, ForTests: true})
	query(t, c, "postgres", "SELECT 1")
}

func TestFixedPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	opts := Options{DataDir: filepath.Join(t.TempDir(), "data"), ForTests: true, Port: port, Logger: slog.New(slog.DiscardHandler)}
	c, err := Start(t.Context(), opts)
	if errors.Is(err, ErrNoBinaries) {
		start(t, opts) // skips or fails as every test here does
	}
	if err == nil {
		_ = c.Stop(t.Context())
		t.Fatalf("Start on a port in use succeeded")
	}
	if !errors.Is(err, errPortInUse) {
		t.Errorf("Start on a port in use = %v, want errPortInUse", err)
	}
}

func waitNoProcessIn(t *testing.T, dataDir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pid, _ := processWorkingIn(dataDir)
		if pid == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still works in %s", pid, dataDir)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkColdStart measures initdb and the first start of a new test
// cluster, then a restart of it.
func BenchmarkColdStart(b *testing.B) {
	var initdb, cold, warm time.Duration
	for b.Loop() {
		dataDir := filepath.Join(b.TempDir(), "data")
		opts := Options{DataDir: dataDir, ForTests: true, Logger: slog.New(slog.DiscardHandler)}
		c := start(b, opts)
		initdb += c.Timings().InitDB
		cold += c.Timings().Start
		if err := c.Stop(b.Context()); err != nil {
			b.Fatal(err)
		}
		c = start(b, opts)
		warm += c.Timings().Start
		if err := c.Stop(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(initdb.Milliseconds())/n, "initdb-ms")
	b.ReportMetric(float64(cold.Milliseconds())/n, "coldstart-ms")
	b.ReportMetric(float64(warm.Milliseconds())/n, "warmstart-ms")
}
