// Command bench measures Partner Admin as it runs: a private PostgreSQL, the
// sandbox of the Partner API and the app built from this checkout and run as
// a child process, loaded with a realistic company (10,000 employees with
// their readiness, 2,000 wallets with open proposals, 10,000 cards and a
// year of activity), and driven over loopback by a load generator in this
// process. The same page bytes are also served from memory by a bare
// net/http handler in a second child process, so every figure comes with
// the ceiling of the machine it was measured on. It prints one table and
// stops by itself.
//
//	go run ./cmd/bench           # about 4 to 5 minutes on 2 cores
//	go run ./cmd/bench --quick   # under a minute: fewer rows, shorter rounds
//	go run ./cmd/bench --only activity,'proposal page' --pprof /tmp/prof --hold
//	go run ./cmd/bench --replicas 2
//
// --only measures just the pages whose names contain one of its words and
// skips the mirror-refresh rows, and the webhook and commit-ceiling rows
// unless a word names them (--only webhook); --pprof builds
// the app with the benchpprof tag (the Go profiler on a loopback listener of
// its own, never on the app's routes) and writes a CPU profile of each
// page's first round (and of the webhook run) into the directory; --hold keeps PostgreSQL, the
// sandbox and the app running after the table, until interrupted, with the
// database's address (for EXPLAIN), the app's and the owner's sign-in in a
// file only its user reads.
//
// --replicas 2 runs two app processes on the one database behind a
// round-robin balancer on loopback (every page, sign-in and delivery goes
// through it) and adds what two replicas must get right to the table: the
// session works on each, a sign-out through the balancer ends it on each,
// deliveries are stored and processed once, periodic jobs run once.
//
// Only loopback addresses are used. --bare-serve is the bare handler's own
// mode, started by the bench itself.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cli(ctx, os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func cli(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "fewer rows and shorter rounds (under a minute)")
	bare := fs.Bool("bare-serve", false, "serve the pages listed in --pages from memory (started by the bench itself)")
	pages := fs.String("pages", "", "with --bare-serve: the page list the bench wrote")
	addr := fs.String("addr", "127.0.0.1:0", "with --bare-serve: loopback listen address")
	only := fs.String("only", "", "comma-separated words: measure only the pages whose names contain one (and skip the other rows)")
	hold := fs.Bool("hold", false, "keep the database, the sandbox and the app running after the table until interrupted")
	replicas := fs.Int("replicas", 1, "run this many app processes on the one database, behind a round-robin balancer (1 to 4)")
	pprofDir := fs.String("pprof", "", "write a CPU profile of each page's first round into this directory")
	if len(args) > 0 {
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bare {
		return serveBare(ctx, *pages, *addr, stdout)
	}
	cfg := fullConfig()
	if *quick {
		cfg = quickConfig()
	}
	for w := range strings.SplitSeq(*only, ",") {
		if w = strings.TrimSpace(w); w != "" {
			cfg.Only = append(cfg.Only, strings.ToLower(w))
		}
	}
	if *replicas < 1 || *replicas > 4 {
		return fmt.Errorf("--replicas %d: between 1 and 4", *replicas)
	}
	cfg.Hold, cfg.PprofDir, cfg.Replicas = *hold, *pprofDir, *replicas
	_, err := run(ctx, cfg, stdout, stderr)
	return err
}
