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

	"github.com/jackc/pgx/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/web/webtest"
)

// TestReceiverJobRowMatchesRiver: the receiver writes a delivery's
// processing job in the statement that stores the delivery (one round
// trip, one commit), not through river's InsertTx; the row must be the one
// InsertTx writes for the same arguments, so river works it the same way.
func TestReceiverJobRowMatchesRiver(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	body := webtest.EventBody("wh-jobrow-1", apiclient.EventCardTransactionCreated, map[string]any{"cardId": "card-1", "transactionId": "t-1"})
	if code := webtest.MustDeliver(t, env, secret, "wh-jobrow-1", body); code != http.StatusOK {
		t.Fatalf("delivery: %d", code)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-jobrow-1")
	// A repeat stores no second job.
	if code := webtest.MustDeliver(t, env, secret, "wh-jobrow-1", body); code != http.StatusOK {
		t.Fatalf("repeat: %d", code)
	}

	h := env.App.Webhooks()
	var riverJobID int64
	if err := env.Store.InTx(ctx, func(tx pgx.Tx) error {
		res, err := h.Queue.InsertTx(ctx, tx, webhooks.ProcessEventArgs{EventID: ev.ID, EventType: ev.EventType}, nil)
		if err != nil {
			return err
		}
		riverJobID = res.Job.ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	const cols = `args, kind, max_attempts, priority, queue, state::text, tags::text, metadata, unique_key IS NULL, unique_states IS NULL,
		attempt, errors IS NULL, scheduled_at <= now()`
	type row struct {
		Args                        string
		Kind                        string
		MaxAttempts, Priority       int
		Queue, State, Tags          string
		Metadata                    string
		NoUniqueKey, NoUniqueStates bool
		Attempt                     int
		NoErrors, Due               bool
	}
	read := func(where string, arg any) (row, int) {
		t.Helper()
		rows, err := env.Store.Pool().Query(ctx, `SELECT `+cols+` FROM river_job WHERE `+where+` ORDER BY id`, arg)
		if err != nil {
			t.Fatal(err)
		}
		list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err != nil || len(list) == 0 {
			t.Fatalf("river_job where %s: %d rows, %v", where, len(list), err)
		}
		return list[0], len(list)
	}
	mine, n := read(`kind = 'webhook_event_process' AND id <> $1`, riverJobID)
	if n != 1 {
		t.Fatalf("one delivery and a repeat stored %d processing jobs, want 1", n)
	}
	theirs, _ := read(`id = $1`, riverJobID)
	t.Logf("receiver's job row: %+v", mine)
	if mine != theirs {
		t.Fatalf("the receiver's job row differs from river's InsertTx:\n receiver %+v\n river    %+v", mine, theirs)
	}
}

// TestReceiverConcurrentDeliveriesAnsweredEach: deliveries sent at once
// are stored together (one statement for those waiting), and each sender
// still gets its own answer: one "received" per id and "duplicate" for
// every repeat, one event row and one processing job per id.
func TestReceiverConcurrentDeliveriesAnsweredEach(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
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
	var events, dups, jobs int
	if err := env.Store.Pool().QueryRow(context.Background(), `
		SELECT count(*), coalesce(sum(duplicates), 0),
			(SELECT count(*) FROM river_job WHERE kind = 'webhook_event_process')
		FROM webhook_events WHERE webhook_id LIKE 'wh-conc-%'`).Scan(&events, &dups, &jobs); err != nil {
		t.Fatal(err)
	}
	if events != ids || dups != ids*(copies-1) || jobs != ids {
		t.Fatalf("%d events, %d duplicates counted, %d jobs; want %d, %d, %d", events, dups, jobs, ids, ids*(copies-1), ids)
	}
}
