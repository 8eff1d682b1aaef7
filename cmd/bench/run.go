package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pquerna/otp/totp"

	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/store/localpg"
)

// config is what one run measures and for how long.
type config struct {
	Name string
	// Command is how the run was started, for the table's heading.
	Command string
	// Sizes are the companies measured in turn, in employees; each has a
	// fifth as many wallets, CardsPerWallet cards a wallet, EventsPerYear
	// money events a year per employee and PayrollRuns monthly runs.
	Sizes                                      []int
	CardsPerWallet, EventsPerYear, PayrollRuns int
	Conns, Rounds                              int
	Warmup, AppRound, BareRound                time.Duration
	// TrickleRate is how many signed deliveries a second arrive while the
	// pages are measured.
	TrickleRate int
	// Deliveries are sent by Conns senders within WebhooksFor at the last
	// size (at most).
	Deliveries  int
	WebhooksFor time.Duration
	// PayrollRows is the payroll run checked and sent at the last size;
	// FileRows the larger of the two files checked (the other a tenth).
	// The app's own limits of a file cap both.
	PayrollRows, FileRows int
	// PayrollWait is how long past the budget's time for its proposals
	// the payroll run is waited for (then the rate so far is the figure).
	PayrollWait                         time.Duration
	WaitForJobs, WaitForDrain, WaitBoot time.Duration
	// Only, when set, keeps the pages whose names contain one of these
	// words, and the extra rows (webhookRow, payrollRow, fileRow) a word
	// names.
	Only []string
	// Hold keeps the last size running after the table until ctx ends.
	Hold bool
	// PprofDir, when set, receives a CPU profile of each page's first
	// round at the last size (the app built with the benchpprof tag).
	PprofDir string
	// Replicas is how many app processes share the database (0 or 1: one);
	// more than one are reached through a round-robin balancer.
	Replicas int
}

// The extra rows, by the names --only matches.
const (
	webhookRow = "webhook receiver"
	payrollRow = "payroll run"
	fileRow    = "file check"
)

// wants reports whether the run measures the page or row named name.
func (c config) wants(name string) bool {
	if len(c.Only) == 0 {
		return true
	}
	for _, w := range c.Only {
		if strings.Contains(strings.ToLower(name), w) {
			return true
		}
	}
	return false
}

func fullConfig() config {
	return config{Name: "full", Sizes: []int{1000, 10000, 100000}, CardsPerWallet: 5, EventsPerYear: 10, PayrollRuns: 12,
		Conns: 32, Rounds: 2, Warmup: 300 * time.Millisecond, AppRound: time.Second, BareRound: 400 * time.Millisecond,
		TrickleRate: 100, Deliveries: 30000, WebhooksFor: 8 * time.Second, PayrollRows: 10000, FileRows: 10000, PayrollWait: 15 * time.Second,
		WaitForJobs: 4 * time.Minute, WaitForDrain: 2 * time.Minute, WaitBoot: 2 * time.Minute}
}

func quickConfig() config {
	return config{Name: "quick", Sizes: []int{1000}, CardsPerWallet: 5, EventsPerYear: 10, PayrollRuns: 3,
		Conns: 32, Rounds: 2, Warmup: 150 * time.Millisecond, AppRound: 300 * time.Millisecond, BareRound: 150 * time.Millisecond,
		TrickleRate: 100, Deliveries: 3000, WebhooksFor: 1500 * time.Millisecond, PayrollRows: 100, FileRows: 500, PayrollWait: 2 * time.Minute,
		WaitForJobs: time.Minute, WaitForDrain: time.Minute, WaitBoot: time.Minute}
}

// page is one page under load.
type page struct {
	Name string
	URI  string
	// List marks a list page (or the queue): its p50 at ten times the
	// company stays within listGrowth of its p50 before.
	List bool
}

// pageStats are a page's rounds against the app and the bare handler.
type pageStats struct {
	page
	Bytes     int
	App, Bare []roundResult
}

