package pgtest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/store/localpg"
)

func TestMain(m *testing.M) { Main(m) }

func TestParallelTestsGetTheirOwnDatabases(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // database name -> test
	t.Run("group", func(t *testing.T) {
		for i := range 2 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				pool := NewPool(t)
				var db string
				if err := pool.QueryRow(t.Context(), "SELECT current_database()").Scan(&db); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				seen[db] = t.Name()
				mu.Unlock()

				// Both create the same table: neither sees the other's row.
				if _, err := pool.Exec(t.Context(), "CREATE TABLE employee (email text)"); err != nil {
					t.Fatal(err)
				}
				if _, err := pool.Exec(t.Context(), "INSERT INTO employee VALUES ($1)", t.Name()); err != nil {
					t.Fatal(err)
				}
				rows, _ := pool.Query(t.Context(), "SELECT email FROM employee")
				emails, err := pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					t.Fatal(err)
				}
				if len(emails) != 1 || emails[0] != t.Name() {
					t.Errorf("employees = %v, want only %s", emails, t.Name())
				}
			})
		}
	})
	if len(seen) != 2 {
		t.Errorf("databases = %v, want two different ones", seen)
	}
	// Each was dropped when its test ended.
	for db := range seen {
		if databaseExists(t, db) {
			t.Errorf("database %s still exists after its test ended", db)
		}
	}
}

func TestNewDatabaseIsEmpty(t *testing.T) {
	t.Parallel()
	conn := connect(t, NewDatabase(t))
	var tables int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("new database has %d tables, want none", tables)
	}
}

func TestTemplateCopyCarriesSetup(t *testing.T) {
	t.Parallel()
	var setups atomic.Int32
	setup := func(ctx context.Context, connString string) error {
		setups.Add(1)
		// Left open on purpose: Template must close it, or every copy fails.
		pool, err := pgxpool.New(ctx, connString)
		if err != nil {
			return err
		}
		_, err = pool.Exec(ctx, "CREATE TABLE currency (fiat text, stablecoin text); INSERT INTO currency VALUES ('USD', 'USDB')")
		return err
	}

	// Templates live as long as the binary: a name of this run's own keeps
	// -count=N honest.
	name := binary.uniqueName("currencies", "")
	// Three parallel tests ask for the template at once.
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			tmpl := Template(t, name, setup)
			pool := NewPoolFrom(t, tmpl)
			var stablecoin string
			if err := pool.QueryRow(t.Context(), "SELECT stablecoin FROM currency WHERE fiat = 'USD'").Scan(&stablecoin); err != nil {
				t.Fatal(err)
			}
			if stablecoin != "USDB" {
				t.Errorf("stablecoin = %q, want USDB from the template", stablecoin)
			}
			// A copy is the test's own: changing it leaves the template alone.
			if _, err := pool.Exec(t.Context(), "DELETE FROM currency"); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Cleanup(func() {
		if n := setups.Load(); n != 1 {
			t.Errorf("setup ran %d times, want once per binary", n)
		}
	})
}

func TestTemplateFromAddsToItsBase(t *testing.T) {
	t.Parallel()
	base := Template(t, binary.uniqueName("base", ""), func(ctx context.Context, connString string) error {
		conn, err := pgx.Connect(ctx, connString)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE currency (fiat text, stablecoin text); INSERT INTO currency VALUES ('USD', 'USDB')")
		return err
	})
	derived := TemplateFrom(t, binary.uniqueName("derived", ""), base, func(ctx context.Context, connString string) error {
		conn, err := pgx.Connect(ctx, connString)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "INSERT INTO currency VALUES ('NGN', 'CNGN')")
		return err
	})
	count := func(tmpl string) int {
		var n int
		if err := NewPoolFrom(t, tmpl).QueryRow(t.Context(), "SELECT count(*) FROM currency").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(derived); n != 2 {
		t.Errorf("a copy of the derived template has %d currencies, want the base's and its own", n)
	}
	if n := count(base); n != 1 {
		t.Errorf("the base template has %d currencies after the derived one was built, want 1", n)
	}
}

