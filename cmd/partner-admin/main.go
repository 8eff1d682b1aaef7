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
	if cfg.EncryptionKey == "" {
		if cfg.EncryptionKey, err = loadOrCreateEncryptionKey(cfg.DataDir); err != nil {
			return err
		}
		if !cfg.Local() {
			logger.Warn("ENCRYPTION_KEY is not set: webhook secrets are sealed with the key in this data directory; " +
				"every replica on the same database needs the same ENCRYPTION_KEY, or deliveries reaching the others are answered 503")
		}
	}

	dsn := cfg.DatabaseURL.Reveal()
	if cfg.Local() {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return fmt.Errorf("create data directory: %w", err)
		}
		cluster, err := localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(cfg.DataDir, "pg"), Logger: logger})
		if err != nil {
			return err
		}
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = errors.Join(err, cluster.Stop(stopCtx))
		}()
		if err := cluster.EnsureDatabase(ctx, databaseName); err != nil {
			return err
		}
		dsn = cluster.ConnString(databaseName)
	}

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

	baseURL, apiKey := cfg.PartnerAPIBaseURL, cfg.PartnerAPIKey.Reveal()
	var sandboxDemo sandbox.DemoInfo
	if cfg.UsesSandbox() {
		sb, err := startSandbox(ctx, cfg, logger)
		if err != nil {
			return err
		}
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			sb.Stop(stopCtx)
		}()
		baseURL, apiKey, sandboxDemo = sb.BaseURL, sb.Demo.APIKey, sb.Demo
	}
	metrics, err := web.NewMetrics()
	if err != nil {
		return err
	}
	api, err := apiclient.New(baseURL, apiKey, apiclient.WithLogger(logger.With("component", "apiclient")),
		apiclient.WithObserver(metrics.ObserveAPI))
	if err != nil {
		return err
	}
	if cfg.UsesSandbox() {
		// The demo company exists upstream; the partner's records of it are
		// imported on every start (idempotent), as a partner would have kept
		// them when it created those users.
		syncer := &userstate.Syncer{API: api, Store: st, Now: time.Now}
		n, err := syncer.Import(ctx, web.DemoPeople(sandboxDemo, time.Now()))
		if err != nil {
			return fmt.Errorf("import demo company: %w", err)
		}
		logger.Info("demo company imported", "people", n)
	}
	upstream := web.Upstream{Sandbox: cfg.UsesSandbox(), BaseURL: baseURL, Probe: func(ctx context.Context) error {
		_, err := api.SupportedCurrencies(ctx)
		return err
	}}

	app, err := web.New(web.Deps{Config: cfg, Store: st, Logger: logger, Upstream: upstream, API: api, Metrics: metrics})
	if err != nil {
		return err
	}
	if cfg.UsesSandbox() && sandboxDemo.WebhookSecret != "" {
		// The demo subscription delivers to this app: keep its secret sealed
		// so the receiver verifies those deliveries.
		if err := app.AdoptWebhookSecret(ctx, sandboxDemo.WebhookSecret); err != nil {
			return fmt.Errorf("sandbox webhook subscription: %w", err)
		}
	}
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
	srv := &http.Server{
		Handler:           app.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
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
		metricsSrv = &http.Server{Handler: app.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second,
			ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
		go func() { serveErr <- metricsSrv.Serve(mln) }()
		fmt.Fprintf(stdout, "metrics at http://%s/metrics\n", mln.Addr())
	}
	fmt.Fprintf(stdout, "Partner Admin is running at %s\n", cfg.PublicOrigin)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	fmt.Fprintln(stdout, login)
	if cfg.UsesSandbox() {
		fmt.Fprintf(stdout, "Partner API sandbox at %s (control API under /_sandbox/; owner keys for cmd/device in %s)\n",
			baseURL, filepath.Join(cfg.DataDir, "device-keys.json"))
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
