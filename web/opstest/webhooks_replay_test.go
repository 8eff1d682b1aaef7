package opstest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// deliverWithHeader posts a body signed with secret, with X-Webhook-Id set
// to headerID (not sent when ""), and returns the status and the answer.
func deliverWithHeader(t *testing.T, env *webtest.Env, secret, headerID string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.URL(webhooks.ReceiverPath), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, body))
	if headerID != "" {
		req.Header.Set(apiclient.HeaderWebhookID, headerID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
}

// storedDeliveries counts every stored delivery and every processing job.
func storedDeliveries(t *testing.T, env *webtest.Env) (events, jobs int) {
	t.Helper()
	ctx := context.Background()
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM webhook_events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, webhooks.DrainArgs{}.Kind()).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	return events, jobs
}

// spec: "X-Webhook-Id: same value as the body id; use for deduplication".
// The signature covers the body, not the header: a captured delivery sent
// again under fresh header ids must not become new events.
func TestWebhookReplayedUnderNewHeaderIDIsRefused(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	body := webtest.EventBody("wh-replay-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-replay", "amount": "500.00"})

	if code, msg := deliverWithHeader(t, env, secret, "wh-replay-1", body); code != http.StatusOK || !strings.Contains(msg, "received") {
		t.Fatalf("first delivery: %d %s", code, msg)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-replay-1")
	// Workers are off: process it here, as the job would.
	if err := env.App.Webhooks().ProcessEvent(ctx, ev.ID, false); err != nil {
		t.Fatal(err)
	}

	for _, fresh := range []string{"wh-replay-2", "replay-" + strconv.Itoa(3), "WH-REPLAY-1"} {
		code, msg := deliverWithHeader(t, env, secret, fresh, body)
		if code != http.StatusBadRequest || !strings.Contains(msg, "does not match the body's id") {
			t.Errorf("same signed body under header %s: %d %s, want 400 saying the ids differ", fresh, code, msg)
		}
	}
	if events, jobs := storedDeliveries(t, env); events != 1 || jobs != 1 {
		t.Fatalf("after the replays: %d stored deliveries and %d processing jobs, want 1 and 1", events, jobs)
	}
	list, err := env.Store.ListActivity(ctx, "user-replay", 10)
	if err != nil || len(list) != 1 || list[0].Amount == nil || !list[0].Amount.Equal(decimal.RequireFromString("500")) {
		t.Fatalf("activity after the replays: %+v %v", list, err)
	}

	// The sender's own retries (same body, same header, or no header) are
	// duplicates: 200, counted, nothing new.
	if code, msg := deliverWithHeader(t, env, secret, "wh-replay-1", body); code != http.StatusOK || !strings.Contains(msg, "duplicate") {
		t.Fatalf("retry with the same header: %d %s", code, msg)
	}
	if code, msg := deliverWithHeader(t, env, secret, "", body); code != http.StatusOK || !strings.Contains(msg, "duplicate") {
		t.Fatalf("retry without the header: %d %s", code, msg)
	}
	if events, jobs := storedDeliveries(t, env); events != 1 || jobs != 1 {
		t.Fatalf("after the retries: %d stored deliveries and %d processing jobs, want 1 and 1", events, jobs)
	}
	if again := webtest.EventByWebhookID(t, env, "wh-replay-1"); again.Duplicates != 2 || again.State != store.EventProcessed {
		t.Fatalf("stored event %+v", again)
	}

	// A signed body without an id cannot be keyed: 400, nothing stored.
	for _, noID := range [][]byte{[]byte(`{"eventType":"employee.deposit.completed","payload":{"userId":"user-replay","amount":"1"}}`), []byte(`not json`)} {
		if code, msg := deliverWithHeader(t, env, secret, "wh-replay-noid", noID); code != http.StatusBadRequest || !strings.Contains(msg, "no usable id") {
			t.Errorf("body without an id: %d %s, want 400", code, msg)
		}
	}
	if events, _ := storedDeliveries(t, env); events != 1 {
		t.Fatalf("bodies without an id stored: %d deliveries", events)
	}
	// A bad signature is still a 401, whatever the ids.
	if code, _ := deliverWithHeader(t, env, strings.Repeat("0", 64), "wh-replay-2", body); code != http.StatusUnauthorized {
		t.Fatalf("bad signature: %d, want 401", code)
	}

	// The owner's replay from the event log runs processing again, which
	// changes nothing that was applied.
	owner, _ := env.SignedIn(store.RoleOwner)
	resp := env.PostForm(owner, "/events/"+strconv.FormatInt(ev.ID, 10)+"/replay", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner replays: %d", resp.StatusCode)
	}
	if err := env.App.Webhooks().ProcessEvent(ctx, ev.ID, true); err != nil {
		t.Fatal(err)
	}
	if again := webtest.EventByWebhookID(t, env, "wh-replay-1"); again.State != store.EventProcessed || again.ProcessedCount != 2 {
		t.Fatalf("after the owner's replay: %+v", again)
	}
	if n := webtest.ActivityCount(t, env, ev.ID); n != 1 {
		t.Fatalf("%d activity rows after the owner's replay, want 1", n)
	}
	doc := webtest.Doc(t, env.Get(owner, "/events"))
	if n := doc.Find(`[data-testid="event-row"]`).Length(); n != 1 {
		t.Fatalf("event log shows %d rows, want 1", n)
	}
}
