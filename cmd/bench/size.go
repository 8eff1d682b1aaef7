package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers/approvals"
	"partneradmin/handlers/cards"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/web"
)

// sizeRun is one size of a run: its database, sandbox and apps, and what
// is undone when it ends (in reverse order).
type sizeRun struct {
	b    *bench
	n    int
	last bool

	dsn   string
	pool  *pgxpool.Pool
	dir   string
	seedd seeded
	sb    *sandbox.Server
	sbURL string

	apps      []*child
	appURL    string
	balancer  *roundRobin
	pprofURL  string
	jobsSince time.Time
	password  string
	owner     *http.Client
	secret    string
	totpKey   string

	undo []func(context.Context) error
}

func (z *sizeRun) close(ctx context.Context) error {
	var err error
	for i := len(z.undo) - 1; i >= 0; i-- {
		err = errors.Join(err, z.undo[i](ctx))
	}
	return err
}

func (z *sizeRun) later(f func(context.Context) error) { z.undo = append(z.undo, f) }

// seed makes the size's database (a copy of the template) and its
// sandbox (from a state that holds the demo company and the bench's
// employees, wallets, proposals and cards), imports the demo company as
// the app does, seeds the rest, and fills the mirror.
func (z *sizeRun) seed(ctx context.Context, sr *sizeReport) error {
	b, cfg, say := z.b, z.b.cfg, z.b.say
	dbName := fmt.Sprintf("partner_admin_%d", z.n)
	if _, err := b.admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{dbName}.Sanitize()+" TEMPLATE "+pgx.Identifier{templateDB}.Sanitize()); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	z.later(func(ctx context.Context) error {
		if _, err := b.admin.Exec(ctx, "DROP DATABASE "+pgx.Identifier{dbName}.Sanitize()+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database: %w", err)
		}
		return nil
	})
	z.dsn = b.cluster.ConnString(dbName)
	pool, err := store.Open(ctx, z.dsn)
	if err != nil {
		return err
	}
	z.pool = pool
	z.later(func(context.Context) error { pool.Close(); return nil })
	z.dir = filepath.Join(b.tmp, strconv.Itoa(z.n))

	statePath := filepath.Join(z.dir, "sandbox", "state.json")
	if err := os.MkdirAll(filepath.Dir(statePath), 0o700); err != nil {
		return err
	}
	if z.seedd, err = seedSandboxState(statePath, sr.Wallets, cfg.CardsPerWallet); err != nil {
		return err
	}
	sr.Cards = len(z.seedd.Cards)
	if z.sb, err = sandbox.New(sandbox.Options{Control: true, Local: true, StatePath: statePath, LoadOnly: true, Logger: b.quiet}); err != nil {
		return err
	}
	z.later(func(context.Context) error { z.sb.Close(); return nil })
	sbLn, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sbSrv := &http.Server{Handler: z.sb, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = sbSrv.Serve(sbLn) }()
	z.later(func(context.Context) error { _ = sbSrv.Close(); return nil })
	z.sbURL = "http://" + sbLn.Addr().String()

	// The app's database: the demo company imported as the app imports it,
	// then the bulk of the company.
	demo := z.seedd.Demo
	api, err := apiclient.New(z.sbURL, demo.APIKey)
	if err != nil {
		return err
	}
	if _, err := (&userstate.Syncer{API: api, Store: store.New(pool), Now: time.Now}).Import(ctx, web.DemoPeople(demo, time.Now())); err != nil {
		return fmt.Errorf("import demo company: %w", err)
	}
	say("%s employees: sandbox started from the seeded state; demo company imported", thousands(z.n))
	t0 := time.Now()
	if sr.Seed, err = seedApp(ctx, pool, z.seedd, z.n, sr.Events, cfg.PayrollRuns, say); err != nil {
		return err
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
		return fmt.Errorf("mirror the proposals: %w", err)
	}
	sr.MirrorTook = time.Since(t0)
	t0 = time.Now()
	if _, err := cards.NewIndexer(st, api, b.quiet, time.Now).RefreshAll(ctx); err != nil {
		return fmt.Errorf("index the cards: %w", err)
	}
	sr.IndexTook = time.Since(t0)
	say("every wallet's proposals read in %s, every card indexed in %s", sr.MirrorTook.Round(time.Millisecond), sr.IndexTook.Round(time.Millisecond))
	return nil
}

