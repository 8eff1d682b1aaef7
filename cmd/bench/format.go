package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The budgets: what people feel, at ten times the data.
const (
	budgetP99        = 50 * time.Millisecond // every page at the largest size, 32 connections
	listGrowth       = 1.25                  // a list page's p50 at ten times the company
	budgetAcks       = 2000                  // verified deliveries a second, 32 senders
	budgetAckP99     = 50 * time.Millisecond
	budgetProcessed  = 1000 // deliveries processed a second
	budgetCheck      = 5 * time.Second
	budgetProposals  = 100 // a payroll run's proposals created a second
	budgetPayrollRow = 10000
	syncGrowth       = 2.0  // the approvals sync's reads a minute at ten times the company
	writeGrowth      = 12.0 // a write of ten times the rows
	budgetRSSMiB     = 250
	budgetTotal      = 15 * time.Minute
)

func runtimeCPUs() int { return runtime.NumCPU() }

// seeded describes what the size holds.
func (s sizeReport) seeded() string {
	return fmt.Sprintf("%s employees with readiness in 5 currencies, %s wallets with a proposal each (%d of them open), %s cards, %s money events over a year, %d payroll runs",
		thousands(s.Employees), thousands(s.Wallets), min(s.Wallets, openQueue), thousands(s.Cards), thousands(s.Events), s.PayrollRuns)
}

// verdict is a budget's mark: PASS or MISS, or "not measured".
func verdict(measured, ok bool) string {
	switch {
	case !measured:
		return "not measured"
	case ok:
		return "PASS"
	default:
		return "**MISS**"
	}
}

// size returns the report of n employees, if measured.
func (r *report) size(n int) (sizeReport, bool) {
	for _, s := range r.Sizes {
		if s.Employees == n {
			return s, true
		}
	}
	return sizeReport{}, false
}

// format is the run's table, in Markdown.
func (r *report) format() string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Partner Admin bench (%s), %s UTC, on %s, GOMAXPROCS %d.\n", c.Name, r.Started.UTC().Format("2006-01-02 15:04"), r.Machine,
		runtime.GOMAXPROCS(0))
	command := "`" + strings.TrimSpace(c.Command) + "`"
	if c.Command == "" {
		command = "none (run from a test)"
	}
	fmt.Fprintf(&b, "Command: %s. The whole run took %s.\n\n", command, r.Took.Round(time.Second))
	fmt.Fprintf(&b, "Pages: %d connections from the bench's process to the app's (a child process), %d rounds of %s against the app (%s against the bare handler) after a warm-up, median over the rounds; signed webhook deliveries arrive at %d a second meanwhile. CPU per view is the CPU time the app's process and PostgreSQL's processes used in a round over its requests (10 ms ticks). The bare handler serves the same bytes from memory: a reference, never a budget.\n\n",
		c.Conns, c.Rounds, c.AppRound, c.BareRound, c.TrickleRate)
	if len(r.ReplicaRSSKiB) > 1 {
		fmt.Fprintf(&b, "Two or more replicas: %d app processes share the database behind a round-robin balancer on loopback (in the bench's process, whose CPU is not counted); every request, sign-in and delivery goes through it, and the app's CPU is that of all replicas.\n\n", len(r.ReplicaRSSKiB))
	}
	for _, s := range r.Sizes {
		s.write(&b)
	}
	r.writeLargest(&b)
	b.WriteString(r.budgets())
	return b.String()
}