// sizeReport is what one size measured.
type sizeReport struct {
	Employees, Wallets, Cards, Events, PayrollRuns int
	// Seed is each seeding step and its time, in order; SeedTook all of
	// them with the final VACUUM ANALYZE.
	Seed     []seedStep
	SeedTook time.Duration
	// MirrorTook is how long the approvals sync took to read every
	// wallet's proposals (SyncAll, the queue's refresh), and IndexTook the
	// card index's refresh of every wallet, before the app started.
	MirrorTook, IndexTook time.Duration
	Pages                 []pageStats
	Trickle               trickleResult
	// SyncReads are the API's proposal reads (the approvals sync's) and
	// APIReads every API read, counted by the sandbox over ReadsFor while
	// the pages were measured.
	SyncReads, APIReads int
	ReadsFor            time.Duration
	PeakRSSKiB          int64
}

// employeesInsert is the time the seed took to insert the employees.
func (s sizeReport) employeesInsert() time.Duration {
	for _, st := range s.Seed {
		if st.What == "employees" {
			return st.Took
		}
	}
	return 0
}

// perMinute is n counted over d, a minute's worth.
func perMinute(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Minutes()
}

// report is everything one run measured.
type report struct {
	Config  config
	Started time.Time
	Took    time.Duration
	Machine string
	Sizes   []sizeReport
	// At the last size; nil when not measured.
	Webhooks *webhookResult
	Payroll  *payrollResult
	Files    *fileResult
	// PeakRSSKiB is the largest peak RSS of an app process at any size.
	PeakRSSKiB int64
	// Replicas holds what --replicas checked at the last size (nil with
	// one replica), and ReplicaRSSKiB each replica's peak RSS there.
	Replicas      *replicaChecks
	ReplicaRSSKiB []int64
	Table         string
}

const ownerEmail = "owner@bench.example"

// bench is one run's shared parts: the binaries, the PostgreSQL cluster
// and the migrated template every size's database is copied from.
type bench struct {
	cfg      config
	rep      *report
	tmp, bin string
	cluster  *localpg.Cluster
	admin    *pgxpool.Pool // the cluster's postgres database
	quiet    *slog.Logger
	say      func(string, ...any)
	stdout   io.Writer
}

// templateDB is migrated once; each size's database is a copy.
const templateDB = "partner_admin_template"

// run builds the app and the bench, starts PostgreSQL and migrates a
// template database, then measures each size in turn, prints the table to
// stdout (and progress to stderr), and stops everything it started.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) (rep *report, err error) {
	if len(cfg.Sizes) == 0 {
		return nil, errors.New("no size to measure")
	}
	rep = &report{Config: cfg, Started: time.Now(), Machine: machine()}
	b := &bench{cfg: cfg, rep: rep, quiet: slog.New(slog.DiscardHandler), stdout: stdout}
	b.say = func(format string, a ...any) {
		fmt.Fprintf(stderr, "bench %5.1fs: %s\n", time.Since(rep.Started).Seconds(), fmt.Sprintf(format, a...))
	}
	if b.tmp, err = os.MkdirTemp("", "partner-admin-bench-"); err != nil {
		return nil, err
	}
	defer func() {
		if rmErr := os.RemoveAll(b.tmp); rmErr != nil {
			b.say("could not remove %s: %v", b.tmp, rmErr)
		}
	}()

	// The binaries: the app as it ships, and this bench for the bare mode.
	root, err := moduleRoot(ctx)
	if err != nil {
		return nil, err
	}
	b.bin = filepath.Join(b.tmp, "bin")
	buildArgs := []string{"build", "-o", b.bin + string(filepath.Separator)}
	if cfg.PprofDir != "" {
		if err := os.MkdirAll(cfg.PprofDir, 0o755); err != nil {
			return nil, err
		}
		buildArgs = append(buildArgs, "-tags", "benchpprof")
	}
	build := exec.CommandContext(ctx, "go", append(buildArgs, "./cmd/partner-admin", "./cmd/bench")...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %w: %s", err, out)
	}
	b.say("built ./cmd/partner-admin and ./cmd/bench")

	if b.cluster, err = localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(b.tmp, "pg"), Logger: b.quiet}); err != nil {
		return nil, err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		err = errors.Join(err, b.cluster.Stop(stopCtx))
	}()
	if err := b.cluster.EnsureDatabase(ctx, templateDB); err != nil {
		return nil, err
	}
	tpl, err := store.Open(ctx, b.cluster.ConnString(templateDB))
	if err != nil {
		return nil, err
	}
	err = store.Migrate(ctx, tpl, b.quiet)
	tpl.Close() // a template is copied only with no one connected
	if err != nil {
		return nil, err
	}
	if b.admin, err = store.Open(ctx, b.cluster.ConnString("postgres")); err != nil {
		return nil, err
	}
	defer b.admin.Close()
	b.say("PostgreSQL %s up, template migrated", b.cluster.Version())

	for i, n := range cfg.Sizes {
		sr, err := b.measureSize(ctx, n, i == len(cfg.Sizes)-1)
		if err != nil {
			return nil, fmt.Errorf("%s employees: %w", thousands(n), err)
		}
		rep.Sizes = append(rep.Sizes, sr)
		rep.PeakRSSKiB = max(rep.PeakRSSKiB, sr.PeakRSSKiB)
	}
	return rep, nil
}