// startApps starts the app as child processes pointed at the private
// PostgreSQL and the sandbox: one, or --replicas of them behind nginx,
// started one after the other (the first creates the owner); then signs
// in as the owner and subscribes to webhooks.
func (z *sizeRun) startApps(ctx context.Context) error {
	b, cfg, say := z.b, z.b.cfg, z.b.say
	z.password = randomHex(16)
	encryptionKey := randomHex(32)
	demo := z.seedd.Demo
	// The periodic jobs counted are those of the apps' lifetime, their
	// runs at start included.
	z.jobsSince = time.Now()
	replicas := max(1, cfg.Replicas)
	z.later(func(context.Context) error {
		for _, a := range z.apps {
			a.stop()
		}
		return nil
	})
	var addrs []string
	for i := range replicas {
		port, err := freeLoopbackPort()
		if err != nil {
			return err
		}
		env := append(os.Environ(),
			"ADDR=127.0.0.1:"+strconv.Itoa(port), "DATA_DIR="+filepath.Join(z.dir, fmt.Sprintf("app%d", i+1)), "PUBLIC_ORIGIN=",
			"DATABASE_URL="+z.dsn, "PARTNER_API_BASE_URL="+z.sbURL, "PARTNER_API_KEY="+demo.APIKey,
			"OWNER_EMAIL="+ownerEmail, "OWNER_PASSWORD="+z.password, "ENCRYPTION_KEY="+encryptionKey, "LOG_LEVEL=warn",
			"TRUSTED_PROXIES=", "SIGN_LINK_TEMPLATE=")
		if cfg.PprofDir != "" && i == 0 && z.last {
			pp, err := freeLoopbackPort()
			if err != nil {
				return err
			}
			addr := "127.0.0.1:" + strconv.Itoa(pp)
			env, z.pprofURL = append(env, "BENCH_PPROF_ADDR="+addr), "http://"+addr
		}
		logName := "app.log"
		if replicas > 1 {
			logName = fmt.Sprintf("app%d.log", i+1)
		}
		a, err := startChild(ctx, "partner-admin", filepath.Join(b.bin, "partner-admin"), nil, env, filepath.Join(z.dir, logName), cfg.WaitBoot)
		if err != nil {
			return err
		}
		z.apps, addrs = append(z.apps, a), append(addrs, a.addr)
		say("app listening at http://%s (pid %d)", a.addr, a.cmd.Process.Pid)
	}
	z.appURL = "http://" + z.apps[0].addr
	if replicas > 1 {
		var err error
		if z.balancer, err = startRoundRobin(ctx, addrs); err != nil {
			return err
		}
		z.later(func(context.Context) error { z.balancer.close(); return nil })
		z.appURL = z.balancer.URL
		say("round-robin balancer over %d replicas at %s", replicas, z.appURL)
	}

	z.owner = newClient()
	var err error
	if z.totpKey, err = signIn(ctx, z.owner, z.appURL, ownerEmail, z.password); err != nil {
		return fmt.Errorf("%w; app log: %s", err, z.apps[0].tail())
	}
	if z.secret, err = subscribe(ctx, z.owner, z.appURL); err != nil {
		return err
	}
	say("signed in as owner; webhook subscription created, its secret read from the page")

	// Every proposal and card is in the mirror (checked, in case the
	// app's start changed it).
	if err := waitMirror(ctx, z.pool, z.seedd, cfg.WaitForJobs); err != nil {
		return fmt.Errorf("%w; app log: %s", err, z.apps[0].tail())
	}
	return nil
}