// write is the section of one size: its seed, its pages and the trickle.
func (s sizeReport) write(b *strings.Builder) {
	fmt.Fprintf(b, "### %s employees\n\n", thousands(s.Employees))
	var steps []string
	for _, st := range s.Seed {
		steps = append(steps, fmt.Sprintf("%s %s", st.What, secs(st.Took)))
	}
	fmt.Fprintf(b, "Seeded %s in %s (%s); then the app's approvals sync read every wallet's proposals in %s (as the queue's refresh does) and its card index every wallet's cards in %s.\n\n",
		s.seeded(), secs(s.SeedTook), strings.Join(steps, ", "), secs(s.MirrorTook), secs(s.IndexTook))
	if len(s.Pages) > 0 {
		b.WriteString("| page | p50 | p99 | requests/s | CPU per view: app + PostgreSQL | bare handler (reference): requests/s, p99 |\n")
		b.WriteString("|---|---|---|---|---|---|\n")
		for _, p := range s.Pages {
			var app, bare []float64
			var p50, p99, bareP99, appCPU, pgCPU []time.Duration
			for _, x := range p.App {
				app = append(app, x.RPS())
				p50, p99 = append(p50, x.P50), append(p99, x.P99)
				appCPU, pgCPU = append(appCPU, x.AppCPU), append(pgCPU, x.PGCPU)
			}
			for _, x := range p.Bare {
				bare, bareP99 = append(bare, x.RPS()), append(bareP99, x.P99)
			}
			fmt.Fprintf(b, "| %s (`%s`, %s) | %s | %s | %s | %s | %s, %s |\n", p.Name, shortURI(p.URI), kib(p.Bytes),
				ms(medianDur(p50)), ms(medianDur(p99)), thousands(int(median(app))), cpuCell(medianDur(appCPU), medianDur(pgCPU)),
				thousands(int(median(bare))), ms(medianDur(bareP99)))
		}
		b.WriteString("\n")
	}
	t := s.Trickle
	fmt.Fprintf(b, "While the pages were measured: %s deliveries at %d a second, %d lost, %d processed twice (non-2xx %d, errors %d); API reads %s a minute, %s of them proposal reads (the approvals sync's), over %s. Peak RSS of the app: %d MiB.\n\n",
		thousands(t.Sent), t.Rate, t.Lost, t.ProcessedTwo, t.Non2xx, t.Errors, thousands(int(perMinute(s.APIReads, s.ReadsFor))),
		thousands(int(perMinute(s.SyncReads, s.ReadsFor))), s.ReadsFor.Round(time.Second), (s.PeakRSSKiB+512)/1024)
}

// writeLargest is the table of what is measured at the largest size only:
// the webhook receiver, payroll, file checks and replicas.
func (r *report) writeLargest(b *strings.Builder) {
	c := r.Config
	last := r.Sizes[len(r.Sizes)-1]
	if w, p, f := r.Webhooks, r.Payroll, r.Files; w != nil || p != nil || f != nil || r.Replicas != nil {
		fmt.Fprintf(b, "### At %s employees\n\n| what | figure |\n|---|---|\n", thousands(last.Employees))
		if w != nil {
			fmt.Fprintf(b, "| webhook receiver: verified deliveries acknowledged, %d senders, %s sent in %s, 20 %% repeats | %s/s; ack p50 %s, p99 %s |\n",
				c.Conns, thousands(w.Sent), w.Elapsed.Round(100*time.Millisecond), thousands(int(w.RPS())), ms(w.AckP50), ms(w.AckP99))
			fmt.Fprintf(b, "| webhook receiver: processed (%s unique, all processed %s after the last ack) | %s/s |\n",
				thousands(w.Unique), w.Drain.Round(100*time.Millisecond), thousands(int(w.ProcessedRate())))
			fmt.Fprintf(b, "| lost / processed twice | %d / %d (non-2xx %d, errors %d) |\n", w.Lost, w.ProcessedTwo, w.Non2xx, w.Errors)
		}
		if p != nil {
			fmt.Fprintf(b, "| payroll run of %s rows (%s payable): checked | %s |\n", thousands(p.Rows), thousands(p.Valid), secs(p.Check))
			fmt.Fprintf(b, "| payroll run: proposals created against the sandbox (no latency injected) | %s in %s, %.0f/s, run %s |\n",
				thousands(p.Proposals), secs(p.Send), p.ProposalRate(), p.State)
		}
		if f != nil {
			for i := range 2 {
				fmt.Fprintf(b, "| file check: payroll file of %s rows / bulk invite file of %s rows | %s / %s |\n", thousands(f.Payroll[i].Rows),
					thousands(f.Bulk[i].Rows), secs(f.Payroll[i].Took), secs(f.Bulk[i].Took))
			}
		}
		if rc := r.Replicas; rc != nil {
			fmt.Fprintf(b, "| requests the balancer sent to each replica | %s |\n", joinInts(rc.Served, " / "))
			fmt.Fprintf(b, "| the owner's session, made through the balancer, asked of each replica directly | %s |\n",
				yesNo(rc.SessionEverywhere, "the start page on each", "not checked"))
			fmt.Fprintf(b, "| after signing out through the balancer, the same cookie asked of each replica | %s |\n",
				yesNo(rc.SignedOutEverywhere, "the sign-in page on each", "not checked"))
			fmt.Fprintf(b, "| periodic jobs during the last size (each once across replicas) | approvals_sync %d runs in %d periods of %s; mirror_stale_balances %d runs in %d periods of %s |\n",
				rc.SyncRuns, rc.SyncPeriods, approvalsSyncEvery, rc.StaleRuns, rc.StalePeriods, staleBalancesEvery)
			fmt.Fprintf(b, "| %s | %s |\n", r.rssLabel(), r.rss())
		}
		b.WriteString("\n")
	}
}

