// Package pgtest gives each test a real, empty PostgreSQL database of its
// own.
//
// Every package whose tests use it must have
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// One cluster per test binary (store/localpg with ForTests) starts in a
// temporary directory (in /dev/shm when it has room) the first time a test
// asks for a database; Main stops it and removes the directory once the
// tests have run. Without Main nothing would, so the first request for a
// database fails the test instead. A binary killed before Main's cleanup
// (a test timeout) leaves a stopped cluster's files, which the next run of
// any package's tests removes.
//
// A test that needs a migrated schema builds it once per binary with
// Template and copies it with NewDatabaseFrom, which is far faster than
// migrating a fresh database in every test:
//
//	tmpl := pgtest.Template(t, "migrated", func(ctx context.Context, connString string) error {
//		return migrations.Apply(ctx, connString)
//	})
//	pool := pgtest.NewPoolFrom(t, tmpl)
//
// Where no PostgreSQL server binaries are installed, tests that ask for a
// database are skipped with a hint how to install them, or fail under
// CI=true.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/store/localpg"
)

// The cluster belongs to the test binary, not to one test, so its state is
// the one package-level variable: TestMain and every test reach it without
// threading a value through testing.M.
var binary harness

// Main runs the tests, then stops the cluster, removes its files and exits
// with the tests' code. Call it from TestMain.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit: it returns the code, so that a TestMain
// with more to stop after the tests (webtest.BrowserMain) can do so first.
func Run(m *testing.M) int {
	return binary.main(m)
}

// NewDatabase creates an empty database for t, dropped when t ends, and
// returns its connection string.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return binary.newDatabase(t, "")
}

// NewDatabaseFrom creates a database for t as a copy of template (a name
// returned by Template), dropped when t ends, and returns its connection
// string.
func NewDatabaseFrom(t testing.TB, template string) string {
	t.Helper()
	if template == "" {
		t.Fatal("pgtest: NewDatabaseFrom needs a template name from pgtest.Template")
	}
	return binary.newDatabase(t, template)
}

// Template returns the name of a template database built by setup, which
// runs once per test binary for each name: later calls, from any test,
// wait for the first and return the same template. setup gets the new
// database's connection string; connections it leaves open are closed
// afterwards, since a template cannot be copied while anyone is connected
// to it. When setup fails, every test asking for the template fails.
func Template(t testing.TB, name string, setup func(ctx context.Context, connString string) error) string {
	t.Helper()
	return binary.template(t, name, "", setup)
}

// TemplateFrom is Template for a template that starts as a copy of another
// (base, a name returned by Template): setup adds to what base holds
// instead of building it again.
func TemplateFrom(t testing.TB, name, base string, setup func(ctx context.Context, connString string) error) string {
	t.Helper()
	if base == "" {
		t.Fatal("pgtest: TemplateFrom needs a base template name from pgtest.Template")
	}
	return binary.template(t, name, base, setup)
}

// NewPool opens a pool on a new empty database (see NewDatabase). The pool
// is closed when t ends; a connection acquired and never released fails t.
func NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return openPool(t, NewDatabase(t))
}

// NewPoolFrom opens a pool on a new copy of template (see NewDatabaseFrom).
func NewPoolFrom(t testing.TB, template string) *pgxpool.Pool {
	t.Helper()
	return openPool(t, NewDatabaseFrom(t, template))
}

const (
	startTimeout    = 2 * time.Minute
	setupTimeout    = 5 * time.Minute
	cleanupTimeout  = 30 * time.Second
	poolCloseGrace  = 10 * time.Second
	maxIdentLen     = 63 // PostgreSQL's NAMEDATALEN - 1
	installHint     = "install PostgreSQL 14+ server binaries to run these tests (Debian: apt-get install postgresql)"
	missingMainHint = "pgtest: this package's tests need func TestMain(m *testing.M) { pgtest.Main(m) }, which stops the test cluster and removes its files"
)

type harness struct {
	mainCalled atomic.Bool

	startOnce sync.Once
	dir       string
	cluster   *localpg.Cluster
	admin     *pgxpool.Pool // on database postgres, to create and drop databases
	startErr  error

	seq atomic.Uint64 // makes database names unique within the cluster

	mu        sync.Mutex
	templates map[string]*templateDB
}

type templateDB struct {
	once sync.Once
	db   string
	err  error
}

