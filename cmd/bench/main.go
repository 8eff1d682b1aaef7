// Command bench measures Partner Admin as people feel it, at a company of
// each size it is given: a private PostgreSQL, the sandbox of the Partner
// API and the app built from this checkout and run as a child process,
// loaded with a company of that many employees (a fifth of them with a
// wallet holding an open proposal and five cards, ten money events a year
// each, twelve monthly payroll runs) and driven over loopback by a load
// generator in this process while signed webhook deliveries arrive at 100
// a second. The same page bytes are also served from memory by a bare
// net/http handler in a second child process: a reference column, the
// least any server on the machine can do per request. It prints one table
// per size, then the webhook receiver, a payroll run, the file checks and
// every budget with PASS or MISS, and stops by itself.
//
//	go run ./cmd/bench                               # --scale 1000,10000,100000: the budgets' run (see README.md for its time)
//	go run ./cmd/bench --scale 1000,10000            # a few minutes
//	go run ./cmd/bench --quick                       # under a minute: 1,000 employees, shorter rounds
//	go run ./cmd/bench --scale 10000 --only activity,'proposal page' --pprof /tmp/prof --hold
//	go run ./cmd/bench --replicas 2
//
// See cmd/bench/README.md for what each column means and the budgets.
//
// --only measures just the pages whose names contain one of its words and
// skips the webhook receiver, payroll and file rows unless a word names
// them (--only webhook,payroll,file); --pprof builds the app with the
// benchpprof tag (the Go profiler on a loopback listener of its own, never
// on the app's routes) and writes a CPU profile of each page's first round
// (and of the webhook run) at the last size into the directory; --hold
// keeps PostgreSQL, the sandbox and the app of the last size running after
// the table, until interrupted, with the database's address (for EXPLAIN),
// the app's and the owner's sign-in in a file only its user reads.
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
	"strconv"
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
	scale := fs.String("scale", "1000,10000,100000", "comma-separated company sizes (employees), each seeded and measured in turn")
	quick := fs.Bool("quick", false, "one size of 1,000 employees, shorter rounds and smaller files (under a minute)")
	bare := fs.Bool("bare-serve", false, "serve the pages listed in --pages from memory (started by the bench itself)")
	pages := fs.String("pages", "", "with --bare-serve: the page list the bench wrote")
	addr := fs.String("addr", "127.0.0.1:0", "with --bare-serve: loopback listen address")
	only := fs.String("only", "", "comma-separated words: measure only the pages whose names contain one (and skip the other rows)")
	hold := fs.Bool("hold", false, "keep the database, the sandbox and the app of the last size running after the table until interrupted")
	replicas := fs.Int("replicas", 1, "run this many app processes on the one database, behind a round-robin balancer (1 to 4)")
	pprofDir := fs.String("pprof", "", "write a CPU profile of each page's first round at the last size into this directory")
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
	scaleSet := false
	fs.Visit(func(f *flag.Flag) { scaleSet = scaleSet || f.Name == "scale" })
	if scaleSet || !*quick {
		sizes, err := parseScale(*scale)
		if err != nil {
			return err
		}
		cfg.Sizes = sizes
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
	cfg.Command = "go run ./cmd/bench " + strings.Join(args, " ")
	_, err := run(ctx, cfg, stdout, stderr)
	return err
}

// parseScale reads --scale: sizes of at least 100 employees, each larger
// than the one before.
func parseScale(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(part, "_", "")))
		if err != nil || n < 100 || n > 1_000_000 {
			return nil, fmt.Errorf("--scale %q: each size a number of employees from 100 to 1000000", s)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("--scale %q: sizes in increasing order", s)
		}
		out = append(out, n)
	}
	return out, nil
}
