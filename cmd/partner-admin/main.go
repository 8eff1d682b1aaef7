// Command partner-admin runs the Partner Admin web app.
//
// With no configuration it starts a private PostgreSQL under ./.data/, an
// in-process sandbox of the Partner API seeded with a demo company, and the
// app, and prints the URL and the first owner's login. With DATABASE_URL,
// PARTNER_API_BASE_URL and PARTNER_API_KEY it runs against real ones.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/handlers"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/store/localpg"
	"partneradmin/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "partner-admin:", err)
		os.Exit(1)
	}
}

// databaseName is the database the app uses in its private cluster.
const databaseName = "partner_admin"

// run builds everything, serves until ctx ends, then shuts down in order:
// HTTP drain, workers, database pool, private PostgreSQL.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	cfg, err := web.ParseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger := web.NewLogger(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if err := ensureEncryptionKey(&cfg, logger); err != nil {
		return err
	}
	dsn, stopCluster, err := database(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopCluster()) }()
	pool, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := store.Migrate(ctx, pool, logger); err != nil {
		return err
	}
	st := store.New(pool)
	login, err := bootstrapOwner(ctx, st, cfg)
	if err != nil {
		return err
	}
	metrics, err := web.NewMetrics()
	if err != nil {
		return err
	}
	api, err := connectAPI(ctx, cfg, logger, st, metrics)
	if err != nil {
		return err
	}
	defer api.stop()
	app, err := web.New(web.Deps{Config: cfg, Store: st, Logger: logger, Upstream: api.upstream, API: api.client, Metrics: metrics})
	if err != nil {
		return err
	}
	if cfg.UsesSandbox() && api.demo.WebhookSecret != "" {
		// The demo subscription delivers to this app: keep its secret sealed
		// so the receiver verifies those deliveries.
		if err := app.AdoptWebhookSecret(ctx, api.demo.WebhookSecret); err != nil {
			return fmt.Errorf("sandbox webhook subscription: %w", err)
		}
	}
	banner := []string{login}
	if cfg.UsesSandbox() {
		banner = append(banner, fmt.Sprintf("Partner API sandbox at %s (control API under /_sandbox/; owner keys for cmd/device in %s)",
			api.upstream.BaseURL, filepath.Join(cfg.DataDir, "device-keys.json")))
	}
	return serve(ctx, cfg, app, logger, stdout, banner)
}

// ensureEncryptionKey fills in ENCRYPTION_KEY from the data directory when
// it is not set.
func ensureEncryptionKey(cfg *web.Config, logger *slog.Logger) error {
	if cfg.EncryptionKey != "" {
		return nil
	}
	var err error
	if cfg.EncryptionKey, err = loadOrCreateEncryptionKey(cfg.DataDir); err != nil {
		return err
	}
	if !cfg.Local() {
		logger.Warn("ENCRYPTION_KEY is not set: webhook secrets are sealed with the key in this data directory; " +
			"every replica on the same database needs the same ENCRYPTION_KEY, or deliveries reaching the others are answered 503")
	}
	return nil
}

// database returns the connection string to use: DATABASE_URL, or the
// private cluster under the data directory, started here; stop stops it.
func database(ctx context.Context, cfg web.Config, logger *slog.Logger) (dsn string, stop func() error, err error) {
	if !cfg.Local() {
		return cfg.DatabaseURL.Reveal(), func() error { return nil }, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return "", nil, fmt.Errorf("create data directory: %w", err)
	}
	cluster, err := localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(cfg.DataDir, "pg"), Logger: logger})
	if err != nil {
		return "", nil, err
	}
	stop = func() error {
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return cluster.Stop(stopCtx)
	}
	if err := cluster.EnsureDatabase(ctx, databaseName); err != nil {
		return "", nil, errors.Join(err, stop())
	}
	return cluster.ConnString(databaseName), stop, nil
}

// partnerAPI is the connection to the Partner API, real or the in-process
// sandbox.
type partnerAPI struct {
	client   *apiclient.Client
	upstream web.Upstream
	demo     sandbox.DemoInfo // the sandbox's demo company; empty on the real API
	stop     func()           // stops the sandbox, if one was started
}