func TestTemplateSetupFailure(t *testing.T) {
	t.Parallel()
	ft := &fatalRecorder{TB: t}
	runUntilFatal(ft, func() {
		Template(ft, "broken", func(context.Context, string) error { return errors.New("migration 3 failed") })
	})
	if !strings.Contains(ft.fatal, "migration 3 failed") {
		t.Errorf("fatal = %q, want the setup's error", ft.fatal)
	}
}

func TestNewDatabaseWithoutMainFails(t *testing.T) {
	t.Parallel()
	var h harness // as in a package whose TestMain forgot pgtest.Main
	ft := &fatalRecorder{TB: t}
	runUntilFatal(ft, func() { h.newDatabase(ft, "") })
	if ft.fatal != missingMainHint {
		t.Errorf("fatal = %q, want the TestMain hint", ft.fatal)
	}
	if h.cluster != nil {
		t.Error("a cluster was started that nothing would stop")
	}
}

func TestUniqueName(t *testing.T) {
	t.Parallel()
	var h harness
	long := strings.Repeat("Séance/", 20)
	a, b := h.uniqueName("t", long), h.uniqueName("t", long)
	if a == b {
		t.Errorf("two names for the same test are both %q", a)
	}
	for _, name := range []string{a, b} {
		if len(name) > maxIdentLen || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("name %q is not a short plain identifier", name)
		}
	}
}

func TestMissingPostgres(t *testing.T) {
	t.Parallel()
	missing := fmt.Errorf("localpg: %w (looked in /usr/bin)", localpg.ErrNoBinaries)
	tests := []struct {
		name      string
		err       error
		ci        bool
		wantFatal bool
	}{
		{"skipped on a developer machine", missing, false, false},
		{"a failure on CI", missing, true, true},
		{"other start errors fail everywhere", errors.New("initdb: disk full"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &fatalRecorder{TB: t}
			runUntilFatal(r, func() { failOrSkip(r, tt.err, tt.ci) })
			if got := r.fatal != ""; got != tt.wantFatal {
				t.Errorf("fatal = %q, skip = %q; want fatal %v", r.fatal, r.skip, tt.wantFatal)
			}
			msg := r.fatal + r.skip
			if !strings.Contains(msg, tt.err.Error()) {
				t.Errorf("message %q does not carry the error", msg)
			}
			if errors.Is(tt.err, localpg.ErrNoBinaries) && !strings.Contains(msg, "apt-get install postgresql") {
				t.Errorf("message %q has no install hint", msg)
			}
		})
	}
}

// fatalRecorder records Fatal and Skip instead of ending the real test.
type fatalRecorder struct {
	testing.TB
	fatal string
	skip  string
}

func (r *fatalRecorder) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *fatalRecorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// runUntilFatal runs f on a goroutine of its own, which a recorded Fatal
// ends as a real one would.
func runUntilFatal(r *fatalRecorder, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func connect(t *testing.T, connString string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), connString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	var exists bool
	err := binary.admin.QueryRow(t.Context(), "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	return exists
}

// BenchmarkNewDatabase measures what each test pays for its database,
// creating and dropping it: an empty one, and a copy of a template with a
// schema.
func BenchmarkNewDatabase(b *testing.B) {
	binary.ready(b)
	createDrop := func(b *testing.B, template string) {
		for b.Loop() {
			name := binary.uniqueName("bench", "")
			if err := binary.create(b.Context(), name, template); err != nil {
				b.Fatal(err)
			}
			if err := binary.drop(b.Context(), name); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("empty", func(b *testing.B) { createDrop(b, "") })
	b.Run("from template", func(b *testing.B) {
		tmpl := Template(b, "bench", func(ctx context.Context, connString string) error {
			conn, err := pgx.Connect(ctx, connString)
			if err != nil {
				return err
			}
			defer conn.Close(ctx)
			for i := range 30 {
				sql := fmt.Sprintf("CREATE TABLE t%d (id bigint PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())", i)
				if _, err := conn.Exec(ctx, sql); err != nil {
					return err
				}
				if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE INDEX ON t%d (name)", i)); err != nil {
					return err
				}
			}
			return nil
		})
		createDrop(b, tmpl)
	})
}
