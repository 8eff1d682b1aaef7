// Package webtest starts the whole app for tests: a fresh migrated database
// from store/pgtest, the real router behind httptest, and HTTP clients that
// keep cookies and sign in through the real form. Packages using it need
// `func TestMain(m *testing.M) { pgtest.Main(m) }`.
//
// The helpers that more than one test package uses live here too, each in
// a file named for its area (sandbox control, signing device, approvals,
// payroll, treasury, money out, webhooks, people, sign-in, checks, latency
// measurement, and the routes and paths tests name). The app's tests are
// split by theme into package web and web/a11ytest, web/approvaltest,
// web/authtest, web/browsertest, web/faulttest, web/moneytest, web/opstest
// and web/peopletest, so that each test binary stays well inside go test's
// default 10-minute timeout; they share these helpers.
package webtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/crypto/argon2"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/store/pgtest"
	"partneradmin/web"
)

// Env is one running app with its own database.
type Env struct {
	T      testing.TB
	App    *web.App
	Server *httptest.Server
	Store  *store.Store
	Config web.Config
	Logs   *LogBuffer
	// Sandbox is the Partner API the app talks to, seeded with the demo
	// company, with its control API on; SandboxURL is its origin and API a
	// client of it as the demo partner.
	Sandbox    *sandbox.Server
	SandboxURL string
	// SandboxHTTP serves the sandbox at SandboxURL; closing it takes the
	// Partner API down (connections refused), as a test of an outage does.
	SandboxHTTP *httptest.Server
	API         *apiclient.Client
	Demo        sandbox.DemoInfo
	// DatabaseURL is the app's database; Metrics its metrics (the API
	// client counts into them).
	DatabaseURL string
	Metrics     *web.Metrics
	seq         atomic.Int64
}

// Options adjusts the app under test.
type Options struct {
	// Upstream replaces the default (the sandbox, probed through API).
	Upstream *web.Upstream
	// SandboxOptions adjusts the sandbox (Control, Local and Logger are
	// always set).
	SandboxOptions sandbox.Options
	// StartWorkers starts river's workers (off by default: most tests do
	// not need background jobs).
	StartWorkers bool
	// Now replaces the clock.
	Now func() time.Time
	// SkipDemoImport leaves the store without the demo company (by default
	// it is imported into the mirror, as partner-admin does at start).
	SkipDemoImport bool
	// TrustedProxies is the app's TRUSTED_PROXIES setting.
	TrustedProxies []netip.Prefix
	// SignLinkTemplate is the app's SIGN_LINK_TEMPLATE setting.
	SignLinkTemplate string
	// DatabaseURL, when set, is a migrated database to use instead of a
	// fresh one (a test that stops and starts its own server).
	DatabaseURL string
	// ReplicaOf, when set, makes this app another replica of that one:
	// the same database and the same sandbox (nothing is seeded or
	// imported again), its own process state, listener and server.
	ReplicaOf *Env
	// EncryptionKey is the app's ENCRYPTION_KEY (replicas take their
	// first's: all must open the same sealed secrets); empty: ephemeral.
	EncryptionKey web.Secret
	// WebhookBodyRetention is the app's WEBHOOK_BODY_RETENTION (0: keep).
	WebhookBodyRetention time.Duration
	// SMTPURL and ChatWebhookURL are the app's SMTP_URL and
	// CHAT_WEBHOOK_URL settings (notifications).
	SMTPURL, ChatWebhookURL string
	// LocalhostOrigin makes the app's public origin http://localhost:PORT
	// (passkeys need a domain name, not 127.0.0.1); browse it with
	// Env.LocalhostURL.
	LocalhostOrigin bool
	// OIDCIssuer, OIDCClientID, OIDCClientSecret and OIDCProviderName are
	// the app's single sign-on settings (OIDC_*).
	OIDCIssuer, OIDCClientID, OIDCClientSecret, OIDCProviderName string
}

// MigratedDatabase returns a connection string to a fresh database with the
// app's schema, copied from a template migrated once per test binary.
func MigratedDatabase(t testing.TB) string {
	t.Helper()
	return pgtest.NewDatabaseFrom(t, migratedTemplate(t))
}

// migratedTemplate is the template database with the app's schema.
func migratedTemplate(t testing.TB) string {
	t.Helper()
	return pgtest.Template(t, "migrated", func(ctx context.Context, connString string) error {
		pool, err := store.Open(ctx, connString)
		if err != nil {
			return err
		}
		defer pool.Close()
		return store.Migrate(ctx, pool, slog.New(slog.DiscardHandler))
	})
}