// connectAPI starts the sandbox when no API is configured, imports its demo
// company, and returns the client.
func connectAPI(ctx context.Context, cfg web.Config, logger *slog.Logger, st *store.Store, metrics *web.Metrics) (api partnerAPI, err error) {
	baseURL, apiKey := cfg.PartnerAPIBaseURL, cfg.PartnerAPIKey.Reveal()
	api.stop = func() {}
	if cfg.UsesSandbox() {
		sb, err := startSandbox(ctx, cfg, logger)
		if err != nil {
			return api, err
		}
		api.stop = func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			sb.Stop(stopCtx)
		}
		defer func() {
			if err != nil {
				api.stop()
			}
		}()
		baseURL, apiKey, api.demo = sb.BaseURL, sb.Demo.APIKey, sb.Demo
	}
	api.client, err = apiclient.New(baseURL, apiKey, apiclient.WithLogger(logger.With("component", "apiclient")),
		apiclient.WithObserver(metrics.ObserveAPI))
	if err != nil {
		return api, err
	}
	if cfg.UsesSandbox() {
		// The demo company exists upstream; the partner's records of it are
		// imported on every start (idempotent), as a partner would have kept
		// them when it created those users.
		syncer := &userstate.Syncer{API: api.client, Store: st, Now: time.Now}
		n, err := syncer.Import(ctx, web.DemoPeople(api.demo, time.Now()))
		if err != nil {
			return api, fmt.Errorf("import demo company: %w", err)
		}
		logger.Info("demo company imported", "people", n)
	}
	client := api.client
	api.upstream = web.Upstream{Sandbox: cfg.UsesSandbox(), BaseURL: baseURL, Probe: func(ctx context.Context) error {
		_, err := client.SupportedCurrencies(ctx)
		return err
	}}
	return api, nil
}

// serve listens, starts the workers, prints where the app is and the
// banner lines, and serves until ctx ends; then it drains HTTP and stops
// the workers.
func serve(ctx context.Context, cfg web.Config, app *web.App, logger *slog.Logger, stdout io.Writer, banner []string) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	var mln net.Listener
	if cfg.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("listen on %s (METRICS_ADDR): %w", cfg.MetricsAddr, err)
		}
	}
	errorLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	srv := &http.Server{
		Handler:           app.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          errorLog,
	}
	workerCtx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWorkers()
	if err := app.Start(workerCtx); err != nil {
		return err
	}

	serveErr := make(chan error, 2)
	go func() { serveErr <- srv.Serve(ln) }()
	var metricsSrv *http.Server
	if mln != nil {
		metricsSrv = &http.Server{Handler: app.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second, ErrorLog: errorLog}
		go func() { serveErr <- metricsSrv.Serve(mln) }()
		fmt.Fprintf(stdout, "metrics at http://%s/metrics\n", mln.Addr())
	}
	fmt.Fprintf(stdout, "Partner Admin is running at %s\n", cfg.PublicOrigin)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	for _, line := range banner {
		fmt.Fprintln(stdout, line)
	}

	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		logger.Warn("http shutdown", "err", err)
	}
	if metricsSrv != nil {
		if err := metricsSrv.Shutdown(shutdownCtx); err != nil {
			logger.Warn("metrics listener shutdown", "err", err)
		}
	}
	if err := app.Stop(shutdownCtx); err != nil {
		logger.Warn("workers shutdown", "err", err)
	}
	return nil
}

// defaultOwnerEmail is the first owner's login when OWNER_EMAIL is not set.
const defaultOwnerEmail = "owner@partner.example"

// bootstrapOwner creates the first owner on an empty database and returns
// the line that tells the person at the terminal how to sign in.
func bootstrapOwner(ctx context.Context, st *store.Store, cfg web.Config) (string, error) {
	n, err := st.CountStaff(ctx)
	if err != nil {
		return "", err
	}
	if n > 0 {
		if cfg.OwnerEmail != "" {
			return "Sign in as " + cfg.OwnerEmail + " (OWNER_PASSWORD).", nil
		}
		return "Sign in with your staff account (the first owner, " + defaultOwnerEmail + ", had its password printed on the first run).", nil
	}
	email, password := cfg.OwnerEmail, cfg.OwnerPassword.Reveal()
	generated := password == ""
	if generated {
		email = defaultOwnerEmail
		password = handlers.GeneratePassword()
	}
	hash, err := handlers.HashPassword(password)
	if err != nil {
		return "", err
	}
	// On a real database a printed password has been on a terminal and in
	// its scrollback: its owner chooses another at the first sign-in. The
	// zero-config demo keeps it, so the printed line always works there.
	mustChange := generated && !cfg.Local()
	_, err = st.CreateStaff(ctx, store.NewStaff{Email: email, Name: "Owner", PasswordHash: hash, Role: store.RoleOwner,
		PasswordMustChange: mustChange}, store.Actor{Email: "bootstrap"})
	if errors.Is(err, store.ErrConflict) {
		// Another replica starting at the same moment created it first.
		return bootstrapOwner(ctx, st, cfg)
	}
	if err != nil {
		return "", fmt.Errorf("create first owner: %w", err)
	}
	if !generated {
		return "Sign in as " + email + " (OWNER_PASSWORD).", nil
	}
	if mustChange {
		return fmt.Sprintf("First owner created. Sign in as %s with password %s\n(shown once: you choose your own password at the first sign-in).", email, password), nil
	}
	return fmt.Sprintf("First owner created. Sign in as %s with password %s\n(shown once; this demo keeps it usable: change it under your name at the top right if you keep the data).", email, password), nil
}
