package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"partneradmin/apiclient/sandbox"
	"partneradmin/web"
)

// localSandbox is the in-process sandbox of the Partner API, served on its
// own loopback port so the app reaches it exactly as it would reach the real
// API: over HTTP, through apiclient, with an API key.
type localSandbox struct {
	BaseURL string
	Demo    sandbox.DemoInfo
	server  *sandbox.Server
	http    *http.Server
}

// startSandbox starts the sandbox with its state kept in the data directory
// (so a restart never leaves the database pointing at users the sandbox
// forgot), seeds the demo company on first start, and subscribes the app's
// webhook receiver. The owner keys of the seeded wallets go to a keystore
// file that cmd/device reads.
func startSandbox(ctx context.Context, cfg web.Config, logger *slog.Logger) (*localSandbox, error) {
	sb, err := sandbox.New(sandbox.Options{
		Control:   true,
		Local:     true,
		Logger:    logger.With("component", "sandbox"),
		StatePath: filepath.Join(cfg.DataDir, "sandbox-state.json"),
	})
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	demo, err := sandbox.SeedDemo(sb, sandbox.DemoOptions{
		CallbackURL:  cfg.PublicOrigin + "/webhooks/partner-api",
		KeystorePath: filepath.Join(cfg.DataDir, "device-keys.json"),
	})
	if err != nil {
		sb.Close()
		return nil, fmt.Errorf("seed sandbox: %w", err)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		sb.Close()
		return nil, fmt.Errorf("sandbox listen: %w", err)
	}
	srv := &http.Server{Handler: sb, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("sandbox server", "err", err)
		}
	}()
	return &localSandbox{BaseURL: "http://" + ln.Addr().String(), Demo: demo, server: sb, http: srv}, nil
}

// Stop stops serving and the webhook sender.
func (l *localSandbox) Stop(ctx context.Context) {
	_ = l.http.Shutdown(ctx)
	l.server.Close()
}