// DemoDatabase returns a connection string to a fresh database with the
// app's schema and the demo company imported into the mirror, copied from
// a template built once per test binary. The import reads a sandbox seeded
// with SeedDemo, which is deterministic: every sandbox seeded the same way
// (New's, with default SandboxOptions) has the same users, wallets and
// ids, so the copy mirrors it as an import of its own would.
func DemoDatabase(t testing.TB) string {
	t.Helper()
	tmpl := pgtest.TemplateFrom(t, "demo", migratedTemplate(t), func(ctx context.Context, connString string) error {
		pool, err := store.Open(ctx, connString)
		if err != nil {
			return err
		}
		defer pool.Close()
		return importDemo(ctx, store.New(pool))
	})
	return pgtest.NewDatabaseFrom(t, tmpl)
}

// importDemo imports the demo company from a sandbox of its own, seeded as
// New seeds one (the callback URL only has to exist: the subscription is
// part of what the seed creates, and nothing is delivered during the
// import).
func importDemo(ctx context.Context, st *store.Store) error {
	sb, err := sandbox.New(sandbox.Options{Control: true, Local: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer sb.Close()
	demo, err := sandbox.SeedDemo(sb, sandbox.DemoOptions{CallbackURL: "http://127.0.0.1:1/webhooks/partner-api"})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(sb)
	defer srv.Close()
	api, err := apiclient.New(srv.URL, demo.APIKey, apiclient.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return err
	}
	syncer := &userstate.Syncer{API: api, Store: st, Now: time.Now}
	if _, err := syncer.Import(ctx, web.DemoPeople(demo, time.Now())); err != nil {
		return fmt.Errorf("webtest: import the demo company: %w", err)
	}
	return nil
}

// usdAccountHolders picks, from the demo's people, the employees seeded with
// a USD onboarding status. The sandbox makes their USD account when it is
// first read, with ids (and so account numbers) of its own, and starts its
// clock then: importing them again makes each test's sandbox do so in New,
// as a full import would, and mirrors this sandbox's account details
// instead of the template's.
func usdAccountHolders(demo sandbox.DemoInfo, people []store.Employee) []store.Employee {
	usd := map[string]bool{}
	for _, e := range demo.Employees {
		if e.ServiceUserID != "" && e.Onboarding["USD"] != "" {
			usd[e.ServiceUserID] = true
		}
	}
	var out []store.Employee
	for _, p := range people {
		if p.Kind == store.KindEmployee && usd[p.ServiceUserID] {
			out = append(out, p)
		}
	}
	return out
}

// New starts the app on a fresh database.
func New(t testing.TB, opts Options) *Env {
	t.Helper()
	ctx := context.Background()
	dsn, doImport, fromTemplate := envDatabase(t, opts)
	pool, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	logs := &LogBuffer{}
	logger := web.NewLogger(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := httptest.NewUnstartedServer(nil)
	cfg := envConfig(t, opts, srv.Listener.Addr().String())
	sb, demo, sandboxURL, sbSrv := envSandbox(t, opts, cfg, logger)
	metrics, err := web.NewMetrics()
	if err != nil {
		t.Fatal(err)
	}
	api, err := apiclient.New(sandboxURL, demo.APIKey, apiclient.WithLogger(logger), apiclient.WithObserver(metrics.ObserveAPI))
	if err != nil {
		t.Fatal(err)
	}
	up := web.Upstream{Sandbox: true, BaseURL: sandboxURL, Probe: func(ctx context.Context) error {
		_, err := api.SupportedCurrencies(ctx)
		return err
	}}
	if opts.Upstream != nil {
		up = *opts.Upstream
	}
	st := store.New(pool)
	if doImport || fromTemplate {
		people := web.DemoPeople(demo, time.Now())
		if fromTemplate {
			people = usdAccountHolders(demo, people)
		}
		syncer := &userstate.Syncer{API: api, Store: st, Now: time.Now}
		if _, err := syncer.Import(ctx, people); err != nil {
			t.Fatal(err)
		}
	}
	app, err := web.New(web.Deps{Config: cfg, Store: st, Logger: logger, Upstream: up, API: api, Now: opts.Now, Metrics: metrics})
	if err != nil {
		t.Fatal(err)
	}
	if opts.StartWorkers {
		wctx, cancel := context.WithCancel(ctx)
		if err := app.Start(wctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sctx, c := context.WithTimeout(ctx, 10*time.Second)
			defer c()
			_ = app.Stop(sctx)
			cancel()
		})
	}
	srv.Config.Handler = app.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return &Env{T: t, App: app, Server: srv, Store: st, Config: cfg, Logs: logs,
		Sandbox: sb, SandboxURL: sandboxURL, SandboxHTTP: sbSrv, API: api, Demo: demo, DatabaseURL: dsn, Metrics: metrics}
}

// envDatabase is the test's database: its own, the first replica's, or a
// fresh copy of the demo template (or of the migrated one, when the demo
// must be imported from a sandbox set up differently, or not at all).
func envDatabase(t testing.TB, opts Options) (dsn string, doImport, fromTemplate bool) {
	dsn = opts.DatabaseURL
	if opts.ReplicaOf != nil {
		dsn = opts.ReplicaOf.DatabaseURL
	}
	doImport = !opts.SkipDemoImport && opts.ReplicaOf == nil
	if dsn == "" {
		if doImport && reflect.ValueOf(opts.SandboxOptions).IsZero() {
			return DemoDatabase(t), false, true
		}
		dsn = MigratedDatabase(t)
	}
	return dsn, doImport, false
}

// envConfig is the app's configuration for a test server at addr.
func envConfig(t testing.TB, opts Options, addr string) web.Config {
	cfg := web.Config{Addr: addr, PublicOrigin: "http://" + addr,
		TrustedProxies: opts.TrustedProxies, SignLinkTemplate: opts.SignLinkTemplate, WebhookBodyRetention: opts.WebhookBodyRetention,
		EncryptionKey: opts.EncryptionKey, SMTPURL: web.Secret(opts.SMTPURL), ChatWebhookURL: web.Secret(opts.ChatWebhookURL),
		OIDCIssuer: opts.OIDCIssuer, OIDCClientID: opts.OIDCClientID, OIDCClientSecret: web.Secret(opts.OIDCClientSecret),
		OIDCProviderName: opts.OIDCProviderName}
	if opts.ReplicaOf != nil {
		if opts.ReplicaOf.Config.EncryptionKey == "" {
			t.Fatal("webtest: give the first replica an EncryptionKey: replicas must share it")
		}
		cfg.EncryptionKey = opts.ReplicaOf.Config.EncryptionKey
	}
	if opts.LocalhostOrigin {
		_, port, _ := strings.Cut(addr, ":")
		cfg.PublicOrigin = "http://localhost:" + port
	}
	return cfg
}

// envSandbox is the first replica's sandbox, or a new one seeded with the
// demo company and served over HTTP.
func envSandbox(t testing.TB, opts Options, cfg web.Config, logger *slog.Logger) (*sandbox.Server, sandbox.DemoInfo, string, *httptest.Server) {
	if r := opts.ReplicaOf; r != nil {
		return r.Sandbox, r.Demo, r.SandboxURL, r.SandboxHTTP
	}
	sbOpts := opts.SandboxOptions
	sbOpts.Control, sbOpts.Local = true, true
	sbOpts.Logger = logger.With("component", "sandbox")
	sb, err := sandbox.New(sbOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	demo, err := sandbox.SeedDemo(sb, sandbox.DemoOptions{CallbackURL: cfg.PublicOrigin + "/webhooks/partner-api"})
	if err != nil {
		t.Fatal(err)
	}
	sbSrv := httptest.NewServer(sb)
	t.Cleanup(sbSrv.Close)
	return sb, demo, sbSrv.URL, sbSrv
}

// URL returns the absolute URL of a path.
func (e *Env) URL(path string) string { return e.Server.URL + path }

// LocalhostURL returns the absolute URL of a path at the public origin
// (Options.LocalhostOrigin).
func (e *Env) LocalhostURL(path string) string { return e.Config.PublicOrigin + path }

// Client returns an HTTP client with its own cookie jar that does not follow
// redirects, so tests see the 303s.
func (e *Env) Client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Staff is a staff account created for a test, with its password.
type Staff struct {
	store.Staff
	Password string
}

// CreateStaff adds a staff member with a role and a known password.
func (e *Env) CreateStaff(role store.Role) Staff {
	e.T.Helper()
	n := e.seq.Add(1)
	password := fmt.Sprintf("correct horse %d battery", n)
	s, err := e.Store.CreateStaff(context.Background(), store.NewStaff{
		Email: fmt.Sprintf("%s%d@partner.example", strings.ReplaceAll(string(role), "_", "-"), n),
		Name:  fmt.Sprintf("%s %d", role.Label(), n), PasswordHash: cheapPasswordHash(password), Role: role,
	}, store.Actor{Email: "test"})
	if err != nil {
		e.T.Fatal(err)
	}
	return Staff{Staff: s, Password: password}
}

// cheapPasswordHash hashes a test account's password as the app does
// (argon2id in PHC form) but at the lowest cost argon2id allows. The app
// reads the cost from the stored hash (handlers.CheckPassword), so signing
// in through the form runs the real check, only without the production
// cost: two full-cost hashes per account made no test more telling, and
// their memory budget made parallel sign-ins wait.
func cheapPasswordHash(password string) string {
	const memory, time, threads = 8, 1, 1 // KiB; argon2id's minimum is 8 KiB per thread
	salt := make([]byte, 16)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails
	key := argon2.IDKey([]byte(password), salt, time, memory, threads, 32)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, memory, time, threads, enc.EncodeToString(salt), enc.EncodeToString(key))
}

// Login signs in through the real form and fails the test if it does not
// redirect.
func (e *Env) Login(c *http.Client, email, password string) {
	e.T.Helper()
	resp := e.PostForm(c, "/login", url.Values{"email": {email}, "password": {password}})
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		b, _ := io.ReadAll(resp.Body)
		e.T.Fatalf("login as %s: status %d: %s", email, resp.StatusCode, b)
	}
}

// SignedIn returns a client signed in as a new staff member of the role.
func (e *Env) SignedIn(role store.Role) (*http.Client, Staff) {
	e.T.Helper()
	s := e.CreateStaff(role)
	c := e.Client()
	e.Login(c, s.Email, s.Password)
	return c, s
}

// Get sends a GET.
func (e *Env) Get(c *http.Client, path string) *http.Response {
	e.T.Helper()
	return e.Do(c, http.MethodGet, path, nil, nil)
}

// PostForm sends a same-origin form POST, as a browser on this site would.
func (e *Env) PostForm(c *http.Client, path string, form url.Values) *http.Response {
	e.T.Helper()
	return e.Do(c, http.MethodPost, path, strings.NewReader(form.Encode()), http.Header{
		"Content-Type": {"application/x-www-form-urlencoded"},
	})
}

// PostFormAtOnce posts one form n times at once, as a double click or
// several tabs would, and counts the answers by status code.
func (e *Env) PostFormAtOnce(c *http.Client, path string, form url.Values, n int) map[int]int {
	e.T.Helper()
	return AtOnce(n, func(int) int {
		resp := e.PostForm(c, path, form)
		resp.Body.Close()
		return resp.StatusCode
	})
}

// AtOnce runs do(0) … do(n-1) in n goroutines released together, and counts
// the status codes they return.
func AtOnce(n int, do func(i int) int) map[int]int {
	var wg sync.WaitGroup
	codes := make(chan int, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			codes <- do(i)
		})
	}
	close(start)
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for code := range codes {
		got[code]++
	}
	return got
}