// budgets is the table of budgets, each with its figure and PASS or MISS.
// They are set at 100,000 employees against 10,000; a run of other sizes
// applies them to its largest size against the one a tenth of it.
func (r *report) budgets() string {
	var b strings.Builder
	c := r.Config
	big := r.Sizes[len(r.Sizes)-1]
	small, haveSmall := r.size(big.Employees / 10)
	if big.Employees*10 != small.Employees*100 {
		haveSmall = false
	}
	at := thousands(big.Employees)
	vs := thousands(big.Employees / 10)
	fmt.Fprintf(&b, "### Budgets\n\n")
	if big.Employees != 100000 {
		fmt.Fprintf(&b, "Set at 100,000 employees against 10,000; this run applies them at %s against %s.\n\n", at, vs)
	}
	b.WriteString("| budget | measured | |\n|---|---|---|\n")
	row := func(budget, measured, mark string) { fmt.Fprintf(&b, "| %s | %s | %s |\n", budget, measured, mark) }

	if len(big.Pages) > 0 {
		pageBudgets(row, big, small, haveSmall, c.Conns)
	}
	r.workBudgets(row)
	syncBig, syncSmall := perMinute(big.SyncReads, big.ReadsFor), perMinute(small.SyncReads, small.ReadsFor)
	row(fmt.Sprintf("approvals sync: upstream reads a minute at %s ≤ %.0f × at %s", at, syncGrowth, vs),
		fmt.Sprintf("%s / %s = %s", thousands(int(syncBig)), thousands(int(syncSmall)), times(syncBig, syncSmall)),
		verdict(haveSmall && syncSmall > 0, syncBig <= syncGrowth*syncSmall))
	insBig, insSmall := big.employeesInsert(), small.employeesInsert()
	row(fmt.Sprintf("seed: inserting %s employees ≤ %.0f × the time of %s", at, writeGrowth, vs),
		fmt.Sprintf("%s / %s = %s", secs(insBig), secs(insSmall), times(insBig.Seconds(), insSmall.Seconds())),
		verdict(haveSmall && insSmall > 0, insBig.Seconds() <= writeGrowth*insSmall.Seconds()))
	r.fileBudgets(row)
	row(fmt.Sprintf("peak RSS of the app ≤ %d MiB", budgetRSSMiB), fmt.Sprintf("%d MiB", (r.PeakRSSKiB+512)/1024),
		verdict(r.PeakRSSKiB > 0, r.PeakRSSKiB <= budgetRSSMiB*1024))
	row(fmt.Sprintf("the whole run ≤ %s", budgetTotal), r.Took.Round(time.Second).String(), verdict(true, r.Took <= budgetTotal))
	return b.String()
}

// budgetRow writes one row of the budgets table.
type budgetRow func(budget, measured, mark string)

// pageBudgets: every page's p99 at the largest size, and each list page's
// p50 growth from the size a tenth of it.
func pageBudgets(row budgetRow, big, small sizeReport, haveSmall bool, conns int) {
	at, vs := thousands(big.Employees), thousands(big.Employees/10)
	var worst pageStats
	var worstP99 time.Duration
	var over []string
	for _, p := range big.Pages {
		p99 := p.p99()
		if p99 > worstP99 {
			worst, worstP99 = p, p99
		}
		if p99 > budgetP99 {
			over = append(over, fmt.Sprintf("%s %s", p.Name, ms(p99)))
		}
	}
	m := fmt.Sprintf("worst %s (%s)", ms(worstP99), worst.Name)
	if len(over) > 0 {
		m += "; over: " + strings.Join(over, ", ")
	}
	row(fmt.Sprintf("every page's p99 ≤ %s at %d connections, %s employees", ms(budgetP99), conns, at), m, verdict(true, len(over) == 0))
	for _, p := range big.Pages {
		if !p.List {
			continue
		}
		var before time.Duration
		for _, q := range small.Pages {
			if q.Name == p.Name {
				before = q.p50()
			}
		}
		ratio := 0.0
		if before > 0 {
			ratio = float64(p.p50()) / float64(before)
		}
		row(fmt.Sprintf("%s: p50 at %s ≤ %.2f × at %s", p.Name, at, listGrowth, vs),
			fmt.Sprintf("%s / %s = %.2f ×", ms(p.p50()), ms(before), ratio), verdict(haveSmall && before > 0, ratio <= listGrowth))
	}
}