// machine is the CPU count and model this run measured on.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (nproc), %s", runtimeCPUs(), model)
}

// measureSize seeds a company of n employees into a fresh copy of the
// template and a fresh sandbox, starts the app on it, and measures its
// pages while deliveries trickle in; at the last size also the webhook
// receiver, a payroll run and the file checks, then prints the table (and,
// with --hold, waits until ctx ends).
func (b *bench) measureSize(ctx context.Context, n int, last bool) (sr sizeReport, err error) {
	sr = sizeReport{Employees: n, Wallets: max(1, n/5), PayrollRuns: b.cfg.PayrollRuns, Events: n * b.cfg.EventsPerYear}
	z := &sizeRun{b: b, n: n, last: last}
	defer func() { err = errors.Join(err, z.close(context.WithoutCancel(ctx))) }()
	if err := z.seed(ctx, &sr); err != nil {
		return sr, err
	}
	if err := z.startApps(ctx); err != nil {
		return sr, err
	}
	if err := z.measurePages(ctx, &sr); err != nil {
		return sr, err
	}
	if err := z.finish(ctx, &sr); err != nil {
		return sr, err
	}
	return sr, nil
}

// extras measures, at the last size, what --only names of the webhook
// receiver, the payroll run and the file checks.
func (b *bench) extras(ctx context.Context, appURL, secret string, pool *pgxpool.Pool, owner *http.Client, seed seeded, n int, pprofURL string) error {
	cfg, say := b.cfg, b.say
	if cfg.wants(webhookRow) {
		prefix := "bench-" + randomHex(4)
		dl := deliveries(prefix, cfg.Deliveries, seed.Cards, seed.Users)
		var whProf chan error
		if pprofURL != "" {
			whProf = make(chan error, 1)
			file := filepath.Join(cfg.PprofDir, "webhooks.pprof")
			go func() { whProf <- cpuProfile(ctx, pprofURL, max(1, int(cfg.WebhooksFor/time.Second)), file) }()
		}
		w, err := driveWebhooks(ctx, appURL, secret, pool, dl, cfg.Conns, cfg.WebhooksFor, cfg.WaitForDrain, prefix)
		if whProf != nil {
			if perr := <-whProf; perr != nil {
				say("webhooks: no CPU profile: %v", perr)
			}
		}
		if err != nil {
			return err
		}
		b.rep.Webhooks = &w
		say("webhooks: %.0f/s acknowledged, %d stored, %d processed (%.0f/s)", w.RPS(), w.Stored, w.Processed, w.ProcessedRate())
	}
	if cfg.wants(payrollRow) || cfg.wants(fileRow) {
		p, f, err := measurePayrollAndFiles(ctx, owner, appURL, pool, n, len(seed.Users), cfg, say)
		if err != nil {
			return err
		}
		b.rep.Payroll, b.rep.Files = p, f
	}
	return nil
}

// pagesFor are the pages measured at a company of n employees.
func pagesFor(n int, seed seeded) []page {
	num := len(seed.Wallets)/2 + 21
	// A rare search: a prefix of ten people's emails (person04210 …
	// person04219 of 100,000), at the same place in every size.
	rare := fmt.Sprintf("person%04d", max(1, n*421/100000))
	return []page{
		{"dashboard", "/", false},
		{"employees, first page", "/employees", true},
		{"employees, rare search", "/employees?q=" + rare, true},
		{"employees, common word", "/employees?q=person", true},
		{"readiness matrix", "/employees/readiness", true},
		{"approval queue", "/approvals", true},
		{"proposal page", "/approvals/" + seed.Proposals[len(seed.Proposals)/2], false},
		{"card search", "/cards?q=" + url.QueryEscape(fmt.Sprintf("person%05d", num)), true},
		{"card page", "/cards/" + seed.Cards[len(seed.Cards)/2], false},
		{"treasury", "/treasury", false},
		{"money out", "/money-out", true},
		{"payroll", "/payroll", true},
		{"activity", "/activity", true},
	}
}