// capturePages reads each page once for the bare handler, which it starts
// serving them; it returns the bare handler's address.
func (z *sizeRun) capturePages(ctx context.Context, sr *sizeReport) (string, error) {
	b, cfg, say := z.b, z.b.cfg, z.b.say
	pages := pagesFor(z.n, z.seedd)
	pages = slices.DeleteFunc(pages, func(p page) bool { return !cfg.wants(p.Name) })
	if len(pages) == 0 && !cfg.wants(webhookRow) && !cfg.wants(payrollRow) && !cfg.wants(fileRow) {
		return "", fmt.Errorf("--only %s: no page or row name contains any of these words", strings.Join(cfg.Only, ","))
	}
	pagesDir := filepath.Join(z.dir, "pages")
	if err := os.MkdirAll(pagesDir, 0o700); err != nil {
		return "", err
	}
	var list bareFile
	for i, p := range pages {
		body, ctype, err := capture(ctx, z.owner, z.appURL+p.URI)
		if err != nil {
			return "", err
		}
		file := fmt.Sprintf("page%02d.html", i)
		if err := os.WriteFile(filepath.Join(pagesDir, file), body, 0o600); err != nil {
			return "", err
		}
		list.Pages = append(list.Pages, barePage{URI: p.URI, File: file, ContentType: ctype})
		sr.Pages = append(sr.Pages, pageStats{page: p, Bytes: len(body)})
	}
	listJSON, _ := json.Marshal(list)
	listPath := filepath.Join(pagesDir, "pages.json")
	if err := os.WriteFile(listPath, listJSON, 0o600); err != nil {
		return "", err
	}
	bare, err := startChild(ctx, "bare handler", filepath.Join(b.bin, "bench"), []string{"--bare-serve", "--pages", listPath, "--addr", "127.0.0.1:0"},
		os.Environ(), filepath.Join(z.dir, "bare.log"), 30*time.Second)
	if err != nil {
		return "", err
	}
	z.later(func(context.Context) error { bare.stop(); return nil })
	bareURL := "http://" + bare.addr
	say("bare handler listening at %s; %d pages captured", bareURL, len(pages))
	return bareURL, nil
}

// measurePages drives a warm-up round, then rounds of every page against
// the app and against the bare handler, while deliveries trickle in; the
// sandbox counts the API reads meanwhile.
func (z *sizeRun) measurePages(ctx context.Context, sr *sizeReport) error {
	cfg, say := z.b.cfg, z.b.say
	bareURL, err := z.capturePages(ctx, sr)
	if err != nil {
		return err
	}
	trickle := startTrickle(ctx, z.appURL, z.secret, "trickle-"+randomHex(4), z.seedd, cfg.TrickleRate)
	z.sb.ResetRequestCounts()
	readsFrom := time.Now()
	bareClient := newClient()
	meter := cpuMeter{pgData: filepath.Join(z.b.tmp, "pg")}
	for _, a := range z.apps {
		meter.appPids = append(meter.appPids, a.cmd.Process.Pid)
	}
	for round := -1; round < cfg.Rounds && len(sr.Pages) > 0; round++ {
		for i := range sr.Pages {
			if err := z.measurePage(ctx, &sr.Pages[i], i, round, &meter, bareClient, bareURL); err != nil {
				return err
			}
		}
		if round < 0 {
			say("warm-up done")
		} else {
			say("round %d of %d done", round+1, cfg.Rounds)
		}
	}
	sr.ReadsFor = time.Since(readsFrom)
	sr.SyncReads, sr.APIReads, err = apiReads(ctx, z.sbURL)
	if err != nil {
		return err
	}
	if sr.Trickle, err = trickle.finish(ctx, z.pool, cfg.WaitForDrain); err != nil {
		return err
	}
	say("%d deliveries trickled in at %d/s while the pages were measured: %d lost, %d processed twice; API reads %.0f/min, of proposals %.0f/min",
		sr.Trickle.Sent, cfg.TrickleRate, sr.Trickle.Lost, sr.Trickle.ProcessedTwo, perMinute(sr.APIReads, sr.ReadsFor), perMinute(sr.SyncReads, sr.ReadsFor))
	return nil
}

