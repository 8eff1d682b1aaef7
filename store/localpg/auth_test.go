package localpg

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// connectAs connects to database postgres of the server on port as the
// superuser with password ("" for none), ignoring PGPASSWORD and
// ~/.pgpass.
func connectAs(t *testing.T, port int, password string) (*pgx.Conn, error) {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = password
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err == nil {
		t.Cleanup(func() { conn.Close(t.Context()) })
	}
	return conn, err
}

// assertRefused checks that the server on port turns away the superuser
// with password, as it must anyone who does not know the right one.
func assertRefused(t *testing.T, port int, password string) {
	t.Helper()
	_, err := connectAs(t, port, password)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != sqlstateInvalidPassword {
		t.Errorf("connect as postgres with password %q = %v, want refused (SQLSTATE %s)", password, err, sqlstateInvalidPassword)
	}
}

// assertPasswordFile checks that the cluster's password file holds want
// and that only its owner, the server's user, may read it.
func assertPasswordFile(t *testing.T, dataDir, want string) {
	t.Helper()
	path := filepath.Join(dataDir, PasswordFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != want || len(got) != 64 {
		t.Errorf("%s holds %q, want the cluster's password %q (64 hex digits)", PasswordFile, got, want)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", PasswordFile, info.Mode().Perm())
	}
	dirInfo, err := os.Stat(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if got, dir := info.Sys().(*syscall.Stat_t).Uid, dirInfo.Sys().(*syscall.Stat_t).Uid; got != dir {
		t.Errorf("%s owned by uid %d, want %d like the data directory", PasswordFile, got, dir)
	}
}

// assertOnlyPasswordAuth checks the rules the server applies: pg_hba.conf
// as loaded, and the postgres role's stored password.
func assertOnlyPasswordAuth(t *testing.T, c *Cluster) {
	t.Helper()
	rows := query(t, c, "postgres", "SELECT DISTINCT auth_method FROM pg_hba_file_rules")
	if len(rows) != 1 || rows[0][0] != "scram-sha-256" {
		t.Errorf("pg_hba.conf methods = %v, want only scram-sha-256", rows)
	}
	rows = query(t, c, "postgres", "SELECT rolpassword FROM pg_authid WHERE rolname = 'postgres'")
	if len(rows) != 1 || !strings.HasPrefix(rows[0][0], "SCRAM-SHA-256$") {
		t.Errorf("postgres role's password = %v, want a SCRAM-SHA-256 verifier", rows)
	}
}

func TestNewClusterRequiresPassword(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	c := start(t, Options{DataDir: dataDir, ForTests: true})

	assertPasswordFile(t, dataDir, c.password)
	assertOnlyPasswordAuth(t, c)
	assertRefused(t, c.Port(), "")
	assertRefused(t, c.Port(), strings.Repeat("0", 64))

	conn, err := pgx.Connect(t.Context(), c.ConnString("postgres"))
	if err != nil {
		t.Fatalf("connect with ConnString: %v", err)
	}
	defer conn.Close(t.Context())
	var user string
	if err := conn.QueryRow(t.Context(), "SELECT current_user").Scan(&user); err != nil {
		t.Fatal(err)
	}
	if user != "postgres" {
		t.Errorf("current_user = %q, want postgres", user)
	}

	// Reachable over TCP on the loopback address only, and not through a
	// Unix socket, whose directory other users could reach.
	var listen, sockets string
	if err := conn.QueryRow(t.Context(), "SELECT current_setting('listen_addresses'), current_setting('unix_socket_directories')").Scan(&listen, &sockets); err != nil {
		t.Fatal(err)
	}
	if listen != "127.0.0.1" || sockets != "" {
		t.Errorf("listen_addresses = %q, unix_socket_directories = %q; want 127.0.0.1 and none", listen, sockets)
	}
}

// initTrustCluster makes a cluster in dataDir as localpg did before it
// required a password: initdb -A trust, no password file. It then starts
// it, checks that anyone gets in without a password (the defect), and runs
// setup there before stopping it.
func initTrustCluster(t *testing.T, dataDir, setup string) {
	t.Helper()
	bins, err := findBinaries(t.Context(), searchPlaces{pathEnv: os.Getenv("PATH"), debianRoot: debianRoot}, 0)
	if errors.Is(err, ErrNoBinaries) {
		start(t, Options{DataDir: dataDir, BinDir: t.TempDir()}) // skips or fails as every test here does
	}
	if err != nil {
		t.Fatal(err)
	}
	id, err := currentIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if err := id.makeReachable(filepath.Dir(dataDir), slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if id.cred != nil {
		if err := os.Chown(dataDir, int(id.cred.Uid), int(id.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), bins.initdb, "-D", dataDir, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--no-locale", "--no-instructions", "--no-sync")
	id.command(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}

	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(filepath.Dir(dataDir), "postgres.log")
	logf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	old := &Cluster{dataDir: dataDir, port: port, logFile: logFile, log: slog.New(slog.DiscardHandler)}
	if err := old.start(t.Context(), bins, id, serverArgs(dataDir, port, true, nil), logf); err != nil {
		t.Fatal(err)
	}
	defer old.Stop(t.Context())
	conn, err := connectAs(t, port, "")
	if err != nil {
		t.Fatalf("the old-style cluster refused a connection without a password: %v", err)
	}
	if _, err := conn.Exec(t.Context(), setup); err != nil {
		t.Fatal(err)
	}
	conn.Close(t.Context())
	if err := old.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestTrustClusterIsMadeToRequirePassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// keptPassword, when set, is a password file already written (a
		// start that stopped halfway through this upgrade).
		keptPassword string
	}{
		{"made before passwords", ""},
		{"password file written, pg_hba.conf not yet", strings.Repeat("ab", 32)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dataDir := filepath.Join(t.TempDir(), "data")
			initTrustCluster(t, dataDir, "CREATE TABLE staff (email text); INSERT INTO staff VALUES ('owner@example.com')")
			if tt.keptPassword != "" {
				id, err := currentIdentity()
				if err != nil {
					t.Fatal(err)
				}
				if err := writePrivateFile(filepath.Join(dataDir, PasswordFile), []byte(tt.keptPassword+"\n"), id, false); err != nil {
					t.Fatal(err)
				}
			}

			c := start(t, Options{DataDir: dataDir, ForTests: true})
			if c.Timings().InitDB != 0 {
				t.Errorf("Start ran initdb (%v), want the cluster reused", c.Timings().InitDB)
			}
			if tt.keptPassword != "" && c.password != tt.keptPassword {
				t.Errorf("password = %q, want the one already kept, %q", c.password, tt.keptPassword)
			}
			assertPasswordFile(t, dataDir, c.password)
			assertOnlyPasswordAuth(t, c)
			assertRefused(t, c.Port(), "")

			conn, err := pgx.Connect(t.Context(), c.ConnString("postgres"))
			if err != nil {
				t.Fatalf("connect with ConnString: %v", err)
			}
			defer conn.Close(t.Context())
			var email string
			if err := conn.QueryRow(t.Context(), "SELECT email FROM staff").Scan(&email); err != nil {
				t.Fatalf("the data from before: %v", err)
			}
			if email != "owner@example.com" {
				t.Errorf("staff email = %q, want the row from before", email)
			}
		})
	}
}

func TestLostPasswordFileIsReplaced(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	first := start(t, Options{DataDir: dataDir, ForTests: true})
	query(t, first, "postgres", "CREATE TABLE card (id int); INSERT INTO card VALUES (7)")
	oldPassword := first.password
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dataDir, PasswordFile)); err != nil {
		t.Fatal(err)
	}

	second := start(t, Options{DataDir: dataDir, ForTests: true})
	if second.password == oldPassword {
		t.Error("the lost password was kept, want a new one")
	}
	assertPasswordFile(t, dataDir, second.password)
	assertRefused(t, second.Port(), oldPassword)
	if rows := query(t, second, "postgres", "SELECT id FROM card"); len(rows) != 1 || rows[0][0] != "7" {
		t.Errorf("rows = %v, want [[7]] from before", rows)
	}
}

func TestWrongPasswordFileIsExplained(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	first := start(t, Options{DataDir: dataDir, ForTests: true})
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, PasswordFile), []byte(strings.Repeat("0", 64)), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Start(t.Context(), Options{DataDir: dataDir, ForTests: true, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		_ = c.Stop(t.Context())
		t.Fatal("Start with a password file the role does not match succeeded")
	}
	if !strings.Contains(err.Error(), PasswordFile) {
		t.Errorf("error %q does not name the password file", err)
	}
	// The server it started to check is gone again.
	waitNoProcessIn(t, dataDir)
}

func TestHBARequiresPassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		conf string
		want bool
	}{
		{"localpg's own", hbaConf, true},
		{"initdb -A trust", "# comment\nlocal all all trust\nhost all all 127.0.0.1/32 trust\n", false},
		{"one rule trusts", "host all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 trust\n", false},
		{"address with mask", "host all all 127.0.0.1 255.255.255.255 trust\n", false},
		{"md5 is not scram", "host all all 127.0.0.1/32 md5\n", false},
		{"options after the method", "host all all 127.0.0.1/32 scram-sha-256 clientcert=verify-full\n", true},
		{"trust only in a comment", "local all all scram-sha-256 # was trust\n", true},
		{"no rules at all", "# nothing\n\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "pg_hba.conf"), []byte(tt.conf), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := hbaRequiresPassword(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hbaRequiresPassword = %v, want %v", got, tt.want)
			}
		})
	}
}
