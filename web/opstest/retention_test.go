package opstest

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestWebhookBodyRetention: with a 30-day retention, a processed event's
// body is blanked once it is older than that (by the injected clock), and
// not a day before; an event that was not processed keeps its body; the
// row stays, so a late duplicate is still recognised; the event page says
// why the payload is gone and offers no replay.
func TestWebhookBodyRetention(t *testing.T) {
	t.Parallel()
	const retention = 30 * 24 * time.Hour
	clk := &clock{}
	env := webtest.New(t, webtest.Options{Now: clk.Now, WebhookBodyRetention: retention})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()

	webtest.MustDeliver(t, env, secret, "wh-ret-1", webtest.EventBody("wh-ret-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-ret", "amount": "10"}))
	webtest.MustDeliver(t, env, secret, "wh-ret-2", webtest.EventBody("wh-ret-2", "brand.new.event", map[string]any{"a": 1}))
	for _, id := range []string{"wh-ret-1", "wh-ret-2"} {
		if err := env.App.Webhooks().ProcessEvent(ctx, webtest.EventByWebhookID(t, env, id).ID, false); err != nil {
			t.Fatal(err)
		}
	}
	if st := webtest.EventByWebhookID(t, env, "wh-ret-1").State; st != store.EventProcessed {
		t.Fatalf("deposit state %s", st)
	}
	if st := webtest.EventByWebhookID(t, env, "wh-ret-2").State; st != store.EventKept {
		t.Fatalf("unknown type state %s", st)
	}

	logs := &webtest.LogBuffer{}
	w := &webhooks.RetentionWorker{Store: env.Store, Retention: retention, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	run := func() int {
		t.Helper()
		n, err := w.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := run(); n != 0 {
		t.Fatalf("fresh events: %d bodies removed", n)
	}
	clk.Advance(retention - 24*time.Hour)
	if n := run(); n != 0 {
		t.Fatalf("a day before the retention: %d bodies removed", n)
	}
	clk.Advance(2 * 24 * time.Hour)
	if n := run(); n != 1 {
		t.Fatalf("after the retention: %d bodies removed, want 1", n)
	}
	if !strings.Contains(logs.String(), "removed=1") {
		t.Fatalf("the job does not log how many it removed: %s", logs)
	}
	if n := run(); n != 0 {
		t.Fatalf("second run: %d bodies removed", n)
	}
	gone, kept := webtest.EventByWebhookID(t, env, "wh-ret-1"), webtest.EventByWebhookID(t, env, "wh-ret-2")
	if len(gone.Body) != 0 || gone.BodyRemovedAt.IsZero() || gone.State != store.EventProcessed {
		t.Fatalf("processed event after retention: %d bytes, removed at %v, state %s", len(gone.Body), gone.BodyRemovedAt, gone.State)
	}
	if len(kept.Body) == 0 || !kept.BodyRemovedAt.IsZero() {
		t.Fatalf("unprocessed event lost its body")
	}

	// The row still deduplicates.
	resp, err := webtest.Deliver(t, http.DefaultClient, env.Server.URL, secret, "wh-ret-1", webtest.EventBody("wh-ret-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-ret", "amount": "10"}))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("late duplicate: %v %v", resp, err)
	}
	if d := webtest.EventByWebhookID(t, env, "wh-ret-1"); d.Duplicates != 1 || len(d.Body) != 0 {
		t.Fatalf("late duplicate: %d duplicates, %d bytes", d.Duplicates, len(d.Body))
	}

	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/events/"+strconv.FormatInt(gone.ID, 10)))
	if msg := webtest.TestID(doc, "event-body-removed"); !strings.Contains(msg, "Body removed after 30 days") {
		t.Fatalf("detail says %q", msg)
	}
	if doc.Find(`[data-testid="event-payload"], [data-testid="replay-one"]`).Length() != 0 {
		t.Fatal("a removed body still shows a payload or a replay button")
	}
	doc = webtest.Doc(t, env.Get(owner, "/events/"+strconv.FormatInt(kept.ID, 10)))
	if p := webtest.TestID(doc, "event-payload"); !strings.Contains(p, "brand.new.event") {
		t.Fatalf("kept payload %q", p)
	}
	doc = webtest.Doc(t, env.Get(owner, "/events"))
	if msg := webtest.TestID(doc, "events-retention"); !strings.Contains(msg, "removed after 30 days") {
		t.Fatalf("event log says %q", msg)
	}
	// Replaying it is refused, and nothing is enqueued.
	resp = env.PostForm(owner, "/events/"+strconv.FormatInt(gone.ID, 10)+"/replay", nil)
	resp.Body.Close()
	var jobs int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1 AND (args->>'replay')::boolean`,
		webhooks.ProcessEventArgs{}.Kind()).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != 0 {
		t.Fatalf("%d replay jobs enqueued for a removed body", jobs)
	}
}

// TestWebhookBodyRetentionRunsPeriodically: the app schedules the job
// (at start, then hourly) and it logs what it removed.
func TestWebhookBodyRetentionRunsPeriodically(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true, WebhookBodyRetention: 24 * time.Hour})
	webtest.WaitFor(t, "the retention job's log line", 30*time.Second, func() bool {
		return strings.Contains(env.Logs.String(), "webhook body retention") && strings.Contains(env.Logs.String(), "retention_days=1")
	})

}