// Do sends a request with Sec-Fetch-Site: same-origin (as browsers do).
func (e *Env) Do(c *http.Client, method, path string, body io.Reader, h http.Header) *http.Response {
	e.T.Helper()
	req, err := http.NewRequest(method, e.URL(path), body)
	if err != nil {
		e.T.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if req.Header.Get("Sec-Fetch-Site") == "" {
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	resp, err := c.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	return resp
}

// Doc parses an HTML response (and closes its body).
func Doc(t testing.TB, resp *http.Response) *goquery.Document {
	t.Helper()
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// FormToken returns the one-time token of the form matched by selector on
// the page at path, as the browser would post it.
func (e *Env) FormToken(c *http.Client, path, selector string) string {
	e.T.Helper()
	doc := Doc(e.T, e.Get(c, path))
	tok, ok := doc.Find(selector).Find(`input[name="form_token"]`).Attr("value")
	if !ok || tok == "" {
		e.T.Fatalf("no form token in %q on %s", selector, path)
	}
	return tok
}

// TestID returns the text of the element with a data-testid.
func TestID(doc *goquery.Document, id string) string {
	return strings.TrimSpace(doc.Find(`[data-testid="` + id + `"]`).Text())
}

// LogBuffer collects log output for assertions (safe for concurrent use).
type LogBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
