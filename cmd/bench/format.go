package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// format is the run's table, in Markdown.
func (r *report) format() string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Partner Admin bench (%s), %s, %d CPUs, GOMAXPROCS %d: %s.\n", c.Name, r.Started.Format("2006-01-02"), runtime.NumCPU(),
		runtime.GOMAXPROCS(0), r.Seeded)
	fmt.Fprintf(&b, "Pages: %d connections, %d rounds of %s against the app (%s against the bare handler) after a warm-up; median (min–max) over the rounds; CPU per request is the CPU time the app's process and PostgreSQL's processes used in a round over its requests (median of the rounds; 10 ms ticks), which other work on the machine hardly moves.\n\n",
		c.Conns, c.Rounds, c.AppRound, c.BareRound)
	if r.Replicas != nil {
		fmt.Fprintf(&b, "Two or more replicas: %d app processes share the database behind a round-robin balancer on loopback (in the bench's process, whose CPU is not counted); every request, sign-in and delivery goes through it, and the app's CPU is that of all replicas.\n\n", len(r.ReplicaRSSKiB))
	}
	b.WriteString("| page | requests/s | share of bare | p50 | p95 | p99 | bare requests/s | CPU per request: app + PostgreSQL |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Pages {
		var app, bare []float64
		var p50, p95, p99, appCPU, pgCPU []time.Duration
		for _, x := range p.App {
			app = append(app, x.RPS())
			p50, p95, p99 = append(p50, x.P50), append(p95, x.P95), append(p99, x.P99)
			appCPU, pgCPU = append(appCPU, x.AppCPU), append(pgCPU, x.PGCPU)
		}
		for _, x := range p.Bare {
			bare = append(bare, x.RPS())
		}
		share := 0.0
		if m := median(bare); m > 0 {
			share = median(app) / m * 100
		}
		fmt.Fprintf(&b, "| %s (`%s`, %s) | %s | %.1f %% | %s | %s | %s | %s | %s |\n", p.Name, shortURI(p.URI), kib(p.Bytes),
			spread(app), share, ms(medianDur(p50)), ms(medianDur(p95)), ms(medianDur(p99)), thousands(int(median(bare))),
			cpuCell(medianDur(appCPU), medianDur(pgCPU)))
	}
	b.WriteString("\n| what | figure |\n|---|---|\n")
	if rc := r.Replicas; rc != nil {
		fmt.Fprintf(&b, "| requests the balancer sent to each replica | %s |\n", joinInts(rc.Served, " / "))
		fmt.Fprintf(&b, "| the owner's session, made through the balancer, asked of each replica directly | %s |\n",
			yesNo(rc.SessionEverywhere, "the start page on each", "not checked"))
		fmt.Fprintf(&b, "| after signing out through the balancer, the same cookie asked of each replica | %s |\n",
			yesNo(rc.SignedOutEverywhere, "the sign-in page on each", "not checked"))
		fmt.Fprintf(&b, "| periodic jobs during the run (each once across replicas) | approvals_sync %d runs in %d periods of %s; mirror_stale_balances %d runs in %d periods of %s |\n",
			rc.SyncRuns, rc.SyncPeriods, approvalsSyncEvery, rc.StaleRuns, rc.StalePeriods, staleBalancesEvery)
	}
	if !c.webhooks() {
		fmt.Fprintf(&b, "| %s | %s |\n", r.rssLabel(), r.rss())
		fmt.Fprintf(&b, "\nOnly the pages named by %q were measured; the run took %s.\n", strings.Join(c.Only, ","), r.Took.Round(time.Second))
		return b.String()
	}
	w := r.Webhooks
	fmt.Fprintf(&b, "| webhook receiver: verified deliveries/s, %d senders, %s sent in %s, 20 %% repeats | %s/s; ack p50 %s, p99 %s |\n",
		c.Conns, thousands(w.Sent), w.Elapsed.Round(100*time.Millisecond), thousands(int(w.RPS())), ms(w.AckP50), ms(w.AckP99))
	fmt.Fprintf(&b, "| lost / processed twice (webhook_events, %s unique) | %d / %d (non-2xx %d, errors %d; all processed %s after the last ack) |\n",
		thousands(w.Unique), w.Lost, w.ProcessedTwo, w.Non2xx, w.Errors, w.Drain.Round(100*time.Millisecond))
	share := 0.0
	if r.CeilingTPS > 0 {
		share = w.RPS() / r.CeilingTPS * 100
	}
	fmt.Fprintf(&b, "| PostgreSQL commit ceiling (an event row and a job row per transaction, %d concurrent) | %s transactions/s; the receiver reaches %.0f %% of it |\n",
		c.Conns, thousands(int(r.CeilingTPS)), share)
	for _, m := range r.Mirror {
		fmt.Fprintf(&b, "| mirror refresh (`POST /approvals/refresh`), %s wallets, %d ms injected per read | %s |\n", thousands(m.Wallets), m.LatencyMs, durs(m.Took))
	}
	fmt.Fprintf(&b, "| %s | %s |\n", r.rssLabel(), r.rss())
	fmt.Fprintf(&b, "\nThe whole run took %s.\n", r.Took.Round(time.Second))
	return b.String()
}

// rssLabel and rss are the peak RSS row: the app's, or each replica's.
func (r *report) rssLabel() string {
	if len(r.ReplicaRSSKiB) > 1 {
		return "peak RSS of each replica (VmHWM)"
	}
	return "peak RSS of the app (VmHWM)"
}

func (r *report) rss() string {
	if len(r.ReplicaRSSKiB) <= 1 {
		return fmt.Sprintf("%d MiB", (r.PeakRSSKiB+512)/1024)
	}
	parts := make([]string, len(r.ReplicaRSSKiB))
	for i, k := range r.ReplicaRSSKiB {
		parts[i] = fmt.Sprintf("%d MiB", (k+512)/1024)
	}
	return strings.Join(parts, ", ")
}

func joinInts(v []int64, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = thousands(int(x))
	}
	return strings.Join(parts, sep)
}

func yesNo(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// cpuCell is the CPU per request of the app and of PostgreSQL, in µs.
func cpuCell(app, pg time.Duration) string {
	if app <= 0 && pg <= 0 {
		return "–"
	}
	return fmt.Sprintf("%d + %d µs", app.Microseconds(), pg.Microseconds())
}

// spread is "median (min–max)" of requests per second.
func spread(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%s (%s–%s)", thousands(int(median(v))), thousands(int(lo)), thousands(int(hi)))
}

func durs(d []time.Duration) string {
	if len(d) == 0 {
		return "–"
	}
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = x.Round(10 * time.Millisecond).String()
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func kib(n int) string { return fmt.Sprintf("%.0f KiB", float64(n)/1024) }

func shortURI(u string) string {
	if len(u) > 30 {
		return u[:27] + "…"
	}
	return u
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
