package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
)

// webhookResult is the receiver's run: acknowledged deliveries per second
// and their latency, then what the app's table says was stored and
// processed.
type webhookResult struct {
	Sent, Unique       int
	Elapsed            time.Duration
	AckP50, AckP99     time.Duration
	Non2xx, Errors     int64
	Stored, Processed  int
	Lost, ProcessedTwo int
	Drain              time.Duration
}

// RPS is the deliveries acknowledged a second.
func (w webhookResult) RPS() float64 { return float64(w.Sent) / w.Elapsed.Seconds() }

// ProcessedRate is the unique deliveries processed a second, from the
// first sent to the last processed.
func (w webhookResult) ProcessedRate() float64 {
	if d := w.Elapsed + w.Drain; d > 0 {
		return float64(w.Processed) / d.Seconds()
	}
	return 0
}

type delivery struct {
	id   string
	body []byte
}

// deliveries builds n deliveries of card transactions on the given cards;
// every fifth repeats an id sent before (a sender's retry).
func deliveries(prefix string, n int, cards, users []string) []delivery {
	list := make([]delivery, n)
	for i := range list {
		if i%5 == 4 {
			list[i] = list[i-1-(i%4)]
			continue
		}
		list[i] = cardDelivery(prefix, i, cards, users)
	}
	return list
}

// cardDelivery is the i-th delivery of a card transaction, its id made of
// prefix and i.
func cardDelivery(prefix string, i int, cards, users []string) delivery {
	id := fmt.Sprintf("%s-%d", prefix, i)
	k := i % len(cards)
	body, _ := json.Marshal(map[string]any{"id": id, "eventType": apiclient.EventCardTransactionCreated,
		"timestamp": time.Now().UTC().Format(time.RFC3339),
		"payload": map[string]any{"cardId": cards[k], "transactionId": id, "serviceUserId": users[k%len(users)],
			"amount": fmt.Sprintf("%d.%02d", 3+i%200, i%100), "fee": "0.10", "currency": "USD", "merchantName": "Bench Coffee"}})
	return delivery{id: id, body: body}
}

// post sends one signed delivery and reads the answer.
func post(ctx context.Context, client *http.Client, base, secret string, d delivery) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+webhooks.ReceiverPath, bytes.NewReader(d.body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, d.body))
	req.Header.Set(apiclient.HeaderWebhookID, d.id)
	req.Header.Set(apiclient.HeaderSourceEventID, "src-"+d.id)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// driveWebhooks posts the deliveries in order from conns senders, signed
// as the API signs them, until all are sent or sendFor has passed; then it
// waits until the app has processed every unique one sent (or drainFor
// passed) and reads webhook_events for what was stored and how often each
// was processed.
func driveWebhooks(ctx context.Context, base, secret string, pool *pgxpool.Pool, list []delivery, conns int, sendFor, drainFor time.Duration, prefix string) (webhookResult, error) {
	client := newClient()
	lat := make([]time.Duration, len(list))
	var next, non2xx, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(sendFor)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(stop) {
				i := int(next.Add(1)) - 1
				if i >= len(list) {
					return
				}
				t0 := time.Now()
				code, err := post(ctx, client, base, secret, list[i])
				if err != nil {
					failed.Add(1)
					continue
				}
				lat[i] = time.Since(t0)
				if code/100 != 2 {
					non2xx.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	sent := min(int(next.Load()), len(list))
	// Deliveries are claimed in order: the first sent ones went out, and a
	// repeat only repeats an earlier one.
	unique := 0
	for i := range sent {
		if list[i].id != "" && (i%5 != 4) {
			unique++
		}
	}
	r := webhookResult{Sent: sent, Unique: unique, Elapsed: time.Since(start), Non2xx: non2xx.Load(), Errors: failed.Load()}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if sent == 0 {
		return r, errors.New("no delivery sent")
	}
	lat = lat[:sent]
	slices.Sort(lat)
	r.AckP50, r.AckP99 = lat[int(float64(len(lat)-1)*0.50)], lat[int(float64(len(lat)-1)*0.99)]

	drainStart := time.Now()
	var err error
	if r.Stored, r.Processed, r.ProcessedTwo, err = waitProcessed(ctx, pool, prefix, unique, drainFor); err != nil {
		return r, err
	}
	r.Drain = time.Since(drainStart)
	// Lost: a unique delivery not stored, or stored and never processed.
	r.Lost = unique - r.Processed
	return r, nil
}

// waitProcessed waits until want deliveries whose ids start with prefix
// are processed (or within has passed), and reads how many are stored,
// processed, and processed more than once.
func waitProcessed(ctx context.Context, pool *pgxpool.Pool, prefix string, want int, within time.Duration) (stored, processed, twice int, err error) {
	deadline := time.Now().Add(within)
	for {
		err := pool.QueryRow(ctx, `
			SELECT count(*), count(*) FILTER (WHERE state = 'processed'), count(*) FILTER (WHERE processed_count > 1)
			FROM webhook_events WHERE webhook_id LIKE $1`, prefix+"-%").Scan(&stored, &processed, &twice)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("read webhook_events: %w", err)
		}
		if processed >= want || time.Now().After(deadline) {
			return stored, processed, twice, nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// trickleResult is the deliveries sent at a steady rate while the pages
// were measured, and what became of them.
type trickleResult struct {
	Rate                          int
	Sent                          int
	Non2xx, Errors                int64
	Processed, Lost, ProcessedTwo int
}

// trickle sends signed deliveries at a steady rate until finished.
type trickle struct {
	stop   chan struct{}
	done   chan struct{}
	prefix string
	rate   int
	sent   atomic.Int64
	non2xx atomic.Int64
	failed atomic.Int64
}

// startTrickle sends rate unique deliveries a second (each from its own
// goroutine, at most 32 in flight: a slow answer does not slow the rate)
// until finish is called.
func startTrickle(ctx context.Context, base, secret, prefix string, s seeded, rate int) *trickle {
	t := &trickle{stop: make(chan struct{}), done: make(chan struct{}), prefix: prefix, rate: rate}
	if rate <= 0 {
		close(t.done)
		return t
	}
	client := newClient()
	go func() {
		defer close(t.done)
		var wg sync.WaitGroup
		defer wg.Wait()
		sem := make(chan struct{}, 32)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-t.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			select {
			case sem <- struct{}{}:
			case <-t.stop:
				return
			}
			t.sent.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				code, err := post(ctx, client, base, secret, cardDelivery(prefix, i, s.Cards, s.Users))
				switch {
				case err != nil:
					t.failed.Add(1)
				case code/100 != 2:
					t.non2xx.Add(1)
				}
			}()
		}
	}()
	return t
}

// finish stops the trickle, waits until what it sent is processed (or
// within has passed) and says what became of it.
func (t *trickle) finish(ctx context.Context, pool *pgxpool.Pool, within time.Duration) (trickleResult, error) {
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
	<-t.done
	r := trickleResult{Rate: t.rate, Sent: int(t.sent.Load()), Non2xx: t.non2xx.Load(), Errors: t.failed.Load()}
	if r.Sent == 0 {
		return r, ctx.Err()
	}
	_, processed, twice, err := waitProcessed(ctx, pool, t.prefix, r.Sent, within)
	if err != nil {
		return r, err
	}
	r.Processed, r.ProcessedTwo, r.Lost = processed, twice, r.Sent-processed
	return r, nil
}
