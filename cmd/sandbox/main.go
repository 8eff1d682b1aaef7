// Command sandbox serves the Partner API sandbox (apiclient/sandbox) over
// HTTP: a stateful simulator of the spec with real webhooks and, with
// --control, the control API under /_sandbox/.
//
//	go run ./cmd/sandbox --demo --control --addr 127.0.0.1:8090
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"partneradmin/apiclient/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

type keyList []string

func (k *keyList) String() string { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*k = append(*k, part)
		}
	}
	return nil
}

type config struct {
	addr        string
	demo        bool
	control     bool
	local       string
	keys        keyList
	statePath   string
	callbackURL string
	keystore    string
	settleDelay time.Duration
	debug       bool
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8090", "listen address")
	fs.BoolVar(&c.demo, "demo", false, "seed the demo partner (prints its API key)")
	fs.BoolVar(&c.control, "control", false, "enable the control API under /_sandbox/")
	fs.StringVar(&c.local, "local", "auto", "local mode: allow http:// webhook callbacks to loopback hosts (true, false, or auto = when --addr is a loopback address)")
	fs.Var(&c.keys, "api-key", "API key of an extra partner (repeatable, or comma-separated; also SANDBOX_API_KEYS)")
	fs.StringVar(&c.statePath, "state", "", "state file: restored at start, saved after each change")
	fs.StringVar(&c.callbackURL, "callback-url", "", "webhook callback of the demo partner's subscription (with --demo)")
	fs.StringVar(&c.keystore, "keystore", "", "device keystore file for the demo owner keys (with --demo)")
	fs.DurationVar(&c.settleDelay, "settle-delay", 30*time.Second, "sandbox time after which submitted workflows settle (negative: only the control API settles)")
	fs.BoolVar(&c.debug, "debug", false, "debug logging")
	if err := fs.Parse(args[1:]); err != nil {
		return c, fmt.Errorf("parse flags: %w", err)
	}
	if env := getenv("SANDBOX_API_KEYS"); env != "" {
		_ = c.keys.Set(env)
	}
	if !c.demo && len(c.keys) == 0 {
		return c, errors.New("no partners: give --demo or --api-key (or SANDBOX_API_KEYS)")
	}
	switch c.local {
	case "true", "false", "auto":
	default:
		return c, fmt.Errorf("--local must be true, false or auto, not %q", c.local)
	}
	if c.settleDelay == 0 {
		return c, errors.New("--settle-delay must not be zero")
	}
	return c, nil
}

// run serves until ctx ends. ready, if not nil, receives the bound address.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, ready chan<- string) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if cfg.debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	local := cfg.local == "true" || cfg.local == "auto" && loopback(cfg.addr)
	srv, err := sandbox.New(sandbox.Options{
		APIKeys:     cfg.keys,
		Control:     cfg.control,
		Local:       local,
		Logger:      log,
		StatePath:   cfg.statePath,
		SettleDelay: cfg.settleDelay,
	})
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	defer srv.Close()
	if cfg.demo {
		info, err := sandbox.SeedDemo(srv, sandbox.DemoOptions{CallbackURL: cfg.callbackURL, KeystorePath: cfg.keystore})
		if err != nil {
			return fmt.Errorf("seed demo: %w", err)
		}
		fmt.Fprintf(stdout, "demo partner: %s (%s), %d employees, treasury user %s\n", info.PartnerName, info.PartnerID, len(info.Employees), info.TreasuryUserID)
		if info.WebhookSecret != "" {
			fmt.Fprintf(stdout, "demo webhook secret: %s\n", info.WebhookSecret)
		}
		if cfg.keystore != "" {
			fmt.Fprintf(stdout, "demo owner keys: %s\n", cfg.keystore)
		}
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	for _, p := range srv.Partners() {
		fmt.Fprintf(stdout, "partner: %s (%s)\n", p.Name, p.ID)
		fmt.Fprintf(stdout, "api key: %s\n", p.APIKey)
	}
	fmt.Fprintf(stdout, "listening on http://%s (control API: %v, local mode: %v)\n", ln.Addr(), cfg.control, local)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      3 * time.Minute, // injected latency can be long
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// loopback reports whether a listen address only accepts local connections.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
