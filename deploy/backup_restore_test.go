package deploy

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5"

	"partneradmin/store/localpg"
	"partneradmin/store/pgtest"
	"partneradmin/web/webtest"
)

// The backup and restore drill of docs/operators.md ("Backups"), run as
// an operator runs it: the binary on a PostgreSQL cluster with the
// in-process sandbox (its state in DATA_DIR); state made through the app's
// pages; pg_dump -Fc of DATABASE_URL taken while the app runs, and a copy
// of the sandbox's state files; pg_restore --no-owner into a database of a
// fresh cluster; the binary started on it with the copied files and the
// same ENCRYPTION_KEY. Through HTTP the restored app shows the same
// employees, proposals and audit rows, takes the session cookie issued
// before the backup (sessions live in PostgreSQL), and reads the queue's
// wallets from the restored sandbox.
func TestBackupRestoreDrill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bin := buildBinary(t)
	started := time.Now()
	dsn := pgtest.NewDatabase(t)
	pgDump, pgRestore := pgClientTool(t, dsn, "pg_dump"), pgClientTool(t, dsn, "pg_restore")

	addr := freeAddr(t)
	origin := "http://" + addr
	dataDir := t.TempDir()
	env := map[string]string{
		"DATABASE_URL": dsn, "ENCRYPTION_KEY": strings.Repeat("5e", 32),
		"OWNER_EMAIL": "owner@partner.example", "OWNER_PASSWORD": "a drill before the day it counts",
		"ADDR": addr, "PUBLIC_ORIGIN": origin, "DATA_DIR": dataDir,
	}
	first, err := startReplica(t, bin, env)
	if err != nil {
		t.Fatal(err)
	}

	// State made through the pages: a session, an employee invited, a
	// transfer proposed from the treasury (into the approvals queue), and
	// the audit rows of all three.
	owner := newSite(t, origin)
	owner.signIn(t, env["OWNER_EMAIL"], env["OWNER_PASSWORD"])
	invite := webtest.UKInviteForm("grace.hopper@acme.example")
	invite.Set("form_token", owner.formToken(t, "/employees/invite", `form[action="/employees/invite"]`))
	if code, body := owner.post(t, "/employees/invite", invite); code != http.StatusOK || !strings.Contains(body, "grace.hopper@acme.example") {
		t.Fatalf("invite: %d\n%.600s", code, body)
	}
	proposal := owner.proposeTransfer(t, "Emily Carter", "12.34", "Restore drill lunch")

	before := map[string][][]string{}
	for _, p := range []string{"/employees.csv", "/approvals.csv", "/audit.csv"} {
		before[p] = owner.csv(t, p)
	}
	if !containsCell(before["/employees.csv"], "grace.hopper@acme.example") || !containsCell(before["/approvals.csv"], proposal) {
		t.Fatalf("the exports before the backup lack the invited employee or proposal %s", proposal)
	}
	for _, action := range []string{"employee.invite", "proposal.create"} {
		if !containsCell(before["/audit.csv"], action) {
			t.Fatalf("no %s row in the audit log before the backup", action)
		}
	}
	session := owner.cookie(t, "partner_admin_session")

	// The backup, while the app runs: pg_dump's snapshot is consistent
	// without stopping it. The sandbox state file is rewritten atomically
	// after each change, so a copy is always a whole file.
	backup := t.TempDir()
	dumpFile := filepath.Join(backup, "partner_admin.dump")
	dumpStart := time.Now()
	run(t, pgDump, "--format=custom", "--file="+dumpFile, "--dbname="+dsn)
	dumpTook := time.Since(dumpStart)
	for _, f := range sandboxStateFiles {
		copyFile(t, filepath.Join(dataDir, f), filepath.Join(backup, f))
	}
	first.stop(t)

	// The restore: a new cluster, an empty database, pg_restore; a new data
	// directory holding the copied sandbox state.
	restoreStart := time.Now()
	fresh := freshCluster(t)
	if err := fresh.EnsureDatabase(ctx, "partner_admin"); err != nil {
		t.Fatal(err)
	}
	restored := fresh.ConnString("partner_admin")
	run(t, pgRestore, "--no-owner", "--exit-on-error", "--dbname="+restored, dumpFile)
	restoreTook := time.Since(restoreStart)
	dataDir2 := t.TempDir()
	for _, f := range sandboxStateFiles {
		copyFile(t, filepath.Join(backup, f), filepath.Join(dataDir2, f))
	}
	env["DATABASE_URL"], env["DATA_DIR"] = restored, dataDir2
	second, err := startReplica(t, bin, env)
	if err != nil {
		t.Fatal(err)
	}

	// The cookie from before the backup, alone in a new jar, signs in.
	again := newSite(t, origin)
	again.setCookie(t, session)
	if code, body := again.get(t, "/"); code != http.StatusOK {
		t.Fatalf("the session from before the backup: %d, want 200 (signed in)\n%.300s", code, body)
	}
	after := map[string][][]string{}
	for p := range before {
		after[p] = again.csv(t, p)
	}
	// Employees: who they are and their upstream ids (readiness cells are
	// read from the API and may move on).
	assertSameRows(t, "employees", project(before["/employees.csv"], 4), project(after["/employees.csv"], 4))
	assertSameRows(t, "proposals", before["/approvals.csv"], after["/approvals.csv"])
	// Audit: every row from before, same id, time, actor and detail; the
	// restored app may add its own after them.
	for _, row := range before["/audit.csv"] {
		if !slices.ContainsFunc(after["/audit.csv"], func(r []string) bool { return slices.Equal(r, row) }) {
			t.Errorf("audit row lost in the restore: %q", row)
		}
	}

	// The sandbox's state came back too: the restored sandbox knows the
	// invite and the proposal (a sandbox seeded afresh would not), and the
	// queue's refresh reads the treasury wallets from it.
	var sandboxURL string
	select {
	case sandboxURL = <-second.sandbox:
	case <-time.After(30 * time.Second):
		t.Fatal("the restored app did not print its sandbox's URL")
	}
	state := sandboxState(t, sandboxURL)
	for _, want := range []string{proposal, "grace.hopper@acme.example", "Restore drill lunch"} {
		if !strings.Contains(state, want) {
			t.Errorf("the restored sandbox's state lacks %q", want)
		}
	}
	if code, body := again.post(t, "/approvals/refresh", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("refresh the queue: %d\n%.300s", code, body)
	}
	_, queue := again.get(t, "/approvals")
	if !strings.Contains(queue, "Queue refreshed from the API") || !strings.Contains(queue, "Restore drill lunch") {
		t.Errorf("the queue after a refresh from the restored sandbox lacks the refresh's message or the proposal:\n%.1500s", queue)
	}
	t.Logf("pg_dump %s; new cluster and pg_restore %s; drill without the build %s (rows: %d employees, %d proposals, %d audit)",
		dumpTook.Round(time.Millisecond), restoreTook.Round(time.Millisecond), time.Since(started).Round(time.Second),
		len(before["/employees.csv"])-1, len(before["/approvals.csv"])-1, len(before["/audit.csv"])-1)
}

