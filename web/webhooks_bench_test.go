package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/web/webtest"
)

// BenchmarkWebhookReceiver sends b.N verified deliveries from 32 concurrent
// senders over loopback, 20% of them repeats of an id already sent, with
// processing running; it reports deliveries per second and the ack
// latencies, then waits for processing and checks that nothing was lost and
// nothing processed twice.
//
//	go test -run '^$' -bench WebhookReceiver -benchtime 20000x ./web/
func BenchmarkWebhookReceiver(b *testing.B) {
	env := webtest.New(b, webtest.Options{StartWorkers: true, SkipDemoImport: true})
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
		list[i] = delivery{id: id, body: eventBody(id, apiclient.EventCardTransactionCreated, map[string]any{
			"cardId": "card-1", "transactionId": id, "serviceUserId": "user-bench", "amount": "12.34", "fee": "0.10", "currency": "USD",
		})}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: senders, MaxIdleConnsPerHost: senders}}
	latencies := make([]time.Duration, b.N)
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
				resp, err := deliver(b, client, env.Server.URL, secret, list[i].id, list[i].body)
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
	deadline := time.Now().Add(2 * time.Minute)
	drainStart := time.Now()
	for {
		err := env.Store.Pool().QueryRow(ctx, `
			SELECT count(*), count(*) FILTER (WHERE state = 'processed'), coalesce(max(processed_count), 0),
				(SELECT count(*) FROM activity a JOIN webhook_events e ON e.id = a.webhook_event_id WHERE e.webhook_id LIKE $1)
			FROM webhook_events WHERE webhook_id LIKE $1`, fmt.Sprintf("bench-%d-%%", run)).Scan(&stored, &processed, &maxProcessed, &activities)
		if err != nil {
			b.Fatal(err)
		}
		if processed == unique || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Logf("%d deliveries (%d unique, %d repeats) from %d senders in %s: %.0f deliveries/s; ack p50 %s, p99 %s, max %s; non-2xx %d, errors %d",
		b.N, unique, b.N-unique, senders, elapsed.Round(time.Millisecond), rate, pct(0.50).Round(time.Microsecond),
		pct(0.99).Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond), non2xx.Load(), failed.Load())
	b.Logf("stored %d, processed %d (all within %s of the last ack), max processings of one event %d, activity rows %d",
		stored, processed, time.Since(drainStart).Round(time.Millisecond), maxProcessed, activities)
	if non2xx.Load() != 0 || failed.Load() != 0 || stored != unique || processed != unique || maxProcessed > 1 || activities != unique {
		b.Fatal("lost or double-processed deliveries")
	}
}
