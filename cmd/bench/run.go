package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pquerna/otp/totp"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers/mirror"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/store/localpg"
	"partneradmin/web"
)

// config is the size of one run.
type config struct {
	Name                                string
	Employees, Wallets, CardsPerWallet  int
	ActivityDays, EventsPerDay          int
	PayrollRuns                         int
	Conns, Rounds                       int
	Warmup, AppRound, BareRound         time.Duration
	Deliveries                          int // at most, sent within WebhooksFor
	WebhooksFor                         time.Duration
	CeilingFor                          time.Duration
	MirrorRounds                        int
	MirrorLatencies                     []int // ms injected on every proposal list read
	WaitForJobs, WaitForDrain, WaitBoot time.Duration
	// Only, when set, keeps the pages whose names contain one of these
	// words and skips the mirror-refresh rows, and the webhook and ceiling
	// rows unless a word is in webhookRow.
	Only []string
	// Hold keeps everything running after the table until ctx ends.
	Hold bool
	// PprofDir, when set, receives a CPU profile of each page's first
	// round (the app built with the benchpprof tag).
	PprofDir string
	// Replicas is how many app processes share the database (0 or 1: one);
	// more than one are reached through a round-robin balancer.
	Replicas int
}

// webhookRow names the webhook and commit-ceiling rows for --only.
const webhookRow = "webhook receiver and commit ceiling"

// webhooks reports whether the run measures the webhook receiver and the
// commit ceiling: always, or when --only names them.
func (c config) webhooks() bool { return c.wants(webhookRow) }

// wants reports whether the run measures the page named name.
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
	return config{Name: "full", Employees: 10000, Wallets: 2000, CardsPerWallet: 5, ActivityDays: 365, EventsPerDay: 60, PayrollRuns: 12,
		Conns: 32, Rounds: 3, Warmup: 500 * time.Millisecond, AppRound: 1500 * time.Millisecond, BareRound: time.Second,
		Deliveries: 40000, WebhooksFor: 8 * time.Second, CeilingFor: 4 * time.Second, MirrorRounds: 1, MirrorLatencies: []int{0, 50},
		WaitForJobs: 3 * time.Minute, WaitForDrain: 2 * time.Minute, WaitBoot: 2 * time.Minute}
}

func quickConfig() config {
	return config{Name: "quick", Employees: 1000, Wallets: 200, CardsPerWallet: 5, ActivityDays: 30, EventsPerDay: 20, PayrollRuns: 3,
		Conns: 32, Rounds: 2, Warmup: 150 * time.Millisecond, AppRound: 300 * time.Millisecond, BareRound: 150 * time.Millisecond,
		Deliveries: 3000, WebhooksFor: 1500 * time.Millisecond, CeilingFor: time.Second, MirrorRounds: 1, MirrorLatencies: []int{0, 50},
		WaitForJobs: time.Minute, WaitForDrain: time.Minute, WaitBoot: time.Minute}
}

// page is one page under load.
type page struct {
	Name string
	URI  string
}

// pageStats are a page's rounds against the app and the bare handler.
type pageStats struct {
	page
	Bytes     int
	App, Bare []roundResult
}

// mirrorStat is the mirror refresh at one injected latency.
type mirrorStat struct {
	LatencyMs int
	Wallets   int
	Took      []time.Duration
}

// report is everything one run measured.
type report struct {
	Config     config
	Started    time.Time
	Took       time.Duration
	Seeded     string
	Pages      []pageStats
	Webhooks   webhookResult
	CeilingTPS float64
	Mirror     []mirrorStat
	PeakRSSKiB int64
	// Replicas holds what --replicas checked (nil with one replica), and
	// ReplicaRSSKiB each replica's peak RSS.
	Replicas      *replicaChecks
	ReplicaRSSKiB []int64
	Table         string
}

const ownerEmail = "owner@bench.example"

