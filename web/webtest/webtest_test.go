package webtest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/store/pgtest"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestDemoTemplateMirrorsTheTestsOwnSandbox: the demo company New copies
// from its template is what importing the test's own freshly seeded
// sandbox would store, row for row (times aside: they are when each import
// ran).
func TestDemoTemplateMirrorsTheTestsOwnSandbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{})
	fresh := webtest.MigratedDatabase(t)
	pool, err := store.Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	syncer := &userstate.Syncer{API: env.API, Store: store.New(pool), Now: time.Now}
	if _, err := syncer.Import(ctx, web.DemoPeople(env.Demo, time.Now())); err != nil {
		t.Fatal(err)
	}
	copied, imported := tableRows(t, env.DatabaseURL), tableRows(t, fresh)
	if len(copied) == 0 {
		t.Fatal("no tables read")
	}
	rows := 0
	for table, want := range imported {
		rows += strings.Count(want, "\n")
		if got := copied[table]; got != want {
			t.Errorf("table %s differs:\nonly in the copy of the template:\n%s\nonly in the import:\n%s", table, missing(want, got), missing(got, want))
		}
	}
	if rows == 0 {
		t.Fatal("the import stored nothing: the comparison proves nothing")
	}
}

// missing returns the lines of b that a lacks.
func missing(a, b string) string {
	have := map[string]bool{}
	for l := range strings.Lines(a) {
		have[l] = true
	}
	var out strings.Builder
	for l := range strings.Lines(b) {
		if !have[l] {
			out.WriteString(l)
		}
	}
	return out.String()
}

// jsonTime is a time inside a JSON document (a snapshot of an answer).
var jsonTime = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)

// tableRows reads every table of the app's schema as sorted lines of its
// columns, leaving out times and generated keys (which differ between two
// imports that run concurrent reads).
func tableRows(t *testing.T, dsn string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `
		SELECT table_name, string_agg(quote_ident(column_name), ',' ORDER BY ordinal_position)
		FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name NOT LIKE 'river%' AND table_name NOT LIKE 'goose%'
		  AND data_type NOT LIKE 'timestamp%' AND column_name <> 'id'
		GROUP BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string]string{}
	for rows.Next() {
		var table, list string
		if err := rows.Scan(&table, &list); err != nil {
			t.Fatal(err)
		}
		cols[table] = list
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for table, list := range cols {
		var text *string
		q := fmt.Sprintf(`SELECT string_agg(r, E'\n' ORDER BY r) FROM (SELECT row(%s)::text AS r FROM %s) x`, list, pgx.Identifier{table}.Sanitize())
		if err := conn.QueryRow(ctx, q).Scan(&text); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if text != nil {
			out[table] = jsonTime.ReplaceAllString(*text, "<time>") + "\n"
		}
	}
	return out
}

// TestStaffSignInWithTheirOwnPasswordOnly: the accounts CreateStaff makes
// (their passwords hashed at a test's cost) sign in through the real form
// with their password, and not with another's.
func TestStaffSignInWithTheirOwnPasswordOnly(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	a, b := env.CreateStaff(store.RoleHRAdmin), env.CreateStaff(store.RoleHRAdmin)
	env.Login(env.Client(), a.Email, a.Password)
	resp := env.PostForm(env.Client(), "/login", url.Values{"email": {a.Email}, "password": {b.Password}})
	resp.Body.Close()
	if resp.StatusCode == http.StatusSeeOther {
		t.Fatal("signed in with another account's password")
	}
}