// workBudgets: the webhook receiver, lost or repeated deliveries, and the
// payroll run.
func (r *report) workBudgets(row budgetRow) {
	c := r.Config
	if w := r.Webhooks; w != nil {
		row(fmt.Sprintf("webhook receiver: ≥ %s verified deliveries a second acknowledged by %d senders", thousands(budgetAcks), c.Conns),
			fmt.Sprintf("%s/s", thousands(int(w.RPS()))), verdict(true, w.RPS() >= budgetAcks))
		row(fmt.Sprintf("webhook receiver: ack p99 ≤ %s", ms(budgetAckP99)), ms(w.AckP99), verdict(true, w.AckP99 <= budgetAckP99))
		row(fmt.Sprintf("webhook receiver: ≥ %s processed a second", thousands(budgetProcessed)), fmt.Sprintf("%s/s", thousands(int(w.ProcessedRate()))),
			verdict(true, w.ProcessedRate() >= budgetProcessed))
	} else {
		row("webhook receiver", "–", verdict(false, false))
	}
	lost, twice := 0, 0
	for _, s := range r.Sizes {
		lost, twice = lost+s.Trickle.Lost, twice+s.Trickle.ProcessedTwo
	}
	if w := r.Webhooks; w != nil {
		lost, twice = lost+w.Lost, twice+w.ProcessedTwo
	}
	row("deliveries: 0 lost, 0 processed twice (the receiver's run and every trickle)", fmt.Sprintf("%d lost, %d twice", lost, twice),
		verdict(true, lost == 0 && twice == 0))
	if p := r.Payroll; p != nil {
		note := ""
		switch {
		case p.Rows < p.Want:
			note = fmt.Sprintf(" (%s rows: the app takes at most %s a file)", thousands(p.Rows), thousands(p.Rows))
		case p.Rows < budgetPayrollRow:
			note = fmt.Sprintf(" (%s rows)", thousands(p.Rows))
		}
		row(fmt.Sprintf("payroll run of %s rows checked in ≤ %s", thousands(budgetPayrollRow), secs(budgetCheck)), secs(p.Check)+note,
			verdict(true, p.Rows >= budgetPayrollRow && p.Check <= budgetCheck))
		row(fmt.Sprintf("payroll run: ≥ %d proposals created a second", budgetProposals), fmt.Sprintf("%.0f/s (%s of %s)", p.ProposalRate(),
			thousands(p.Proposals), thousands(p.Valid)), verdict(true, p.ProposalRate() >= budgetProposals && p.Proposals == p.Valid))
	} else {
		row("payroll run", "–", verdict(false, false))
	}
}

// fileBudgets: checking a payroll or bulk invite file, against one a tenth
// of its size.
func (r *report) fileBudgets(row budgetRow) {
	if f := r.Files; f != nil {
		for _, k := range []struct {
			what string
			fc   [2]fileCheck
		}{{"payroll file", f.Payroll}, {"bulk invite file", f.Bulk}} {
			note := ""
			if k.fc[1].Rows < f.Want {
				note = fmt.Sprintf(" (the app takes at most %s rows a file)", thousands(k.fc[1].Rows))
			}
			ratio := times(k.fc[1].Took.Seconds(), k.fc[0].Took.Seconds())
			row(fmt.Sprintf("checking a %s of %s rows ≤ %.0f × the time of %s", k.what, thousands(f.Want), writeGrowth, thousands(f.Want/10)),
				fmt.Sprintf("%s rows %s / %s rows %s = %s%s", thousands(k.fc[1].Rows), secs(k.fc[1].Took), thousands(k.fc[0].Rows), secs(k.fc[0].Took), ratio, note),
				verdict(true, k.fc[1].Rows >= f.Want && k.fc[1].Took.Seconds() <= writeGrowth*k.fc[0].Took.Seconds()))
		}
	} else {
		row("file checks", "–", verdict(false, false))
	}
}

// p50 and p99 are the median over the app's rounds.
func (p pageStats) p50() time.Duration {
	var v []time.Duration
	for _, x := range p.App {
		v = append(v, x.P50)
	}
	return medianDur(v)
}

func (p pageStats) p99() time.Duration {
	var v []time.Duration
	for _, x := range p.App {
		v = append(v, x.P99)
	}
	return medianDur(v)
}

// times is a over b as "n.nn ×" ("–" when b is zero).
func times(a, b float64) string {
	if b <= 0 {
		return "–"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + " ×"
}

// secs is a duration in seconds with two decimals.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

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
	part := func(d time.Duration) string {
		if d <= 0 {
			return "–"
		}
		return strconv.FormatInt(d.Microseconds(), 10)
	}
	return part(app) + " + " + part(pg) + " µs"
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