// apiReads are the API reads the sandbox counted since its counts were
// reset: of proposals (what the approvals sync reads) and all of them.
func apiReads(ctx context.Context, sbURL string) (proposals, all int, err error) {
	body, _, err := capture(ctx, http.DefaultClient, sbURL+"/_sandbox/requests")
	if err != nil {
		return 0, 0, fmt.Errorf("sandbox request counts: %w", err)
	}
	var counts struct {
		Data []struct {
			Method, Route string
			Count         int
		}
	}
	if err := json.Unmarshal(body, &counts); err != nil {
		return 0, 0, fmt.Errorf("sandbox request counts: %w", err)
	}
	for _, c := range counts.Data {
		if c.Method != http.MethodGet {
			continue
		}
		all += c.Count
		if strings.Contains(c.Route, "proposals") {
			proposals += c.Count
		}
	}
	return proposals, all, nil
}

// holdFile is what --hold writes for the developer: the run's throwaway
// database address, app address and owner sign-in, in a file only its user
// reads (never printed).
type holdFile struct{ path, body string }

func holdEnv(tmp, dsn, appURL, password, totpKey string) holdFile {
	return holdFile{path: filepath.Join(tmp, "hold.env"),
		body: "DATABASE_URL='" + dsn + "'\nAPP_URL='" + appURL + "'\nOWNER_EMAIL='" + ownerEmail + "'\nOWNER_PASSWORD='" + password +
			"'\nOWNER_TOTP_KEY='" + totpKey + "'\n"}
}

// checkReplicas fills rc: the balancer's counts, the owner's session on
// each replica, the periodic jobs' runs, and (last, as it ends the owner's
// session) a sign-out through the balancer seen by each replica.
func checkReplicas(ctx context.Context, rc *replicaChecks, apps []*child, balancer *roundRobin, owner *http.Client, pool *pgxpool.Pool, since time.Time) error {
	rc.Served = balancer.counts()
	for i, n := range rc.Served {
		if n == 0 {
			return fmt.Errorf("%w: replica %d was sent no request", errReplicaCheck, i+1)
		}
	}
	var addrs []string
	for _, a := range apps {
		addrs = append(addrs, a.addr)
	}
	if err := checkSessionsOnEveryReplica(ctx, owner, addrs, true); err != nil {
		return fmt.Errorf("%w: %w", errReplicaCheck, err)
	}
	rc.SessionEverywhere = true
	var err error
	if rc.SyncRuns, rc.SyncPeriods, err = periodicRuns(ctx, pool, "approvals_sync", since, approvalsSyncEvery); err != nil {
		return err
	}
	if rc.StaleRuns, rc.StalePeriods, err = periodicRuns(ctx, pool, "mirror_stale_balances", since, staleBalancesEvery); err != nil {
		return err
	}
	if rc.SyncRuns > rc.SyncPeriods+1 || rc.StaleRuns > rc.StalePeriods+1 {
		return fmt.Errorf("%w: periodic jobs ran more than once a period: approvals_sync %d in %d periods, mirror_stale_balances %d in %d",
			errReplicaCheck, rc.SyncRuns, rc.SyncPeriods, rc.StaleRuns, rc.StalePeriods)
	}
	if err := signOut(ctx, owner, balancer.URL); err != nil {
		return err
	}
	if err := checkSessionsOnEveryReplica(ctx, owner, addrs, false); err != nil {
		return fmt.Errorf("%w: %w", errReplicaCheck, err)
	}
	rc.SignedOutEverywhere = true
	return nil
}

// cpuProfile fetches seconds of the app's CPU profile into file.
func cpuProfile(ctx context.Context, base string, seconds int, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, seconds), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: status %d", resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// slug is a page name as a file name: letters and digits, dashes between.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// moduleRoot is the directory of this checkout's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run the bench inside the partner-admin checkout (no go.mod found)")
	}
	return filepath.Dir(gomod), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// signIn signs in through the login form as a person would, and returns
