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

func (w webhookResult) RPS() float64 { return float64(w.Sent) / w.Elapsed.Seconds() }

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
		id := fmt.Sprintf("%s-%d", prefix, i)
		k := i % len(cards)
		body, _ := json.Marshal(map[string]any{"id": id, "eventType": apiclient.EventCardTransactionCreated,
			"timestamp": time.Now().UTC().Format(time.RFC3339),
			"payload": map[string]any{"cardId": cards[k], "transactionId": id, "serviceUserId": users[k%len(users)],
				"amount": fmt.Sprintf("%d.%02d", 3+i%200, i%100), "fee": "0.10", "currency": "USD", "merchantName": "Bench Coffee"}})
		list[i] = delivery{id: id, body: body}
	}
	return list
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
				d := list[i]
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+webhooks.ReceiverPath, bytes.NewReader(d.body))
				if err != nil {
					failed.Add(1)
					continue
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, d.body))
				req.Header.Set(apiclient.HeaderWebhookID, d.id)
				req.Header.Set(apiclient.HeaderSourceEventID, "src-"+d.id)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode/100 != 2 {
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
	deadline := drainStart.Add(drainFor)
	for {
		err := pool.QueryRow(ctx, `
			SELECT count(*), count(*) FILTER (WHERE state = 'processed'), count(*) FILTER (WHERE processed_count > 1)
			FROM webhook_events WHERE webhook_id LIKE $1`, prefix+"-%").Scan(&r.Stored, &r.Processed, &r.ProcessedTwo)
		if err != nil {
			return r, fmt.Errorf("read webhook_events: %w", err)
		}
		if r.Processed >= unique || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	r.Drain = time.Since(drainStart)
	// Lost: a unique delivery not stored, or stored and never processed.
	r.Lost = unique - r.Processed
	return r, nil
}

// ceiling measures PostgreSQL's own commit rate on this machine, in this
// run: one transaction per delivery inserting an event row and a job row
// (what the receiver's acknowledgement commits), from conns connections,
// in a database of its own.
func ceiling(ctx context.Context, dsn string, conns int, d time.Duration, body []byte) (float64, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return 0, err
	}
	cfg.MaxConns, cfg.MinConns = int32(conns), int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	_, err = pool.Exec(ctx, `
		CREATE TABLE IF NOT EXISTS events (
			id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, webhook_id TEXT NOT NULL UNIQUE, event_type TEXT NOT NULL,
			received_at TIMESTAMPTZ NOT NULL DEFAULT now(), body BYTEA NOT NULL, state TEXT NOT NULL DEFAULT 'queued');
		CREATE TABLE IF NOT EXISTS jobs (
			id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, kind TEXT NOT NULL, args JSONB NOT NULL, queue TEXT NOT NULL DEFAULT 'webhooks',
			state TEXT NOT NULL DEFAULT 'available', priority SMALLINT NOT NULL DEFAULT 1, scheduled_at TIMESTAMPTZ NOT NULL DEFAULT now(),
			created_at TIMESTAMPTZ NOT NULL DEFAULT now());
		CREATE INDEX IF NOT EXISTS jobs_fetch ON jobs (state, queue, priority, scheduled_at, id);`)
	if err != nil {
		return 0, fmt.Errorf("ceiling tables: %w", err)
	}
	var seq atomic.Int64
	one := func() error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO events (webhook_id, event_type, body) VALUES ($1, $2, $3) RETURNING id`,
			fmt.Sprintf("c-%d", seq.Add(1)), apiclient.EventCardTransactionCreated, body).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO jobs (kind, args) VALUES ('webhook_event_process', jsonb_build_object('event_id', $1::bigint))`, id); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	runFor := func(d time.Duration) (int64, time.Duration, error) {
		var n atomic.Int64
		var first atomic.Value
		var wg sync.WaitGroup
		start := time.Now()
		stop := start.Add(d)
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) && ctx.Err() == nil {
					if err := one(); err != nil {
						first.CompareAndSwap(nil, err)
						return
					}
					n.Add(1)
				}
			}()
		}
		wg.Wait()
		if err, _ := first.Load().(error); err != nil {
			return 0, 0, err
		}
		return n.Load(), time.Since(start), ctx.Err()
	}
	if _, _, err := runFor(d / 5); err != nil { // warm-up
		return 0, err
	}
	n, took, err := runFor(d)
	if err != nil {
		return 0, err
	}
	return float64(n) / took.Seconds(), nil
}