// sandboxStateFiles are what the in-process sandbox keeps in DATA_DIR: its
// state (the Partner API's users, wallets, proposals) and the owner keys
// of the seeded wallets, which cmd/device signs with.
var sandboxStateFiles = []string{"sandbox-state.json", "device-keys.json"}

// pgClientTool finds a PostgreSQL client program (pg_dump, pg_restore) of
// the server's major version, which pg_dump requires to be no older than
// the server: Debian's /usr/lib/postgresql/<major>/bin (not on PATH, as
// localpg finds initdb there), else PATH. Missing, it fails under CI=true
// and skips elsewhere.
func pgClientTool(t *testing.T, dsn, name string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var num int
	if err := conn.QueryRow(t.Context(), "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("/usr/lib/postgresql", strconv.Itoa(num/10000), "bin", name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	msg := name + " not found in /usr/lib/postgresql/" + strconv.Itoa(num/10000) + "/bin nor on PATH: install PostgreSQL's client programs (Debian: apt-get install postgresql-client)"
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// freshCluster starts a new cluster in a directory of t's, stopped when t
// ends.
func freshCluster(t *testing.T) *localpg.Cluster {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		// As root the server runs as another user, who must pass through
		// t's 0700 directories.
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o711); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := localpg.Start(t.Context(), localpg.Options{DataDir: filepath.Join(dir, "data"), ForTests: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	return c
}

// freeAddr is a loopback address with a port free just now: both apps use
// it in turn, so the public origin, and the cookie's site, stay the same.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	// PGPASSWORD and the like from the test's environment must not reach
	// the tools: the URL says everything.
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(name), err, out)
	}
}

// sandboxState is the state of the sandbox at base, from its control API.
func sandboxState(t *testing.T, base string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/_sandbox/state", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/_sandbox/state: %d %v", base, resp.StatusCode, err)
	}
	return string(b)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// site is a browser on one origin: a cookie jar, redirects not followed,