// the authenticator key it enrolled ("" when none was asked for).
func signIn(ctx context.Context, c *http.Client, base, email, password string) (string, error) {
	if _, _, err := capture(ctx, c, base+"/login"); err != nil {
		return "", err
	}
	resp, err := postForm(ctx, c, base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("sign in: status %d", resp.StatusCode)
	}
	// Against a configured Partner API the owner must have a second factor:
	// every page leads to /account/security until one is enrolled. Enrol an
	// authenticator app as a person would.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/", nil)
	if err != nil {
		return "", err
	}
	home, err := c.Do(req)
	if err != nil {
		return "", err
	}
	home.Body.Close()
	key := ""
	if home.StatusCode == http.StatusSeeOther && strings.HasPrefix(home.Header.Get("Location"), "/account/security") {
		if key, err = enrolTOTP(ctx, c, base); err != nil {
			return "", err
		}
	}
	_, _, err = capture(ctx, c, base+"/")
	return key, err
}

// enrolTOTP sets up an authenticator app for the signed-in staff member
// through /account/security: the key the page shows, then a code from it.
// It returns the key.
func enrolTOTP(ctx context.Context, c *http.Client, base string) (string, error) {
	resp, err := postForm(ctx, c, base+"/account/security/totp/start", url.Values{})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		return "", err
	}
	secret := strings.TrimSpace(doc.Find(`[data-testid="totp-secret"]`).Text())
	if secret == "" {
		return "", fmt.Errorf("enrol a second factor: status %d, no key on the page", resp.StatusCode)
	}
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		return "", fmt.Errorf("enrol a second factor: %w", err)
	}
	resp2, err := postForm(ctx, c, base+"/account/security/totp", url.Values{"code": {code}})
	if err != nil {
		return "", err
	}
	resp2.Body.Close()
	if resp2.StatusCode >= 400 {
		return "", fmt.Errorf("enrol a second factor: confirm: status %d", resp2.StatusCode)
	}
	return secret, nil
}

// subscribe creates the webhook subscription on the settings page, as the
// owner would, and reads the secret the page shows once.
func subscribe(ctx context.Context, c *http.Client, base string) (string, error) {
	body, _, err := capture(ctx, c, base+"/settings/webhooks")
	if err != nil {
		return "", err
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	form := doc.Find(`form#webhook-form`)
	token, _ := form.Find(`input[name="form_token"]`).Attr("value")
	var events []string
	form.Find(`input[name="events"]`).Each(func(_ int, s *goquery.Selection) {
		if v, ok := s.Attr("value"); ok {
			events = append(events, v)
		}
	})
	if token == "" || len(events) == 0 {
		return "", errors.New("the webhook settings page has no subscription form")
	}
	resp, err := postForm(ctx, c, base+"/settings/webhooks", url.Values{"form_token": {token}, "callback_url": {base + webhooks.ReceiverPath},
		"events": events})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	doc, err = goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		return "", err
	}
	secret := strings.TrimSpace(doc.Find(`[data-testid="secret-value"]`).Text())
	if resp.StatusCode != http.StatusCreated || secret == "" {
		return "", fmt.Errorf("create webhook subscription: status %d, no secret shown", resp.StatusCode)
	}
	return secret, nil
}

func postForm(ctx context.Context, c *http.Client, u string, form url.Values) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// capture GETs a page and returns its bytes; anything but 200 is an error.
func capture(ctx context.Context, c *http.Client, u string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// waitMirror waits until the app's jobs have mirrored every seeded
// proposal and indexed every seeded card.
func waitMirror(ctx context.Context, pool *pgxpool.Pool, s seeded, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var proposals, cards int
		err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM proposals WHERE id = ANY($1)), (SELECT count(*) FROM cards WHERE id = ANY($2))`,
			s.Proposals, s.Cards).Scan(&proposals, &cards)
		if err != nil {
			return err
		}
		if proposals == len(s.Proposals) && cards == len(s.Cards) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s the app mirrored %d of %d proposals and indexed %d of %d cards", within, proposals, len(s.Proposals), cards, len(s.Cards))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
