// Webhook deliveries as the Partner API sends them, and the events the
// app stores from them.

package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
)

// AdoptWebhookSecret gives the app the demo subscription's secret, as partner-admin
// does at start in sandbox mode.
func AdoptWebhookSecret(t testing.TB, env *Env) string {
	t.Helper()
	if env.Demo.WebhookSecret == "" {
		t.Fatal("the demo has no webhook subscription")
	}
	if err := env.App.AdoptWebhookSecret(context.Background(), env.Demo.WebhookSecret); err != nil {
		t.Fatal(err)
	}
	return env.Demo.WebhookSecret
}

// EventBody is a webhook delivery's JSON body.
func EventBody(id, eventType string, payload map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "eventType": eventType, "payload": payload, "timestamp": "2026-11-22T10:00:00Z"})
	return b
}

// Deliver posts a delivery as the API's sender does (no browser headers).
func Deliver(t testing.TB, client *http.Client, base, secret, id string, body []byte) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+webhooks.ReceiverPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, body))
	req.Header.Set(apiclient.HeaderWebhookID, id)
	req.Header.Set(apiclient.HeaderSourceEventID, "src-"+id)
	resp, err := client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

// MustDeliver delivers body to the app's receiver and returns the
// status it answered.
func MustDeliver(t testing.TB, env *Env, secret, id string, body []byte) int {
	t.Helper()
	resp, err := Deliver(t, http.DefaultClient, env.Server.URL, secret, id, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// EventByWebhookID is the stored event of a delivery.
func EventByWebhookID(t testing.TB, env *Env, id string) store.WebhookEvent {
	t.Helper()
	var rowID int64
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT id FROM webhook_events WHERE webhook_id = $1`, id).Scan(&rowID); err != nil {
		t.Fatalf("event %s: %v", id, err)
	}
	ev, err := env.Store.WebhookEventByID(context.Background(), rowID)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// ActivityCount counts the activity rows a webhook event made.
func ActivityCount(t testing.TB, env *Env, eventID int64) int {
	t.Helper()
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM activity WHERE webhook_event_id = $1`, eventID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// WebhookFormToken is the one-time token of the subscription form.
func WebhookFormToken(env *Env, c *http.Client) string {
	return env.FormToken(c, "/settings/webhooks", `[data-testid="webhook-form"]`)
}

// WaitWebhookJobsDone waits until no event processing job is ready to run
// or running: after it, a second processing of an event would show.
func WaitWebhookJobsDone(t testing.TB, env *Env) {
	t.Helper()
	WaitFor(t, "the event processing jobs to finish", 30*time.Second, func() bool {
		var left int
		err := env.Store.Pool().QueryRow(context.Background(), `
			SELECT count(*) FROM river_job WHERE kind IN ($1, $2) AND state IN ('available', 'pending', 'running')`,
			webhooks.ProcessEventArgs{}.Kind(), webhooks.DrainArgs{}.Kind()).Scan(&left)
		if err != nil {
			t.Fatal(err)
		}
		return left == 0
	})
}
