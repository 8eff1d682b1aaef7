package opstest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestDrainProcessesEachEventOnceAndTakesOverAbandonedClaims: stored
// deliveries are processed by drain jobs, each event once; an event
// claimed by a worker that died is processed once its claim runs out.
func TestDrainProcessesEachEventOnceAndTakesOverAbandonedClaims(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, StartWorkers: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	const n = 30
	for i := range n {
		id := fmt.Sprintf("wh-drain-%d", i)
		body := webtest.EventBody(id, apiclient.EventCardTransactionCreated, map[string]any{"cardId": "card-1", "transactionId": id})
		if code := webtest.MustDeliver(t, env, secret, id, body); code != http.StatusOK {
			t.Fatalf("delivery %d: %d", i, code)
		}
	}
	processedOnce := func(like string, want int) {
		t.Helper()
		webtest.WaitFor(t, "every stored event processed", 30*time.Second, func() bool {
			var done int
			_ = env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE webhook_id LIKE $1 AND state <> 'queued'`, like).Scan(&done)
			return done == want
		})
		var twice int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE webhook_id LIKE $1 AND processed_count <> 1`, like).Scan(&twice); err != nil {
			t.Fatal(err)
		}
		if twice != 0 {
			t.Fatalf("%d events not processed exactly once", twice)
		}
	}
	processedOnce("wh-drain-%", n)
	var drains int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, webhooks.DrainArgs{}.Kind()).Scan(&drains); err != nil {
		t.Fatal(err)
	}
	if drains < 1 || drains > n {
		t.Fatalf("%d drain jobs for %d deliveries sent one after another, want between 1 and %d", drains, n, n)
	}

}

// TestDrainTakesOverAbandonedClaims: an event claimed by a worker that
// died is processed by the next drain once its claim runs out, and not
// before.
func TestDrainTakesOverAbandonedClaims(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	drain := func() {
		t.Helper()
		if err := (&webhooks.DrainWorker{H: env.App.Webhooks()}).Work(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	processed := func() int {
		t.Helper()
		var n int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM webhook_events
			WHERE webhook_id LIKE 'wh-orphan-%' AND state <> 'queued' AND processed_count = 1`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A worker claims events and dies: they are claimed, not processed.
	var version int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT secret_version FROM webhook_subscription WHERE id = 1`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		id := fmt.Sprintf("wh-orphan-%d", i)
		body := webtest.EventBody(id, apiclient.EventCardTransactionCreated, map[string]any{"cardId": "card-1", "transactionId": id})
		if _, err := env.Store.ReceiveDeliveries(ctx, []store.NewDelivery{{WebhookID: id, EventType: apiclient.EventCardTransactionCreated,
			Body: body, SecretVersion: version}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	claimed, err := env.Store.ClaimQueuedEvents(ctx, 10, time.Hour)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claimed %d events (%v), want the 3 stored without a job", len(claimed), err)
	}
	if again, err := env.Store.ClaimQueuedEvents(ctx, 10, time.Hour); err != nil || len(again) != 0 {
		t.Fatalf("a second claim took %d claimed events (%v), want none", len(again), err)
	}
	drain()
	if n := processed(); n != 0 {
		t.Fatalf("%d claimed events processed while their claim holds", n)
	}
	// The claim runs out; the next drain (the periodic one) processes them.
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE webhook_events SET claimed_until = now() - interval '1 second' WHERE webhook_id LIKE 'wh-orphan-%'`); err != nil {
		t.Fatal(err)
	}
	drain()
	if n := processed(); n != 3 {
		t.Fatalf("%d of the 3 events processed after their claim ran out", n)
	}
}

// TestReceiverConcurrentDeliveriesAnsweredEach: deliveries sent at once
// are stored together (one statement for those waiting), and each sender
// still gets its own answer: one "received" per id and "duplicate" for
// every repeat, one event row per id, each processed once.
func TestReceiverConcurrentDeliveriesAnsweredEach(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, StartWorkers: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	const ids, copies, senders = 60, 3, 24
	work := make(chan string, ids*copies)
	for range copies {
		for i := range ids {
			work <- fmt.Sprintf("wh-conc-%d", i)
		}
	}
	close(work)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	var mu sync.Mutex
	answers := map[string][]string{}
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				body := webtest.EventBody(id, apiclient.EventCardTransactionCreated, map[string]any{"cardId": "card-1", "transactionId": id})
				req, _ := http.NewRequest(http.MethodPost, env.Server.URL+webhooks.ReceiverPath, bytes.NewReader(body))
				req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, body))
				req.Header.Set(apiclient.HeaderWebhookID, id)
				resp, err := client.Do(req)
				answer := "error"
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					answer = fmt.Sprintf("%d %s", resp.StatusCode, b)
				}
				mu.Lock()
				answers[id] = append(answers[id], answer)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i := range ids {
		id := fmt.Sprintf("wh-conc-%d", i)
		var received, duplicate int
		for _, a := range answers[id] {
			switch {
			case strings.HasPrefix(a, "200 ") && strings.Contains(a, `"received"`):
				received++
			case strings.HasPrefix(a, "200 ") && strings.Contains(a, `"duplicate"`):
				duplicate++
			default:
				t.Errorf("%s: answer %q", id, a)
			}
		}
		if received != 1 || duplicate != copies-1 {
			t.Errorf("%s: %d received, %d duplicate, want 1 and %d", id, received, duplicate, copies-1)
		}
	}
	var events, dups int
	if err := env.Store.Pool().QueryRow(context.Background(), `
		SELECT count(*), coalesce(sum(duplicates), 0)
		FROM webhook_events WHERE webhook_id LIKE 'wh-conc-%'`).Scan(&events, &dups); err != nil {
		t.Fatal(err)
	}
	if events != ids || dups != ids*(copies-1) {
		t.Fatalf("%d events, %d duplicates counted; want %d, %d", events, dups, ids, ids*(copies-1))
	}
	webtest.WaitFor(t, "every event processed once", 30*time.Second, func() bool {
		var done int
		_ = env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM webhook_events
			WHERE webhook_id LIKE 'wh-conc-%' AND state <> 'queued' AND processed_count = 1`).Scan(&done)
		return done == ids
	})
}