func (h *harness) main(m *testing.M) int {
	h.mainCalled.Store(true)
	code := m.Run()
	if err := h.close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// ready starts the cluster on first use, and skips or fails t when there is
// none.
func (h *harness) ready(t testing.TB) {
	t.Helper()
	if !h.mainCalled.Load() {
		t.Fatal(missingMainHint)
	}
	h.startOnce.Do(h.start)
	if h.startErr != nil {
		ci, _ := strconv.ParseBool(os.Getenv("CI"))
		failOrSkip(t, h.startErr, ci)
	}
}

// failOrSkip ends t for a cluster that did not start: missing binaries
// skip the test with a hint how to install them, except on CI, where a
// missing PostgreSQL must never pass as a skip.
func failOrSkip(t testing.TB, err error, ci bool) {
	t.Helper()
	if !errors.Is(err, localpg.ErrNoBinaries) {
		t.Fatalf("pgtest: start the test cluster: %v", err)
	}
	msg := "pgtest: " + installHint + ": " + err.Error()
	if ci {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func (h *harness) start() {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	dir, err := clusterDir()
	if err != nil {
		h.startErr = err
		return
	}
	h.dir = dir
	if os.Geteuid() == 0 {
		// As root the server runs as another user, who must be able to
		// pass through this 0700 directory (localpg would do it too, with
		// a warning meant for directories the caller cares about).
		if err := os.Chmod(dir, 0o711); err != nil {
			h.startErr = fmt.Errorf("pgtest: %w", err)
			return
		}
	}
	h.cluster, err = localpg.Start(ctx, localpg.Options{
		DataDir:  filepath.Join(dir, "data"),
		ForTests: true,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		h.startErr = err
		return
	}
	h.admin, err = pgxpool.New(ctx, h.cluster.ConnString("postgres"))
	if err != nil {
		h.startErr = fmt.Errorf("pgtest: connect to the test cluster: %w", err)
	}
}

func (h *harness) close() error {
	if h.admin != nil {
		h.admin.Close()
	}
	var errs []error
	if h.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := h.cluster.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("pgtest: stop the test cluster: %w", err))
		}
	}
	if h.dir != "" {
		if err := os.RemoveAll(h.dir); err != nil {
			errs = append(errs, fmt.Errorf("pgtest: remove the test cluster: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (h *harness) newDatabase(t testing.TB, template string) string {
	t.Helper()
	h.ready(t)
	name := h.uniqueName("t", t.Name())
	if err := h.create(t.Context(), name, template); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := h.drop(ctx, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return h.cluster.ConnString(name)
}

// create makes database name, a copy of template or, when it is empty, of
// template1.
func (h *harness) create(ctx context.Context, name, template string) error {
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if template != "" {
		sql += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	}
	if _, err := h.admin.Exec(ctx, sql); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// drop removes a database, closing whatever connections the test left.
func (h *harness) drop(ctx context.Context, name string) error {
	if _, err := h.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

func (h *harness) template(t testing.TB, name, base string, setup func(ctx context.Context, connString string) error) string {
	t.Helper()
	h.ready(t)
	h.mu.Lock()
	if h.templates == nil {
		h.templates = map[string]*templateDB{}
	}
	tmpl, ok := h.templates[name]
	if !ok {
		tmpl = &templateDB{}
		h.templates[name] = tmpl
	}
	h.mu.Unlock()

	tmpl.once.Do(func() {
		began := time.Now()
		tmpl.db, tmpl.err = h.buildTemplate(name, base, setup)
		t.Logf("pgtest: built template %q in %v", name, time.Since(began))
	})
	if tmpl.err != nil {
		t.Fatalf("pgtest: template %q: %v", name, tmpl.err)
	}
	return tmpl.db
}

// buildTemplate runs on a context of its own: the template outlives the
// test that happened to ask for it first.
func (h *harness) buildTemplate(name, base string, setup func(ctx context.Context, connString string) error) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	db := h.uniqueName("tmpl", name)
	if err := h.create(ctx, db, base); err != nil {
		return "", err
	}
	if err := setup(ctx, h.cluster.ConnString(db)); err != nil {
		if dropErr := h.drop(ctx, db); dropErr != nil {
			err = errors.Join(err, dropErr)
		}
		return "", fmt.Errorf("setup: %w", err)
	}
	// CREATE DATABASE ... TEMPLATE fails while anyone is connected to the
	// template: refuse new connections, end those setup left open (a pool
	// it forgot to close), and wait until they are gone.
	ident := pgx.Identifier{db}.Sanitize()
	if _, err := h.admin.Exec(ctx, "ALTER DATABASE "+ident+" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true"); err != nil {
		return "", fmt.Errorf("mark as template: %w", err)
	}
	for {
		var left int
		err := h.admin.QueryRow(ctx,
			"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", db).Scan(&left)
		if err != nil {
			return "", fmt.Errorf("close setup's connections: %w", err)
		}
		if left == 0 {
			return db, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("close setup's connections: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// uniqueName makes a database name from a counter (unique in the cluster)
// and the test or template name (for whoever reads the server log).
func (h *harness) uniqueName(prefix, label string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d_", prefix, h.seq.Add(1))
	for _, r := range strings.ToLower(label) {
		if b.Len() == maxIdentLen {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func openPool(t testing.TB, connString string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), connString)
	if err != nil {
		t.Fatalf("pgtest: open pool: %v", err)
	}
	t.Cleanup(func() {
		// Close waits for every acquired connection to come back, so a
		// leaked one would hang the test binary until its timeout.
		closed := make(chan struct{})
		go func() {
			pool.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(poolCloseGrace):
			t.Errorf("pgtest: pool still not closed after %v: a connection was acquired and never released", poolCloseGrace)
		}
	})
	return pool
}
