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
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pquerna/otp/totp"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers/approvals"
	"partneradmin/handlers/cards"
	"partneradmin/handlers/userstate"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/store/localpg"
	"partneradmin/web"
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
	cfg, say := b.cfg, b.say
	sr = sizeReport{Employees: n, Wallets: max(1, n/5), PayrollRuns: cfg.PayrollRuns, Events: n * cfg.EventsPerYear}
	dbName := fmt.Sprintf("partner_admin_%d", n)
	if _, err := b.admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{dbName}.Sanitize()+" TEMPLATE "+pgx.Identifier{templateDB}.Sanitize()); err != nil {
		return sr, fmt.Errorf("create database: %w", err)
	}
	defer func() {
		if _, dropErr := b.admin.Exec(context.WithoutCancel(ctx), "DROP DATABASE "+pgx.Identifier{dbName}.Sanitize()+" WITH (FORCE)"); dropErr != nil {
			err = errors.Join(err, fmt.Errorf("drop database: %w", dropErr))
		}
	}()
	dsn := b.cluster.ConnString(dbName)
	pool, err := store.Open(ctx, dsn)
	if err != nil {
		return sr, err
	}
	defer pool.Close()
	dir := filepath.Join(b.tmp, strconv.Itoa(n))

	// The sandbox, started from a state that holds the demo company and
	// the bench's employees, wallets, proposals and cards.
	statePath := filepath.Join(dir, "sandbox", "state.json")
	if err := os.MkdirAll(filepath.Dir(statePath), 0o700); err != nil {
		return sr, err
	}
	seed, err := seedSandboxState(statePath, sr.Wallets, cfg.CardsPerWallet)
	if err != nil {
		return sr, err
	}
	sr.Cards = len(seed.Cards)
	sb, err := sandbox.New(sandbox.Options{Control: true, Local: true, StatePath: statePath, LoadOnly: true, Logger: b.quiet})
	if err != nil {
		return sr, err
	}
	defer sb.Close()
	demo := seed.Demo
	sbLn, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return sr, err
	}
	sbSrv := &http.Server{Handler: sb, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = sbSrv.Serve(sbLn) }()
	defer func() { _ = sbSrv.Close() }()
	sbURL := "http://" + sbLn.Addr().String()

	// The app's database: the demo company imported as the app imports it,
	// then the bulk of the company.
	api, err := apiclient.New(sbURL, demo.APIKey)
	if err != nil {
		return sr, err
	}
	if _, err := (&userstate.Syncer{API: api, Store: store.New(pool), Now: time.Now}).Import(ctx, web.DemoPeople(demo, time.Now())); err != nil {
		return sr, fmt.Errorf("import demo company: %w", err)
	}
	say("%s employees: sandbox started from the seeded state; demo company imported", thousands(n))
	t0 := time.Now()
	if sr.Seed, err = seedApp(ctx, pool, seed, n, sr.Events, cfg.PayrollRuns, say); err != nil {
		return sr, err
	}
	sr.SeedTook = time.Since(t0)
	say("seeded %s in %s", sr.seeded(), sr.SeedTook.Round(time.Millisecond))

	// The mirror of a company that has run for a while: every wallet's
	// proposals read and every card indexed, by the app's own code, as
	// the queue's refresh and the card index refresh read them (the
	// periodic sync reads only the busy wallets and a slow sweep of the
	// rest, so a fresh database would take hours to fill).
	t0 = time.Now()
	st := store.New(pool)
	if _, err := (&approvals.Syncer{API: api, Store: st, Logger: b.quiet, Clock: time.Now}).SyncAll(ctx); err != nil {
		return sr, fmt.Errorf("mirror the proposals: %w", err)
	}
	sr.MirrorTook = time.Since(t0)
	t0 = time.Now()
	if _, err := cards.NewIndexer(st, api, b.quiet, time.Now).RefreshAll(ctx); err != nil {
		return sr, fmt.Errorf("index the cards: %w", err)
	}
	sr.IndexTook = time.Since(t0)
	say("every wallet's proposals read in %s, every card indexed in %s", sr.MirrorTook.Round(time.Millisecond), sr.IndexTook.Round(time.Millisecond))

	// The app, as child processes pointed at the private PostgreSQL and
	// the sandbox: one, or --replicas of them behind a round-robin
	// balancer, started one after the other (the first creates the owner).
	password, encryptionKey := randomHex(16), randomHex(32)
	pprofURL := ""
	// The periodic jobs counted are those of the apps' lifetime, their
	// runs at start included.
	jobsSince := time.Now()
	replicas := max(1, cfg.Replicas)
	var apps []*child
	defer func() {
		for _, a := range apps {
			a.stop()
		}
	}()
	var addrs []string
	for i := range replicas {
		port, err := freeLoopbackPort()
		if err != nil {
			return sr, err
		}
		env := append(os.Environ(),
			"ADDR=127.0.0.1:"+strconv.Itoa(port), "DATA_DIR="+filepath.Join(dir, fmt.Sprintf("app%d", i+1)), "PUBLIC_ORIGIN=",
			"DATABASE_URL="+dsn, "PARTNER_API_BASE_URL="+sbURL, "PARTNER_API_KEY="+demo.APIKey,
			"OWNER_EMAIL="+ownerEmail, "OWNER_PASSWORD="+password, "ENCRYPTION_KEY="+encryptionKey, "LOG_LEVEL=warn",
			"TRUSTED_PROXIES=", "SIGN_LINK_TEMPLATE=")
		if cfg.PprofDir != "" && i == 0 && last {
			pp, err := freeLoopbackPort()
			if err != nil {
				return sr, err
			}
			addr := "127.0.0.1:" + strconv.Itoa(pp)
			env, pprofURL = append(env, "BENCH_PPROF_ADDR="+addr), "http://"+addr
		}
		logName := "app.log"
		if replicas > 1 {
			logName = fmt.Sprintf("app%d.log", i+1)
		}
		a, err := startChild(ctx, "partner-admin", filepath.Join(b.bin, "partner-admin"), nil, env, filepath.Join(dir, logName), cfg.WaitBoot)
		if err != nil {
			return sr, err
		}
		apps, addrs = append(apps, a), append(addrs, a.addr)
		say("app listening at http://%s (pid %d)", a.addr, a.cmd.Process.Pid)
	}
	app := apps[0]
	appURL := "http://" + app.addr
	var balancer *roundRobin
	if replicas > 1 {
		if balancer, err = startRoundRobin(ctx, addrs); err != nil {
			return sr, err
		}
		defer balancer.close()
		appURL = balancer.URL
		say("round-robin balancer over %d replicas at %s", replicas, appURL)
	}

	owner := newClient()
	totpKey, err := signIn(ctx, owner, appURL, ownerEmail, password)
	if err != nil {
		return sr, fmt.Errorf("%w; app log: %s", err, app.tail())
	}
	secret, err := subscribe(ctx, owner, appURL)
	if err != nil {
		return sr, err
	}
	say("signed in as owner; webhook subscription created, its secret read from the page")

	// Every proposal and card is in the mirror (checked, in case the
	// app's start changed it).
	if err := waitMirror(ctx, pool, seed, cfg.WaitForJobs); err != nil {
		return sr, fmt.Errorf("%w; app log: %s", err, app.tail())
	}

	// The pages, their bytes captured once for the bare handler.
	pages := pagesFor(n, seed)
	pages = slices.DeleteFunc(pages, func(p page) bool { return !cfg.wants(p.Name) })
	if len(pages) == 0 && !cfg.wants(webhookRow) && !cfg.wants(payrollRow) && !cfg.wants(fileRow) {
		return sr, fmt.Errorf("--only %s: no page or row name contains any of these words", strings.Join(cfg.Only, ","))
	}
	pagesDir := filepath.Join(dir, "pages")
	if err := os.MkdirAll(pagesDir, 0o700); err != nil {
		return sr, err
	}
	var list bareFile
	for i, p := range pages {
		body, ctype, err := capture(ctx, owner, appURL+p.URI)
		if err != nil {
			return sr, err
		}
		file := fmt.Sprintf("page%02d.html", i)
		if err := os.WriteFile(filepath.Join(pagesDir, file), body, 0o600); err != nil {
			return sr, err
		}
		list.Pages = append(list.Pages, barePage{URI: p.URI, File: file, ContentType: ctype})
		sr.Pages = append(sr.Pages, pageStats{page: p, Bytes: len(body)})
	}
	listJSON, _ := json.Marshal(list)
	listPath := filepath.Join(pagesDir, "pages.json")
	if err := os.WriteFile(listPath, listJSON, 0o600); err != nil {
		return sr, err
	}
	bare, err := startChild(ctx, "bare handler", filepath.Join(b.bin, "bench"), []string{"--bare-serve", "--pages", listPath, "--addr", "127.0.0.1:0"},
		os.Environ(), filepath.Join(dir, "bare.log"), 30*time.Second)
	if err != nil {
		return sr, err
	}
	defer bare.stop()
	bareURL := "http://" + bare.addr
	say("bare handler listening at %s; %d pages captured", bareURL, len(pages))

	// Load: deliveries trickle in; a warm-up round, then rounds of every
	// page against the app and against the bare handler. The sandbox
	// counts the API reads meanwhile.
	trickle := startTrickle(ctx, appURL, secret, "trickle-"+randomHex(4), seed, cfg.TrickleRate)
	sb.ResetRequestCounts()
	readsFrom := time.Now()
	bareClient := newClient()
	meter := cpuMeter{pgData: filepath.Join(b.tmp, "pg")}
	for _, a := range apps {
		meter.appPids = append(meter.appPids, a.cmd.Process.Pid)
	}
	for round := -1; round < cfg.Rounds && len(sr.Pages) > 0; round++ {
		for i := range sr.Pages {
			ps := &sr.Pages[i]
			appFor, bareFor := cfg.AppRound, cfg.BareRound
			if round < 0 {
				appFor, bareFor = cfg.Warmup, cfg.Warmup
			}
			var prof chan error
			if pprofURL != "" && round == 0 {
				prof = make(chan error, 1)
				file := filepath.Join(cfg.PprofDir, fmt.Sprintf("page%02d-%s.pprof", i, slug(ps.Name)))
				go func() { prof <- cpuProfile(ctx, pprofURL, max(1, int(appFor/time.Second)), file) }()
			}
			before := meter.read()
			a, err := drive(ctx, owner, appURL+ps.URI, http.StatusOK, cfg.Conns, appFor)
			a.perRequest(before, meter.read())
			if prof != nil {
				if perr := <-prof; perr != nil {
					say("%s: no CPU profile: %v", ps.Name, perr)
				}
			}
			if err != nil {
				return sr, fmt.Errorf("%s: %w; app log: %s", ps.Name, err, app.tail())
			}
			bb, err := drive(ctx, bareClient, bareURL+ps.URI, http.StatusOK, cfg.Conns, bareFor)
			if err != nil {
				return sr, fmt.Errorf("%s (bare): %w", ps.Name, err)
			}
			if round >= 0 {
				ps.App, ps.Bare = append(ps.App, a), append(ps.Bare, bb)
			}
		}
		if round < 0 {
			say("warm-up done")
		} else {
			say("round %d of %d done", round+1, cfg.Rounds)
		}
	}
	sr.ReadsFor = time.Since(readsFrom)
	sr.SyncReads, sr.APIReads, err = apiReads(ctx, sbURL)
	if err != nil {
		return sr, err
	}
	if sr.Trickle, err = trickle.finish(ctx, pool, cfg.WaitForDrain); err != nil {
		return sr, err
	}
	say("%d deliveries trickled in at %d/s while the pages were measured: %d lost, %d processed twice; API reads %.0f/min, of proposals %.0f/min",
		sr.Trickle.Sent, cfg.TrickleRate, sr.Trickle.Lost, sr.Trickle.ProcessedTwo, perMinute(sr.APIReads, sr.ReadsFor), perMinute(sr.SyncReads, sr.ReadsFor))

	if last {
		if err := b.extras(ctx, appURL, secret, pool, owner, seed, n, pprofURL); err != nil {
			return sr, fmt.Errorf("%w; app log: %s", err, app.tail())
		}
	}
	for _, a := range apps {
		if a.exited() {
			return sr, fmt.Errorf("an app process exited during the run: %s", a.tail())
		}
	}
	if last && balancer != nil {
		b.rep.Replicas = &replicaChecks{}
		if err := checkReplicas(ctx, b.rep.Replicas, apps, balancer, owner, pool, jobsSince); err != nil {
			return sr, err
		}
		say("replicas: requests per replica %v; a session works on each and a sign-out through the balancer ends it on each", b.rep.Replicas.Served)
	}
	for _, a := range apps {
		kib, err := peakRSS(a.cmd.Process.Pid)
		if err != nil {
			return sr, err
		}
		if last {
			b.rep.ReplicaRSSKiB = append(b.rep.ReplicaRSSKiB, kib)
		}
		sr.PeakRSSKiB = max(sr.PeakRSSKiB, kib)
	}
	if !last {
		return sr, nil
	}
	// The table, printed while the last size still runs (for --hold).
	rep := b.rep
	rep.Sizes = append(rep.Sizes, sr)
	rep.PeakRSSKiB = max(rep.PeakRSSKiB, sr.PeakRSSKiB)
	rep.Took = time.Since(rep.Started)
	rep.Table = rep.format()
	rep.Sizes = rep.Sizes[:len(rep.Sizes)-1] // run appends it again
	fmt.Fprint(b.stdout, rep.Table)
	if cfg.Hold {
		hold := holdEnv(b.tmp, dsn, appURL, password, totpKey)
		if err := os.WriteFile(hold.path, []byte(hold.body), 0o600); err != nil {
			return sr, err
		}
		say("holding until interrupted (app pid %d); the database's and the app's addresses and the owner's sign-in are in %s", app.cmd.Process.Pid, hold.path)
		<-ctx.Done()
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