// run builds the app and the bench, starts PostgreSQL, the sandbox, the app
// and the bare handler, seeds, measures, prints the table to stdout (and
// progress to stderr), and stops everything it started.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) (rep *report, err error) {
	rep = &report{Config: cfg, Started: time.Now()}
	quiet := slog.New(slog.DiscardHandler)
	say := func(format string, a ...any) {
		fmt.Fprintf(stderr, "bench %5.1fs: %s\n", time.Since(rep.Started).Seconds(), fmt.Sprintf(format, a...))
	}
	tmp, err := os.MkdirTemp("", "partner-admin-bench-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if rmErr := os.RemoveAll(tmp); rmErr != nil {
			say("could not remove %s: %v", tmp, rmErr)
		}
	}()

	// The binaries: the app as it ships, and this bench for the bare mode.
	root, err := moduleRoot(ctx)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "bin")
	buildArgs := []string{"build", "-o", bin + string(filepath.Separator)}
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
	say("built ./cmd/partner-admin and ./cmd/bench")

	cluster, err := localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(tmp, "pg"), Logger: quiet})
	if err != nil {
		return nil, err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		err = errors.Join(err, cluster.Stop(stopCtx))
	}()
	const dbName, ceilingDB = "partner_admin", "bench_ceiling"
	for _, db := range []string{dbName, ceilingDB} {
		if err := cluster.EnsureDatabase(ctx, db); err != nil {
			return nil, err
		}
	}
	dsn := cluster.ConnString(dbName)
	pool, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if err := store.Migrate(ctx, pool, quiet); err != nil {
		return nil, err
	}
	say("PostgreSQL %s up, migrated", cluster.Version())

	// The sandbox, started from a state that holds the demo company and
	// the bench's employees, wallets, proposals and cards.
	statePath := filepath.Join(tmp, "sandbox", "state.json")
	if err := os.MkdirAll(filepath.Dir(statePath), 0o700); err != nil {
		return nil, err
	}
	seed, err := seedSandboxState(statePath, cfg.Wallets, cfg.CardsPerWallet)
	if err != nil {
		return nil, err
	}
	sb, err := sandbox.New(sandbox.Options{Control: true, Local: true, StatePath: statePath, Logger: quiet})
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	demo := seed.Demo
	sbLn, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sbSrv := &http.Server{Handler: sb, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = sbSrv.Serve(sbLn) }()
	defer func() { _ = sbSrv.Close() }()
	sbURL := "http://" + sbLn.Addr().String()

	// The app's database: the demo company imported as the app imports it,
	// then the bulk of a large partner.
	api, err := apiclient.New(sbURL, demo.APIKey)
	if err != nil {
		return nil, err
	}
	st := store.New(pool)
	if _, err := (&mirror.Syncer{API: api, Store: st, Now: time.Now}).Import(ctx, web.DemoPeople(demo, time.Now())); err != nil {
		return nil, fmt.Errorf("import demo company: %w", err)
	}
	say("sandbox started from the seeded state; demo company imported")
	if err := seedApp(ctx, pool, seed, cfg.Employees, cfg.ActivityDays, cfg.EventsPerDay, cfg.PayrollRuns, say); err != nil {
		return nil, err
	}
	rep.Seeded = fmt.Sprintf("%s employees with readiness in 5 currencies, %s wallets with an open proposal each, %s cards, %s money events over %d days, %d payroll runs",
		thousands(cfg.Employees), thousands(cfg.Wallets), thousands(len(seed.Cards)), thousands(cfg.ActivityDays*cfg.EventsPerDay), cfg.ActivityDays, cfg.PayrollRuns)
	say("seeded: %s", rep.Seeded)

	// The app, as child processes pointed at the private PostgreSQL and
	// the sandbox: one, or --replicas of them behind a round-robin
	// balancer, started one after the other (the first creates the owner).
	password, encryptionKey := randomHex(16), randomHex(32)
	pprofURL := ""
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
			return nil, err
		}
		env := append(os.Environ(),
			"ADDR=127.0.0.1:"+strconv.Itoa(port), "DATA_DIR="+filepath.Join(tmp, fmt.Sprintf("app%d", i+1)), "PUBLIC_ORIGIN=",
			"DATABASE_URL="+dsn, "PARTNER_API_BASE_URL="+sbURL, "PARTNER_API_KEY="+demo.APIKey,
			"OWNER_EMAIL="+ownerEmail, "OWNER_PASSWORD="+password, "ENCRYPTION_KEY="+encryptionKey, "LOG_LEVEL=warn",
			"TRUSTED_PROXIES=", "SIGN_LINK_TEMPLATE=")
		if cfg.PprofDir != "" && i == 0 {
			pp, err := freeLoopbackPort()
			if err != nil {
				return nil, err
			}
			addr := "127.0.0.1:" + strconv.Itoa(pp)
			env, pprofURL = append(env, "BENCH_PPROF_ADDR="+addr), "http://"+addr
		}
		logName := "app.log"
		if replicas > 1 {
			logName = fmt.Sprintf("app%d.log", i+1)
		}
		a, err := startChild(ctx, "partner-admin", filepath.Join(bin, "partner-admin"), nil, env, filepath.Join(tmp, logName), cfg.WaitBoot)
		if err != nil {
			return nil, err
		}
		apps, addrs = append(apps, a), append(addrs, a.addr)
		say("app listening at http://%s (pid %d)", a.addr, a.cmd.Process.Pid)
	}
	app := apps[0]
	appURL := "http://" + app.addr
	var balancer *roundRobin
	if replicas > 1 {
		if balancer, err = startRoundRobin(ctx, addrs); err != nil {
			return nil, err
		}
		defer balancer.close()
		appURL = balancer.URL
		rep.Replicas = &replicaChecks{}
		say("round-robin balancer over %d replicas at %s", replicas, appURL)
	}
	jobsSince := time.Now()

	owner := newClient()
	totpKey, err := signIn(ctx, owner, appURL, ownerEmail, password)
	if err != nil {
		return nil, fmt.Errorf("%w; app log: %s", err, app.tail())
	}
	secret, err := subscribe(ctx, owner, appURL)
	if err != nil {
		return nil, err
	}
	say("signed in as owner; webhook subscription created, its secret read from the page")

	// The app's own jobs read the proposals and the cards from the sandbox
	// at start: wait for them.
	if err := waitMirror(ctx, pool, seed, cfg.WaitForJobs); err != nil {
		return nil, fmt.Errorf("%w; app log: %s", err, app.tail())
	}
	say("the app's jobs mirrored %d proposals and indexed %d cards", len(seed.Proposals), len(seed.Cards))

	// The mirror refresh, as the queue's button runs it.
	for _, ms := range cfg.MirrorLatencies {
		if len(cfg.Only) > 0 {
			break
		}
		m, err := refreshMirror(ctx, owner, appURL, sbURL, ms, cfg.MirrorRounds)
		if err != nil {
			return nil, err
		}
		rep.Mirror = append(rep.Mirror, m)
		say("mirror refresh, %d ms injected: %s", ms, durs(m.Took))
	}

	// The pages, their bytes captured once for the bare handler.
	num := cfg.Wallets/2 + 21
	rare := fmt.Sprintf("person%04d", cfg.Employees*421/10000) // person0421: ten people of 10,000
	pages := []page{
		{"dashboard", "/"},
		{"employees, first page", "/employees"},
		{"employees, rare search", "/employees?q=" + rare},
		{"employees, common word", "/employees?q=person"},
		{"readiness matrix", "/employees/readiness"},
		{"approval queue", "/approvals"},
		{"proposal page", "/approvals/" + seed.Proposals[len(seed.Proposals)/2]},
		{"card search", "/cards?q=" + url.QueryEscape(fmt.Sprintf("person%05d", num))},
		{"card page", "/cards/" + seed.Cards[len(seed.Cards)/2]},
		{"treasury", "/treasury"},
		{"money out", "/money-out"},
		{"payroll", "/payroll"},
		{"activity", "/activity"},
	}
	pages = slices.DeleteFunc(pages, func(p page) bool { return !cfg.wants(p.Name) })
	if len(pages) == 0 && !cfg.webhooks() {
		return nil, fmt.Errorf("--only %s: no page name contains any of these words", strings.Join(cfg.Only, ","))
	}
	pagesDir := filepath.Join(tmp, "pages")
	if err := os.MkdirAll(pagesDir, 0o700); err != nil {
		return nil, err
	}
	var list bareFile
	for i, p := range pages {
		body, ctype, err := capture(ctx, owner, appURL+p.URI)
		if err != nil {
			return nil, err
		}
		file := fmt.Sprintf("page%02d.html", i)
		if err := os.WriteFile(filepath.Join(pagesDir, file), body, 0o600); err != nil {
			return nil, err
		}
		list.Pages = append(list.Pages, barePage{URI: p.URI, File: file, ContentType: ctype})
		rep.Pages = append(rep.Pages, pageStats{page: p, Bytes: len(body)})
	}
	listJSON, _ := json.Marshal(list)
	listPath := filepath.Join(pagesDir, "pages.json")
	if err := os.WriteFile(listPath, listJSON, 0o600); err != nil {
		return nil, err
	}
	bare, err := startChild(ctx, "bare handler", filepath.Join(bin, "bench"), []string{"--bare-serve", "--pages", listPath, "--addr", "127.0.0.1:0"},
		os.Environ(), filepath.Join(tmp, "bare.log"), 30*time.Second)
	if err != nil {
		return nil, err
	}
	defer bare.stop()
	bareURL := "http://" + bare.addr
	say("bare handler listening at %s; %d pages captured", bareURL, len(pages))

	// Load: a warm-up round, then rounds of every page against the app and
	// against the bare handler.
	bareClient := newClient()
	meter := cpuMeter{pgData: filepath.Join(tmp, "pg")}
	for _, a := range apps {
		meter.appPids = append(meter.appPids, a.cmd.Process.Pid)
	}
	for round := -1; round < cfg.Rounds; round++ {
		for i := range rep.Pages {
			ps := &rep.Pages[i]
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
				return nil, fmt.Errorf("%s: %w; app log: %s", ps.Name, err, app.tail())
			}
			b, err := drive(ctx, bareClient, bareURL+ps.URI, http.StatusOK, cfg.Conns, bareFor)
			if err != nil {
				return nil, fmt.Errorf("%s (bare): %w", ps.Name, err)
			}
			if round >= 0 {
				ps.App, ps.Bare = append(ps.App, a), append(ps.Bare, b)
			}
		}
		if round < 0 {
			say("warm-up done")
		} else {
			say("round %d of %d done", round+1, cfg.Rounds)
		}
	}

	if !cfg.webhooks() {
		return finish(ctx, cfg, rep, apps, balancer, owner, pool, jobsSince, holdEnv(tmp, dsn, appURL, password, totpKey), stdout, say)
	}

	// The webhook receiver, then PostgreSQL's own ceiling for what it commits.
	prefix := "bench-" + randomHex(4)
	dl := deliveries(prefix, cfg.Deliveries, seed.Cards, seed.Users)
	var whProf chan error
	if pprofURL != "" {
		whProf = make(chan error, 1)
		file := filepath.Join(cfg.PprofDir, "webhooks.pprof")
		go func() { whProf <- cpuProfile(ctx, pprofURL, max(1, int(cfg.WebhooksFor/time.Second)), file) }()
	}
	rep.Webhooks, err = driveWebhooks(ctx, appURL, secret, pool, dl, cfg.Conns, cfg.WebhooksFor, cfg.WaitForDrain, prefix)
	if whProf != nil {
		if perr := <-whProf; perr != nil {
			say("webhooks: no CPU profile: %v", perr)
		}
	}
	if err != nil {
		return nil, err
	}
	say("webhooks: %.0f/s acknowledged, %d stored, %d processed in %s", rep.Webhooks.RPS(), rep.Webhooks.Stored, rep.Webhooks.Processed,
		rep.Webhooks.Drain.Round(time.Millisecond))
	if rep.CeilingTPS, err = ceiling(ctx, cluster.ConnString(ceilingDB), cfg.Conns, cfg.CeilingFor, dl[0].body); err != nil {
		return nil, fmt.Errorf("commit ceiling: %w", err)
	}
	say("PostgreSQL commit ceiling: %.0f transactions/s", rep.CeilingTPS)

	return finish(ctx, cfg, rep, apps, balancer, owner, pool, jobsSince, holdEnv(tmp, dsn, appURL, password, totpKey), stdout, say)
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