// same-origin requests.
type site struct {
	origin string
	c      *http.Client
}

func newSite(t *testing.T, origin string) *site {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &site{origin: origin, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (s *site) do(t *testing.T, method, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.origin+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.origin)
	}
	resp, err := s.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func (s *site) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, body := s.do(t, http.MethodGet, path, nil)
	return resp.StatusCode, body
}

func (s *site) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	resp, body := s.do(t, http.MethodPost, path, form)
	return resp.StatusCode, body
}

// page gets path and parses it, failing t unless it answers 200.
func (s *site) page(t *testing.T, path string) *goquery.Document {
	t.Helper()
	code, body := s.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%.300s", path, code, body)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// formToken is the one-time token of the form matched by selector on the
// page at path.
func (s *site) formToken(t *testing.T, path, selector string) string {
	t.Helper()
	tok := s.page(t, path).Find(selector+` input[name="form_token"]`).AttrOr("value", "")
	if tok == "" {
		t.Fatalf("no form_token in %s on %s", selector, path)
	}
	return tok
}

func (s *site) signIn(t *testing.T, email, password string) {
	t.Helper()
	form := url.Values{"email": {email}, "password": {password}}
	s.page(t, "/login").Find(`form[action="/login"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		form.Set(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	resp, body := s.do(t, http.MethodPost, "/login", form)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") == "/login" {
		t.Fatalf("sign in: %d to %q\n%.300s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
}

// proposeTransfer proposes a transfer from the USDB treasury wallet to the
// employee found by name, and returns the proposal's id.
func (s *site) proposeTransfer(t *testing.T, name, amount, description string) string {
	t.Helper()
	doc := s.page(t, "/treasury")
	form := doc.Find(`[data-testid="transfer-form"]`)
	wallet := ""
	form.Find(`select[name="wallet_id"] option`).Each(func(_ int, o *goquery.Selection) {
		if strings.Contains(o.Text(), "(USDB)") {
			wallet = o.AttrOr("value", "")
		}
	})
	tok := form.Find(`input[name="form_token"]`).AttrOr("value", "")
	found := s.page(t, "/treasury/recipients?"+url.Values{"picker": {"transfer-to"}, "to_search": {strings.ToLower(name)}}.Encode()).
		Find(`input[name="to_user_id"]`)
	if wallet == "" || tok == "" || found.Length() != 1 {
		t.Fatalf("transfer form: wallet %q, token %q, %d recipients named %s", wallet, tok, found.Length(), name)
	}
	resp, body := s.do(t, http.MethodPost, "/treasury/transfer", url.Values{"wallet_id": {wallet}, "to_user_id": {found.AttrOr("value", "")},
		"amount": {amount}, "description": {description}, "form_token": {tok}})
	id, ok := strings.CutPrefix(resp.Header.Get("Location"), "/approvals/")
	if resp.StatusCode != http.StatusSeeOther || !ok || id == "" {
		t.Fatalf("transfer: %d to %q\n%.600s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	return id
}

// csv gets an export and parses it (header row first).
func (s *site) csv(t *testing.T, path string) [][]string {
	t.Helper()
	code, body := s.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%.300s", path, code, body)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v\n%.300s", path, err, body)
	}
	return rows
}

// cookie is the jar's cookie of that name for the origin.
func (s *site) cookie(t *testing.T, name string) *http.Cookie {
	t.Helper()
	u, err := url.Parse(s.origin)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.c.Jar.Cookies(u) {
		if c.Name == name && c.Value != "" {
			return c
		}
	}
	t.Fatalf("no %s cookie after signing in", name)
	return nil
}

func (s *site) setCookie(t *testing.T, c *http.Cookie) {
	t.Helper()
	u, err := url.Parse(s.origin)
	if err != nil {
		t.Fatal(err)
	}
	s.c.Jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/"}})
}

func containsCell(rows [][]string, v string) bool {
	return slices.ContainsFunc(rows, func(r []string) bool { return slices.Contains(r, v) })
}

// project keeps each row's first n cells.
func project(rows [][]string, n int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:min(n, len(r))]
	}
	return out
}

func assertSameRows(t *testing.T, what string, before, after [][]string) {
	t.Helper()
	if !slices.EqualFunc(before, after, slices.Equal) {
		t.Errorf("%s after the restore differ from before:\nbefore: %q\nafter:  %q", what, before, after)
	}
}
