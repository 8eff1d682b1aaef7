package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/web/webtest"
)

// BenchmarkWebhookReceiver sends b.N verified deliveries from 32 concurrent
// senders over loopback, 20% of them repeats of an id already sent, with
// processing running; it reports deliveries per second and the ack
// latencies, then waits for processing and checks that nothing was lost and
// nothing processed twice.
//
//	go test -run '^$' -bench WebhookReceiver -benchtime 20000x ./web/
func BenchmarkWebhookReceiver(b *testing.B) { benchmarkReceiver(b, true) }

// BenchmarkWebhookReceiverAckOnly is the same load with the workers off:
// what acknowledging alone sustains (every delivery still stored and its
// processing job enqueued in the same transaction).
func BenchmarkWebhookReceiverAckOnly(b *testing.B) { benchmarkReceiver(b, false) }

func benchmarkReceiver(b *testing.B, process bool) {
	env := webtest.New(b, webtest.Options{StartWorkers: process, SkipDemoImport: true})
	if err := env.App.AdoptWebhookSecret(context.Background(), env.Demo.WebhookSecret); err != nil {
		b.Fatal(err)
	}
	secret := env.Demo.WebhookSecret
	const senders = 32
	// Pre-build the deliveries: every fifth one repeats an earlier id.
	type delivery struct {
		id   string
		body []byte
	}
	run := time.Now().UnixNano()
	list := make([]delivery, b.N)
	unique := 0
	for i := range list {
		if i%5 == 4 {
			list[i] = list[i-1-(i%4)]
			continue
		}
		unique++
		id := fmt.Sprintf("bench-%d-%d", run, i)
		list[i] = delivery{id: id, body: webtest.EventBody(id, apiclient.EventCardTransactionCreated, map[string]any{
			"cardId": "card-1", "transactionId": id, "serviceUserId": "user-bench", "amount": "12.34", "fee": "0.10", "currency": "USD",
		})}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: senders, MaxIdleConnsPerHost: senders}}
	latencies := make([]time.Duration, b.N)
	cpuBefore := cpuSnapshot(b, env)
	var next, non2xx, failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(list) {
					return
				}
				t0 := time.Now()
				resp, err := webtest.Deliver(b, client, env.Server.URL, secret, list[i].id, list[i].body)
				latencies[i] = time.Since(t0)
				switch {
				case err != nil:
					failed.Add(1)
				case resp.StatusCode != http.StatusOK:
					non2xx.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()

	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(float64(len(latencies)-1)*p)] }
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "deliveries/s")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")

	// Zero lost, zero double-processed (processing may lag the acks).
	ctx := context.Background()
	var stored, processed, maxProcessed, activities int
	drainStart := time.Now()
	// The counts below tell what did not drain within the wait.
	webtest.Eventually(2*time.Minute, func() bool {
		err := env.Store.Pool().QueryRow(ctx, `
			SELECT count(*), count(*) FILTER (WHERE state = 'processed'), coalesce(max(processed_count), 0),
				(SELECT count(*) FROM activity a JOIN webhook_events e ON e.id = a.webhook_event_id WHERE e.webhook_id LIKE $1)
			FROM webhook_events WHERE webhook_id LIKE $1`, fmt.Sprintf("bench-%d-%%", run)).Scan(&stored, &processed, &maxProcessed, &activities)
		if err != nil {
			b.Fatal(err)
		}
		return !process || processed == unique
	})
	b.Logf("%d deliveries (%d unique, %d repeats) from %d senders in %s: %.0f deliveries/s; ack p50 %s, p99 %s, max %s; non-2xx %d, errors %d",
		b.N, unique, b.N-unique, senders, elapsed.Round(time.Millisecond), rate, pct(0.50).Round(time.Microsecond),
		pct(0.99).Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond), non2xx.Load(), failed.Load())
	b.Logf("stored %d, processed %d (all within %s of the last ack), max processings of one event %d, activity rows %d",
		stored, processed, time.Since(drainStart).Round(time.Millisecond), maxProcessed, activities)
	// CPU spent by this process (senders included) and by the database's
	// backends, per delivery: a figure that holds whatever else the machine
	// is doing, and the rate two idle cores would sustain.
	cpuAfter := cpuSnapshot(b, env)
	perDelivery := cpuAfter.sub(cpuBefore) / time.Duration(b.N)
	b.ReportMetric(float64(perDelivery.Microseconds())/1000, "cpu-ms/delivery")
	what := "acknowledged and processed"
	if !process {
		what = "acknowledged only"
	}
	b.Logf("CPU per delivery (%s, senders included; app %s + database %s): %s; two idle cores sustain about %.0f deliveries/s", what,
		(cpuAfter.app-cpuBefore.app)/time.Duration(b.N), cpuAfter.sub(cpuBefore)/time.Duration(b.N)-(cpuAfter.app-cpuBefore.app)/time.Duration(b.N),
		perDelivery, 2/perDelivery.Seconds())
	if non2xx.Load() != 0 || failed.Load() != 0 || stored != unique {
		b.Fatal("lost deliveries")
	}
	if !process {
		var jobs int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, webhooks.DrainArgs{}.Kind()).Scan(&jobs); err != nil {
			b.Fatal(err)
		}
		b.Logf("drain jobs enqueued: %d for %d deliveries", jobs, unique)
		if jobs < 1 || jobs > unique {
			b.Fatal("stored deliveries have no drain job coming, or more than one each")
		}
		return
	}
	if processed != unique || maxProcessed > 1 || activities != unique {
		b.Fatal("lost or double-processed deliveries")
	}
}

// cpuUse is CPU time consumed so far by the test process (app) and by each
// database backend serving the test's database (by pid).
type cpuUse struct {
	app time.Duration
	db  map[int]time.Duration
}

// sub is the CPU spent between two snapshots.
func (c cpuUse) sub(before cpuUse) time.Duration {
	total := c.app - before.app
	for pid, d := range c.db {
		total += d - before.db[pid]
	}
	return total
}

func cpuSnapshot(b *testing.B, env *webtest.Env) cpuUse {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	c := cpuUse{app: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), db: map[int]time.Duration{}}
	rows, err := env.Store.Pool().Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone, or another machine's database
		}
		// Fields after the command name: state is field 3, utime 14, stime 15
		// (clock ticks, 100 per second on Linux).
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		c.db[int(pid)] = time.Duration(ut+st) * 10 * time.Millisecond
	}
	return c
}