// finish checks what --replicas proves, reads the apps' peak RSS, prints
// the table and, with --hold, keeps everything running until ctx ends.
func finish(ctx context.Context, cfg config, rep *report, apps []*child, balancer *roundRobin, owner *http.Client, pool *pgxpool.Pool,
	jobsSince time.Time, hold holdFile, stdout io.Writer, say func(string, ...any)) (*report, error) {
	for _, app := range apps {
		if app.exited() {
			return nil, fmt.Errorf("an app process exited during the run: %s", app.tail())
		}
	}
	if balancer != nil {
		if err := checkReplicas(ctx, rep.Replicas, apps, balancer, owner, pool, jobsSince); err != nil {
			return nil, err
		}
		say("replicas: requests per replica %v; a session works on each and a sign-out through the balancer ends it on each", rep.Replicas.Served)
	}
	for _, app := range apps {
		kib, err := peakRSS(app.cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		rep.ReplicaRSSKiB = append(rep.ReplicaRSSKiB, kib)
		rep.PeakRSSKiB = max(rep.PeakRSSKiB, kib)
	}
	rep.Took = time.Since(rep.Started)
	rep.Table = rep.format()
	fmt.Fprint(stdout, rep.Table)
	if cfg.Hold {
		if err := os.WriteFile(hold.path, []byte(hold.body), 0o600); err != nil {
			return nil, err
		}
		say("holding until interrupted (app pid %d); the database's and the app's addresses and the owner's sign-in are in %s", apps[0].cmd.Process.Pid, hold.path)
		<-ctx.Done()
	}
	return rep, nil
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

var walletsRead = regexp.MustCompile(`([0-9][0-9,]*) wallets read`)

// refreshMirror times the approval queue's "Refresh from the API" (every
// wallet's proposals read again) with ms of latency injected at the
// sandbox on every proposal list read.
func refreshMirror(ctx context.Context, c *http.Client, base, sbURL string, ms, rounds int) (mirrorStat, error) {
	m := mirrorStat{LatencyMs: ms}
	control := func(method, body string) error {
		req, err := http.NewRequestWithContext(ctx, method, sbURL+"/_sandbox/faults", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("sandbox %s /_sandbox/faults: %d", method, resp.StatusCode)
		}
		return nil
	}
	if ms > 0 {
		if err := control(http.MethodPost, fmt.Sprintf(`{"method":"GET","route":"/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals","latencyMs":%d}`, ms)); err != nil {
			return m, err
		}
		defer func() { _ = control(http.MethodDelete, "") }()
	}
	for range rounds {
		t0 := time.Now()
		resp, err := postForm(ctx, c, base+"/approvals/refresh", url.Values{})
		if err != nil {
			return m, err
		}
		resp.Body.Close()
		took := time.Since(t0)
		if resp.StatusCode != http.StatusSeeOther {
			return m, fmt.Errorf("refresh: status %d", resp.StatusCode)
		}
		body, _, err := capture(ctx, c, base+"/approvals")
		if err != nil {
			return m, err
		}
		got := walletsRead.FindSubmatch(body)
		if got == nil {
			return m, errors.New("refresh: the queue does not say every wallet was read (some failed?)")
		}
		m.Wallets, _ = strconv.Atoi(strings.ReplaceAll(string(got[1]), ",", ""))
		m.Took = append(m.Took, took)
	}
	return m, nil
}