// measurePage drives one page for one round (round -1: the warm-up, not
// kept), against the app and then the bare handler.
func (z *sizeRun) measurePage(ctx context.Context, ps *pageStats, i, round int, meter *cpuMeter, bareClient *http.Client, bareURL string) error {
	cfg, say := z.b.cfg, z.b.say
	appFor, bareFor := cfg.AppRound, cfg.BareRound
	if round < 0 {
		appFor, bareFor = cfg.Warmup, cfg.Warmup
	}
	var prof chan error
	if z.pprofURL != "" && round == 0 {
		prof = make(chan error, 1)
		file := filepath.Join(cfg.PprofDir, fmt.Sprintf("page%02d-%s.pprof", i, slug(ps.Name)))
		go func() { prof <- cpuProfile(ctx, z.pprofURL, max(1, int(appFor/time.Second)), file) }()
	}
	before := meter.read()
	a, err := drive(ctx, z.owner, z.appURL+ps.URI, http.StatusOK, cfg.Conns, appFor)
	a.perRequest(before, meter.read())
	if prof != nil {
		if perr := <-prof; perr != nil {
			say("%s: no CPU profile: %v", ps.Name, perr)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w; app log: %s", ps.Name, err, z.apps[0].tail())
	}
	bb, err := drive(ctx, bareClient, bareURL+ps.URI, http.StatusOK, cfg.Conns, bareFor)
	if err != nil {
		return fmt.Errorf("%s (bare): %w", ps.Name, err)
	}
	if round >= 0 {
		ps.App, ps.Bare = append(ps.App, a), append(ps.Bare, bb)
	}
	return nil
}

// finish measures, at the last size, the extras and the replicas, reads
// the apps' peak memory, and at the last size prints the table (and, with
// --hold, waits until ctx ends).
func (z *sizeRun) finish(ctx context.Context, sr *sizeReport) error {
	b, cfg, say := z.b, z.b.cfg, z.b.say
	app := z.apps[0]
	if z.last {
		if err := b.extras(ctx, z.appURL, z.secret, z.pool, z.owner, z.seedd, z.n, z.pprofURL); err != nil {
			return fmt.Errorf("%w; app log: %s", err, app.tail())
		}
	}
	for _, a := range z.apps {
		if a.exited() {
			return fmt.Errorf("an app process exited during the run: %s", a.tail())
		}
	}
	if z.last && z.balancer != nil {
		b.rep.Replicas = &replicaChecks{}
		if err := checkReplicas(ctx, b.rep.Replicas, z.apps, z.balancer, z.owner, z.pool, z.jobsSince); err != nil {
			return err
		}
		say("replicas: requests per replica %v; a session works on each and a sign-out through the balancer ends it on each", b.rep.Replicas.Served)
	}
	for _, a := range z.apps {
		kib, err := peakRSS(a.cmd.Process.Pid)
		if err != nil {
			return err
		}
		if z.last {
			b.rep.ReplicaRSSKiB = append(b.rep.ReplicaRSSKiB, kib)
		}
		sr.PeakRSSKiB = max(sr.PeakRSSKiB, kib)
	}
	if !z.last {
		return nil
	}
	// The table, printed while the last size still runs (for --hold).
	rep := b.rep
	rep.Sizes = append(rep.Sizes, *sr)
	rep.PeakRSSKiB = max(rep.PeakRSSKiB, sr.PeakRSSKiB)
	rep.Took = time.Since(rep.Started)
	rep.Table = rep.format()
	rep.Sizes = rep.Sizes[:len(rep.Sizes)-1] // run appends it again
	fmt.Fprint(b.stdout, rep.Table)
	if cfg.Hold {
		hold := holdEnv(b.tmp, z.dsn, z.appURL, z.password, z.totpKey)
		if err := os.WriteFile(hold.path, []byte(hold.body), 0o600); err != nil {
			return err
		}
		say("holding until interrupted (app pid %d); the database's and the app's addresses and the owner's sign-in are in %s", app.cmd.Process.Pid, hold.path)
		<-ctx.Done()
	}
	return nil
}
