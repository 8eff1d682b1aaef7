package opstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

func TestWebhookReceiverAnswers(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()

	body := webtest.EventBody("wh-answers-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-x", "amount": "10.05"})
	before, _ := env.Store.WebhookSubscription(ctx)
	// Bad signature: 401 with the spec's message, counted, warned about.
	resp, err := webtest.Deliver(t, http.DefaultClient, env.Server.URL, strings.Repeat("0", 64), "wh-answers-1", body)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad signature: %v %v", resp, err)
	}
	req, _ := http.NewRequest(http.MethodPost, env.URL(webhooks.ReceiverPath), bytes.NewReader(body))
	req.Header.Set(apiclient.HeaderWebhookSignature, "nope")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if r2.StatusCode != http.StatusUnauthorized || !strings.Contains(string(msg), "Invalid webhook signature") {
		t.Fatalf("bad signature answer: %d %s", r2.StatusCode, msg)
	}
	if !strings.Contains(env.Logs.String(), "invalid signature") {
		t.Fatal("no warning in the log")
	}
	if _, err := env.Store.Pool().Exec(ctx, `SELECT 1 FROM webhook_events WHERE webhook_id = 'wh-answers-1'`); err != nil {
		t.Fatal(err)
	}
	var stored int
	_ = env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE webhook_id = 'wh-answers-1'`).Scan(&stored)
	if stored != 0 {
		t.Fatal("a delivery with a bad signature was stored")
	}
	if after, _ := env.Store.WebhookSubscription(ctx); after.SignatureFailures != before.SignatureFailures+2 {
		t.Fatalf("signature failures %d → %d, want +2", before.SignatureFailures, after.SignatureFailures)
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/settings/webhooks"))
	if w := webtest.TestID(doc, "signature-warning"); !strings.Contains(w, "deliveries were refused") || !strings.Contains(w, "lost") {
		t.Fatalf("settings warning %q", w)
	}

	// Valid: 200 and stored; the same id again: 200, counted, not stored twice.
	if code := webtest.MustDeliver(t, env, secret, "wh-answers-1", body); code != http.StatusOK {
		t.Fatalf("valid delivery: %d", code)
	}
	if code := webtest.MustDeliver(t, env, secret, "wh-answers-1", body); code != http.StatusOK {
		t.Fatalf("duplicate: %d", code)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-answers-1")
	if ev.Duplicates != 1 || ev.SourceEventID != "src-wh-answers-1" || ev.EventType != apiclient.EventEmployeeDepositCompleted || ev.State != store.EventQueued {
		t.Fatalf("stored %+v", ev)
	}
	var jobs int
	_ = env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, webhooks.DrainArgs{}.Kind()).Scan(&jobs)
	if jobs != 1 {
		t.Fatalf("%d processing jobs enqueued for a delivery and its repeat, want 1", jobs)
	}

	// Valid signature, not an event: stored as unparseable under the body's
	// id, 200, shown.
	garbage := []byte(`{"id":"wh-answers-garbage","hello":"world"}`)
	if code := webtest.MustDeliver(t, env, secret, "wh-answers-garbage", garbage); code != http.StatusOK {
		t.Fatalf("unparseable: %d", code)
	}
	if ev := webtest.EventByWebhookID(t, env, "wh-answers-garbage"); ev.State != store.EventUnparseable || !strings.Contains(ev.Error, "required") {
		t.Fatalf("unparseable stored as %+v", ev)
	}
	doc = webtest.Doc(t, env.Get(owner, "/events?state=unparseable"))
	if n := doc.Find(`[data-testid="event-row"][data-state="unparseable"]`).Length(); n != 1 {
		t.Fatalf("event log shows %d unparseable rows", n)
	}

	// Over 1 MiB: refused before anything else.
	big := bytes.Repeat([]byte("a"), webhooks.MaxBodyBytes+1)
	if code := webtest.MustDeliver(t, env, secret, "wh-big", big); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("big body: %d", code)
	}
}

// failingStore fails what a test names, and is the real store otherwise.
type failingStore struct {
	*store.Store
	failReceive bool
}

func (f failingStore) ReceiveDeliveries(ctx context.Context, ds []store.NewDelivery, wake func(ctx context.Context, tx pgx.Tx) error) ([]store.Received, error) {
	if f.failReceive {
		return nil, errors.New("connection refused")
	}
	return f.Store.ReceiveDeliveries(ctx, ds, wake)
}

func TestWebhookDatabaseDownAnswers503(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	base := &handlers.Base{Logger: slog.New(slog.DiscardHandler)}
	body := webtest.EventBody("wh-down-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "u", "amount": "1"})
	post := func(h *webhooks.Handler) int {
		req := httptest.NewRequest(http.MethodPost, webhooks.ReceiverPath, bytes.NewReader(body))
		req.Header.Set(apiclient.HeaderWebhookSignature, apiclient.SignBody(secret, body))
		req.Header.Set(apiclient.HeaderWebhookID, "wh-down-1")
		rec := httptest.NewRecorder()
		h.Receive(rec, req)
		return rec.Code
	}
	// The database is unreachable: even the secret cannot be read.
	dead, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	deps := handlers.Deps{Base: base, Store: store.New(dead), Clock: time.Now, Logger: base.Logger, Config: handlers.Config{PublicOrigin: env.Config.PublicOrigin}}
	h := webhooks.New(deps, env.App.Webhooks().Box, nil)
	if code := post(h); code != http.StatusServiceUnavailable {
		t.Fatalf("database down: %d, want 503", code)
	}
	// The secret is read but the insert fails: 503 too, nothing stored.
	deps.Store = env.Store
	h = webhooks.New(deps, env.App.Webhooks().Box, nil)
	h.Store = failingStore{Store: env.Store, failReceive: true} // a fake in place of the real store
	if code := post(h); code != http.StatusServiceUnavailable {
		t.Fatalf("insert failed: %d, want 503", code)
	}
	// The sender's retry once the database is back: 200.
	if code := webtest.MustDeliver(t, env, secret, "wh-down-1", body); code != http.StatusOK {
		t.Fatalf("retry: %d", code)
	}
	t.Logf("database down → 503; bad signature → 401; duplicate → 200 (see TestWebhookReceiverAnswers)")
}

func TestWebhookDuplicateStorm(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true, SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	body := webtest.EventBody("wh-storm-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-storm", "amount": "1234.5678"})
	const n = 50
	var wg sync.WaitGroup
	var non2xx, failed atomic.Int64
	start := make(chan struct{})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	began := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := webtest.Deliver(t, client, env.Server.URL, secret, "wh-storm-1", body)
			switch {
			case err != nil:
				failed.Add(1)
			case resp.StatusCode < 200 || resp.StatusCode > 299:
				non2xx.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	elapsed := time.Since(began)
	ev := webtest.EventByWebhookID(t, env, "wh-storm-1")
	webtest.WaitFor(t, "processing", 30*time.Second, func() bool { return webtest.EventByWebhookID(t, env, "wh-storm-1").State == store.EventProcessed })
	webtest.WaitWebhookJobsDone(t, env) // a second, wrong, processing would be done by now
	ev = webtest.EventByWebhookID(t, env, "wh-storm-1")
	acts := webtest.ActivityCount(t, env, ev.ID)
	t.Logf("duplicate storm: %d concurrent deliveries of one id in %s: non-2xx %d, errors %d, stored duplicates %d, processings %d, activity rows %d",
		n, elapsed.Round(time.Millisecond), non2xx.Load(), failed.Load(), ev.Duplicates, ev.ProcessedCount, acts)
	if non2xx.Load() != 0 || failed.Load() != 0 || ev.Duplicates != n-1 || ev.ProcessedCount != 1 || acts != 1 {
		t.Fatal("duplicate storm: want 0 non-2xx, 49 duplicates, 1 processing, 1 activity row")
	}
	list, err := env.Store.ListActivity(context.Background(), "user-storm", 10)
	if err != nil || len(list) != 1 || list[0].Amount == nil || !list[0].Amount.Equal(decimal.RequireFromString("1234.5678")) {
		t.Fatalf("activity %+v %v", list, err)
	}
}

// abortOnce aborts the first answer of the receiver after the handler has
// committed, as a crash between commit and acknowledgement would.
type abortOnce struct {
	http.ResponseWriter
}

func (a abortOnce) WriteHeader(int)           { panic(http.ErrAbortHandler) }
func (a abortOnce) Write([]byte) (int, error) { panic(http.ErrAbortHandler) }

func TestWebhookCrashBetweenCommitAndAck(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true, SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	var aborted atomic.Bool
	crashy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == webhooks.ReceiverPath && aborted.CompareAndSwap(false, true) {
			w = abortOnce{w}
		}
		env.App.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(crashy.Close)
	body := webtest.EventBody("wh-crash-1", apiclient.EventEmployeeDepositCompleted, map[string]any{"userId": "user-crash", "amount": "7.00"})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := webtest.Deliver(t, client, crashy.URL, secret, "wh-crash-1", body); err == nil {
		t.Fatalf("first attempt got an answer %d; the crash did not happen", resp.StatusCode)
	}
	// The sender saw no answer and retries: 200, no second effect.
	resp, err := webtest.Deliver(t, client, crashy.URL, secret, "wh-crash-1", body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("retry: %v %v", resp, err)
	}
	webtest.WaitFor(t, "processing", 30*time.Second, func() bool { return webtest.EventByWebhookID(t, env, "wh-crash-1").State == store.EventProcessed })
	webtest.WaitWebhookJobsDone(t, env)
	ev := webtest.EventByWebhookID(t, env, "wh-crash-1")
	if ev.Duplicates != 1 || ev.ProcessedCount != 1 || webtest.ActivityCount(t, env, ev.ID) != 1 {
		t.Fatalf("after crash and retry: %+v, %d activity rows", ev, webtest.ActivityCount(t, env, ev.ID))
	}
	t.Logf("crash between commit and ack: retry answered 200, duplicates %d, processings %d", ev.Duplicates, ev.ProcessedCount)
}

// clock is a test clock that can jump.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

func TestWebhookSettingsRotateAndEdit(t *testing.T) {
	t.Parallel()
	clk := &clock{}
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, Now: clk.Now})
	old := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	owner, ownerStaff := env.SignedIn(store.RoleOwner)
	support, _ := env.SignedIn(store.RoleSupport)

	// The page shows the subscription, never its secret.
	doc := webtest.Doc(t, env.Get(owner, "/settings/webhooks"))
	if webtest.TestID(doc, "subscription-id") == "" || webtest.TestID(doc, "secret-value") != "" {
		t.Fatal("settings page: no subscription, or a secret shown")
	}
	if !strings.Contains(webtest.TestID(doc, "wallet-warning"), "never fire") {
		t.Fatal("no wallet.* warning")
	}

	// Refused role: 403, audited, nothing rotated.
	resp := env.PostForm(support, "/settings/webhooks/rotate", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support rotates: %d", resp.StatusCode)
	}
	if cfg, _ := env.API.GetWebhookConfig(ctx); cfg.SecretKey != old {
		t.Fatal("a refused rotation changed the secret")
	}

	// Without the confirmation: a message next to the box, nothing rotated.
	resp = env.PostForm(owner, "/settings/webhooks/rotate", nil)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("unconfirmed rotation: %d", resp.StatusCode)
	}
	if msg := webtest.TestID(webtest.Doc(t, resp), "rotate-confirm-error"); !strings.Contains(msg, "Tick the box") {
		t.Fatalf("unconfirmed rotation message %q", msg)
	}
	if cfg, _ := env.API.GetWebhookConfig(ctx); cfg.SecretKey != old {
		t.Fatal("an unconfirmed rotation changed the secret")
	}

	// The owner rotates: the new secret is shown once and kept sealed.
	rotateToken := env.FormToken(owner, "/settings/webhooks", `[data-testid="rotate-form"]`)
	resp = env.PostForm(owner, "/settings/webhooks/rotate", url.Values{"confirm": {"yes"}, "form_token": {rotateToken}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("rotate: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	fresh := webtest.TestID(doc, "secret-value")
	cfg, err := env.API.GetWebhookConfig(ctx)
	if err != nil || fresh != cfg.SecretKey || fresh == old || !strings.Contains(webtest.TestID(doc, "secret-once"), "stopped verifying at once") {
		t.Fatalf("rotation page: secret %q, upstream %q", fresh, cfg.SecretKey)
	}
	var sealed []byte
	if err := env.Store.Pool().QueryRow(ctx, `SELECT secret_sealed FROM webhook_subscription`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	var dump string
	_ = env.Store.Pool().QueryRow(ctx, `SELECT row_to_json(w)::text FROM webhook_subscription w`).Scan(&dump)
	if bytes.Contains(sealed, []byte(fresh)) || strings.Contains(dump, fresh) || strings.Contains(dump, old) {
		t.Fatal("the secret is stored in plain text")
	}
	if strings.Contains(env.Logs.String(), fresh) {
		t.Fatal("the secret is in the log")
	}
	doc = webtest.Doc(t, env.Get(owner, "/settings/webhooks"))
	if webtest.TestID(doc, "secret-value") != "" {
		t.Fatal("the secret is shown again")
	}
	rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "webhooks.secret.rotate"})
	if len(rows) != 1 || rows[0].Actor.StaffID != ownerStaff.ID || strings.Contains(rows[0].Detail, fresh) {
		t.Fatalf("audit %+v", rows)
	}
	denied, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "access.denied"})
	if len(denied) != 1 {
		t.Fatalf("denied audit %+v", denied)
	}

	// The receiver switched at once: the new secret verifies; the old one
	// is asked to retry for a few minutes (never accepted), then refused.
	body := webtest.EventBody("wh-rot-1", "something.new", map[string]any{"x": 1})
	if code := webtest.MustDeliver(t, env, old, "wh-rot-1", body); code != http.StatusServiceUnavailable {
		t.Fatalf("old secret right after rotation: %d, want 503", code)
	}
	if code := webtest.MustDeliver(t, env, fresh, "wh-rot-1", body); code != http.StatusOK {
		t.Fatalf("new secret: %d", code)
	}
	clk.Advance(10 * time.Minute)
	if code := webtest.MustDeliver(t, env, old, "wh-rot-2", body); code != http.StatusUnauthorized {
		t.Fatalf("old secret later: %d, want 401", code)
	}

	// A second creation is a 409 upstream: the edit form, with a message.
	resp = env.PostForm(owner, "/settings/webhooks", url.Values{"callback_url": {"https://admin.example.com/webhooks/partner-api"},
		"events": {apiclient.EventEmployeeLinked}, "form_token": {webtest.WebhookFormToken(env, owner)}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings/webhooks" {
		t.Fatalf("create over existing: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc = webtest.Doc(t, env.Get(owner, "/settings/webhooks"))
	if !strings.Contains(webtest.TestID(doc, "flash"), "already exists") || doc.Find(`form[action="/settings/webhooks/update"]`).Length() != 1 {
		t.Fatal("409 did not lead to the edit form")
	}

	// Bad input: specific messages next to the fields, nothing changed.
	before, _ := env.API.GetWebhookConfig(ctx)
	resp = env.PostForm(owner, "/settings/webhooks/update", url.Values{"callback_url": {"http://insecure.example.com/x"},
		"events": {"wallet.deposit.completed"}, "active": {"true"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad update: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	if !strings.Contains(webtest.TestID(doc, "callback-url-error"), "https://") || !strings.Contains(webtest.TestID(doc, "events-error"), "never fires") {
		t.Fatalf("messages %q %q", webtest.TestID(doc, "callback-url-error"), webtest.TestID(doc, "events-error"))
	}
	if after, _ := env.API.GetWebhookConfig(ctx); after.UpdatedAt != before.UpdatedAt {
		t.Fatal("a refused update changed the subscription")
	}

	// A good edit: fewer events, inactive, saved upstream and audited.
	resp = env.PostForm(owner, "/settings/webhooks/update", url.Values{"callback_url": {cfg.CallbackURL},
		"events": {apiclient.EventEmployeeDepositCompleted, apiclient.EventCardTransactionCreated}, "form_token": {webtest.WebhookFormToken(env, owner)}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("update: %d", resp.StatusCode)
	}
	after, _ := env.API.GetWebhookConfig(ctx)
	if after.Active || len(after.Events) != 2 {
		t.Fatalf("upstream after update: %+v", after)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "webhooks.subscription.update"}); len(rows) != 1 {
		t.Fatalf("update audit %+v", rows)
	}
	sub, _ := env.Store.WebhookSubscription(ctx)
	if sub.Active || len(sub.Events) != 2 || !sub.HasSecret() {
		t.Fatalf("kept subscription %+v", sub)
	}
}

func TestEventLogFilterReplayAndCSV(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	for i := range 3 {
		id := fmt.Sprintf("wh-log-link-%d", i)
		webtest.MustDeliver(t, env, secret, id, webtest.EventBody(id, apiclient.EventEmployeeLinked, map[string]any{
			"invitationId": "inv-" + strconv.Itoa(i), "serviceUserId": "user-log-" + strconv.Itoa(i), "companyEmail": "a@b.c",
			"partnerName": "P", "linkedAt": "2026-11-22T10:00:00Z", "kycSubmitted": true}))

	}
	webtest.MustDeliver(t, env, secret, "wh-log-unknown", webtest.EventBody("wh-log-unknown", "brand.new.event", map[string]any{"a": "=1+2"}))
	// Process them here (workers are off in this test).
	for _, id := range []string{"wh-log-link-0", "wh-log-link-1", "wh-log-link-2", "wh-log-unknown"} {
		if err := env.App.Webhooks().ProcessEvent(ctx, webtest.EventByWebhookID(t, env, id).ID, false); err != nil {
			t.Fatal(err)
		}
	}
	linked := webtest.EventByWebhookID(t, env, "wh-log-link-1")
	if linked.State != store.EventDeferred || !strings.Contains(linked.Outcome, "kept for reconciliation") {
		t.Fatalf("employee.linked without the employees area: %+v", linked)
	}
	if unknown := webtest.EventByWebhookID(t, env, "wh-log-unknown"); unknown.State != store.EventKept {
		t.Fatalf("unknown type: %+v", unknown)
	}

	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/events?type=employee.linked&state=deferred"))
	if n := doc.Find(`[data-testid="event-row"]`).Length(); n != 3 {
		t.Fatalf("filtered log shows %d rows, want 3", n)
	}
	resp := env.Get(owner, "/events?from=yesterday")
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad filter: %d", resp.StatusCode)
	}
	if msg := webtest.TestID(webtest.Doc(t, resp), "f-from-error"); !strings.Contains(msg, "2026-11-22T14:05") {
		t.Fatalf("bad filter message %q", msg)
	}
	// Detail: payload pretty-printed.
	doc = webtest.Doc(t, env.Get(owner, "/events/"+strconv.FormatInt(linked.ID, 10)))
	if p := webtest.TestID(doc, "event-payload"); !strings.Contains(p, "\n  \"eventType\": \"employee.linked\"") {
		t.Fatalf("payload %q", p)
	}

	// Replay of the filtered set: a preview first, then the replay.
	form := url.Values{"type": {"employee.linked"}}
	resp = env.PostForm(owner, "/events/replay", form)
	doc = webtest.Doc(t, resp)
	if webtest.TestID(doc, "preview-matching") != "3" || webtest.TestID(doc, "preview-would-change") != "3" {
		t.Fatalf("preview: %s matching, %s would change", webtest.TestID(doc, "preview-matching"), webtest.TestID(doc, "preview-would-change"))
	}
	// A preview asked through htmx with a filter not understood: the
	// part swapped in says why nothing is replayed, and offers no button.
	resp = env.Do(owner, http.MethodPost, "/events/replay", strings.NewReader(url.Values{"from": {"yesterday"}}.Encode()),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}})
	doc = webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "replay-refused"); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(msg, "2026-11-22T14:05") || doc.Find(`[data-testid="replay-preview"], [data-testid="replay-confirm"]`).Length() != 0 {
		t.Fatalf("htmx preview with a bad filter: %d %q", resp.StatusCode, msg)
	}
	var jobsBefore int
	_ = env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'webhook_event_process'`).Scan(&jobsBefore)
	form.Set("confirm", "yes")
	resp = env.PostForm(owner, "/events/replay", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("replay: %d", resp.StatusCode)
	}
	var jobsAfter int
	_ = env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'webhook_event_process' AND args->>'replay' = 'true'`).Scan(&jobsAfter)
	if jobsAfter != 3 {
		t.Fatalf("%d replay jobs, want 3", jobsAfter)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "webhooks.event.replay"}); len(rows) != 1 || !strings.Contains(rows[0].Detail, "3 enqueued") {
		t.Fatalf("replay audit %+v", rows)
	}
	// Replaying is idempotent: running it changes nothing that was settled.
	if err := env.App.Webhooks().ProcessEvent(ctx, linked.ID, true); err != nil {
		t.Fatal(err)
	}
	if again := webtest.EventByWebhookID(t, env, "wh-log-link-1"); again.State != store.EventDeferred || again.ProcessedCount != 2 {
		t.Fatalf("after replay: %+v", again)
	}
	// Refused role for the replay: 403, nothing enqueued.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	resp = env.PostForm(hr, "/events/"+strconv.FormatInt(linked.ID, 10)+"/replay", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr replays: %d", resp.StatusCode)
	}
	resp = env.PostForm(owner, "/events/"+strconv.FormatInt(linked.ID, 10)+"/replay", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner replays one: %d", resp.StatusCode)
	}

	// CSV export of the filtered log, with formula cells neutralised.
	resp = env.Get(owner, "/events.csv?type=employee.linked")
	csv, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if !strings.HasPrefix(lines[0], "id,received_at,event_type,webhook_id") || len(lines) != 4 {
		t.Fatalf("csv: %q", lines)
	}
}

// TestWebhookEndToEndWithSandbox: the sandbox sends real deliveries over
// loopback; a deposit credited through its control API reaches the
// employee's activity feed and the mirror's balance.
func TestWebhookEndToEndWithSandbox(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	var user string
	for _, e := range env.Demo.Employees {
		if e.ServiceUserID != "" {
			user = e.ServiceUserID
			break
		}
	}
	if user == "" {
		t.Fatal("no linked demo employee")
	}
	wallets, err := env.API.ListWallets(ctx, user)
	if err != nil || len(wallets) == 0 {
		t.Fatalf("wallets of %s: %v %v", user, wallets, err)
	}
	w := wallets[0]
	body, _ := json.Marshal(map[string]string{"smartWalletId": w.ID, "amount": "25.75"})
	resp, err := http.Post(env.SandboxURL+"/_sandbox/deposits", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("credit deposit: %v %v", resp, err)
	}
	resp.Body.Close()
	began := time.Now()
	var got store.Activity
	webtest.WaitFor(t, "the deposit in the activity feed", 30*time.Second, func() bool {
		list, err := env.Store.ListActivity(ctx, user, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range list {
			if a.Kind == store.ActivityDeposit && a.Amount != nil && a.Amount.Equal(decimal.RequireFromString("25.75")) {
				got = a
				return true
			}
		}
		return false
	})

	inFeed := time.Since(began)
	ev, err := env.Store.WebhookEventByID(ctx, got.WebhookEventID)
	if err != nil || ev.State != store.EventProcessed {
		t.Fatalf("event %+v %v", ev, err)
	}
	webtest.WaitFor(t, "the mirror's balance", 15*time.Second, func() bool {
		mw, err := env.Store.WalletByID(ctx, w.ID)
		fresh, _ := env.API.GetWallet(ctx, user, w.ID)
		return err == nil && fresh != nil && mw.Balance.Valid && mw.Balance.Decimal.Equal(fresh.Balance)
	})

	t.Logf("end to end: deposit 25.75 %s credited in the sandbox reached the activity feed of %s in %s and the mirror's balance in %s (event %s: %s)",
		got.Currency, user, inFeed.Round(time.Millisecond), time.Since(began).Round(time.Millisecond), ev.WebhookID, ev.Outcome)

	// The owner sees it in the event log.
	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/events?type="+url.QueryEscape(apiclient.EventEmployeeDepositCompleted)))
	if doc.Find(`[data-testid="event-row"][data-state="processed"]`).Length() == 0 {
		t.Fatal("the deposit is not in the event log")
	}
	doc = webtest.Doc(t, env.Get(owner, "/events/"+strconv.FormatInt(ev.ID, 10)))
	if href, _ := doc.Find(`[data-testid="detail-employee"] a`).Attr("href"); !strings.HasPrefix(href, "/employees/") {
		t.Fatalf("the event does not link to its employee: %q", webtest.TestID(doc, "detail-employee"))
	}

	// A lost event heals: the mirror's balance is wrong (as if a delivery
	// had failed for good); reconciliation reads the API and corrects it.
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE wallets SET balance = 0 WHERE id = $1`, w.ID); err != nil {
		t.Fatal(err)
	}
	run, err := env.App.Webhooks().Reconcile(ctx)
	if err != nil || run.Corrected == 0 {
		t.Fatalf("reconcile: %+v %v", run, err)
	}
	mw, _ := env.Store.WalletByID(ctx, w.ID)
	if !mw.Balance.Valid || mw.Balance.Decimal.IsZero() {
		t.Fatalf("balance not corrected: %+v", mw)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "webhooks.reconcile"}); len(rows) == 0 {
		t.Fatal("reconciliation corrections not audited")
	}
	doc = webtest.Doc(t, env.Get(owner, "/settings/webhooks"))
	if !strings.Contains(webtest.TestID(doc, "reconciliations"), "corrected to") {
		t.Fatalf("reconciliation not shown: %q", webtest.TestID(doc, "reconciliations"))
	}
	t.Logf("reconciliation: checked %d, corrected %d: %v", run.Checked, run.Corrected, run.Notes)
}

func TestWebhookCardEventsReachBothFeeds(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	body := webtest.EventBody("wh-card-1", apiclient.EventCardTransactionCreated, map[string]any{
		"cardId": "card-77", "transactionId": "tx-1", "serviceUserId": "user-card", "amount": "19.99", "fee": "0.25",
		"currency": "USD", "status": "COMPLETED", "merchantName": "Bakery"})

	if code := webtest.MustDeliver(t, env, secret, "wh-card-1", body); code != http.StatusOK {
		t.Fatalf("deliver: %d", code)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-card-1")
	for range 2 { // the second run is a replay: nothing doubles
		if err := env.App.Webhooks().ProcessEvent(ctx, ev.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	feed, err := env.Store.CardActivityFeed(ctx, "card-77", 10)
	if err != nil || len(feed) != 1 || !feed[0].Amount.Equal(decimal.RequireFromString("19.99")) || !feed[0].Fee.Equal(decimal.RequireFromString("0.25")) {
		t.Fatalf("card feed %+v %v", feed, err)
	}
	acts, err := env.Store.ListActivity(ctx, "user-card", 10)
	if err != nil || len(acts) != 1 || acts[0].Kind != store.ActivityCardTransaction || acts[0].Description != "card card-77 Bakery" {
		t.Fatalf("activity %+v %v", acts, err)
	}
}

// TestLostDeliveryHealsByReconciliation: a delivery refused with 401 is a
// permanent failure upstream and is never sent again; reconciliation finds
// it in the API's delivery history and repairs its effect from the API.
func TestLostDeliveryHealsByReconciliation(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	ctx := context.Background()
	// No secret yet: every delivery is refused.
	var user string
	for _, e := range env.Demo.Employees {
		if e.ServiceUserID != "" {
			user = e.ServiceUserID
			break
		}
	}
	wallets, err := env.API.ListWallets(ctx, user)
	if err != nil || len(wallets) == 0 {
		t.Fatalf("wallets: %v %v", wallets, err)
	}
	w := wallets[0]
	before, err := env.Store.WalletByID(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"smartWalletId": w.ID, "amount": "40.00"})
	resp, err := http.Post(env.SandboxURL+"/_sandbox/deposits", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("credit deposit: %v %v", resp, err)
	}
	resp.Body.Close()
	var lost apiclient.WebhookDelivery
	webtest.WaitFor(t, "the delivery to fail for good", 30*time.Second, func() bool {
		ds, err := env.API.ListWebhookDeliveries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.EventType == apiclient.EventEmployeeDepositCompleted && d.Status == apiclient.DeliveryFailed {
				lost = d
				return true
			}
		}
		return false
	})

	stale, _ := env.Store.WalletByID(ctx, w.ID)
	if !stale.Balance.Decimal.Equal(before.Balance.Decimal) {
		t.Fatal("the refused delivery changed the balance")
	}

	webtest.AdoptWebhookSecret(t, env)
	run, err := env.App.Webhooks().Reconcile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	healed, _ := env.Store.WalletByID(ctx, w.ID)
	fresh, err := env.API.GetWallet(ctx, user, w.ID)
	if err != nil || !healed.Balance.Decimal.Equal(fresh.Balance) || healed.Balance.Decimal.Equal(before.Balance.Decimal) {
		t.Fatalf("balance after reconciliation %s, API %v, before %s", healed.Balance.Decimal, fresh, before.Balance.Decimal)
	}
	notes := strings.Join(run.Notes, "\n")
	if !strings.Contains(notes, "delivery "+lost.ID) || !strings.Contains(notes, "never arrived") || run.Corrected == 0 {
		t.Fatalf("reconciliation %d corrected, notes:\n%s", run.Corrected, notes)
	}
	t.Logf("lost delivery %s (%s: %s) healed: balance %s → %s", lost.ID, lost.EventType, lost.ErrorMessage,
		before.Balance.Decimal, healed.Balance.Decimal)
}

// TestBrowserOwnerRotatesWebhookSecret: the owner rotates the secret on the
// real page in chromium, sees it once, and the event log lists deliveries.
func TestBrowserOwnerRotatesWebhookSecret(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	old := webtest.AdoptWebhookSecret(t, env)
	webtest.MustDeliver(t, env, old, "wh-browser-1", webtest.EventBody("wh-browser-1", apiclient.EventEmployeeDepositCompleted,
		map[string]any{"userId": "user-b", "amount": "3.50"}))

	s := env.CreateStaff(store.RoleOwner)
	ctx := webtest.Browser(t)
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/settings/webhooks"), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="rotate-form"]`)),
		chromedp.Click(chromedp.ID("rotate-confirm")),
		chromedp.Click(chromedp.CSS(`[data-testid="rotate-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="secret-value"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="secret-value"]`)))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := env.API.GetWebhookConfig(context.Background())
	if err != nil || strings.TrimSpace(shown) != cfg.SecretKey || cfg.SecretKey == old {
		t.Fatalf("page shows %q, upstream has a different secret or none was rotated", shown)
	}
	webtest.Screenshot(t, ctx, "webhook-settings-rotated")
	if err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/events")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="event-row"]`)),
	); err != nil {
		t.Fatal(err)
	}
	webtest.Screenshot(t, ctx, "event-log")
}

// TestWebhookSubscriptionCreate: with no subscription upstream the owner
// creates one; its secret is shown once, kept sealed, and verifies
// deliveries at once.
func TestWebhookSubscriptionCreate(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	ctx := context.Background()
	if err := env.API.DeleteWebhookConfig(ctx); err != nil {
		t.Fatal(err)
	}
	owner, ownerStaff := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/settings/webhooks"))
	if v, _ := doc.Find("#callback-url").Attr("value"); v != env.Config.PublicOrigin+webhooks.ReceiverPath {
		t.Fatalf("default callback %q", v)
	}
	if n := doc.Find(`input[name="events"]:checked`).Length(); n != 14 {
		t.Fatalf("%d events offered checked, want the 14 partner-scoped names", n)
	}
	// Refused role first: nothing created.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	form := url.Values{"callback_url": {env.Config.PublicOrigin + webhooks.ReceiverPath},
		"events": {apiclient.EventEmployeeDepositCompleted, apiclient.EventEmployeeLinked}}
	resp := env.PostForm(hr, "/settings/webhooks", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("hr creates: %d", resp.StatusCode)
	}
	if _, err := env.API.GetWebhookConfig(ctx); !apiclient.IsNotFound(err) {
		t.Fatalf("a refused creation created a subscription: %v", err)
	}
	// No events: a message next to the field.
	resp = env.PostForm(owner, "/settings/webhooks", url.Values{"callback_url": form["callback_url"]})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(webtest.Doc(t, resp), "events-error"), "at least one") {
		t.Fatalf("no events: %d", resp.StatusCode)
	}
	form.Set("form_token", webtest.WebhookFormToken(env, owner))
	resp = env.PostForm(owner, "/settings/webhooks", form)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	secret := webtest.TestID(doc, "secret-value")
	cfg, err := env.API.GetWebhookConfig(ctx)
	if err != nil || secret == "" || secret != cfg.SecretKey || len(cfg.Events) != 2 {
		t.Fatalf("created %+v, shown %q", cfg, secret)
	}
	sub, _ := env.Store.WebhookSubscription(ctx)
	if !sub.HasSecret() || bytes.Contains(sub.SecretSealed, []byte(secret)) || sub.UpstreamID != cfg.ID {
		t.Fatalf("kept %+v", sub.UpstreamID)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "webhooks.subscription.create"}); len(rows) != 1 || rows[0].Actor.StaffID != ownerStaff.ID {
		t.Fatalf("audit %+v", rows)
	}
	if webtest.TestID(webtest.Doc(t, env.Get(owner, "/settings/webhooks")), "secret-value") != "" {
		t.Fatal("secret shown again")
	}
	body := webtest.EventBody("wh-create-1", apiclient.EventEmployeeLinked, map[string]any{"serviceUserId": "u"})
	if code := webtest.MustDeliver(t, env, secret, "wh-create-1", body); code != http.StatusOK {
		t.Fatalf("delivery with the new secret: %d", code)
	}
	// The time window filter: nothing received in 2000.
	doc = webtest.Doc(t, env.Get(owner, "/events?from=2000-01-01T00:00&to=2000-01-02T00:00"))
	if doc.Find(`[data-testid="event-row"]`).Length() != 0 || webtest.TestID(doc, "no-events") == "" {
		t.Fatal("time window filter")
	}
	if webtest.Doc(t, env.Get(owner, "/events?from=2000-01-01T00:00")).Find(`[data-testid="event-row"]`).Length() != 1 {
		t.Fatal("open-ended window")
	}
}

func TestEncryptionKeyConfiguration(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, err := web.ParseConfig(nil, env(map[string]string{"ENCRYPTION_KEY": "abcd"}), io.Discard); err == nil || !strings.Contains(err.Error(), "ENCRYPTION_KEY") {
		t.Fatalf("short key: %v", err)
	}
	c, err := web.ParseConfig(nil, env(map[string]string{"ENCRYPTION_KEY": strings.Repeat("0f", 32)}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.EncryptionKey) != "[redacted]" {
		t.Fatal("the key prints")
	}
}

// TestWebhookConcurrentRunsApplyOnce: river delivers jobs at least once, so
// the same event may be processed by several runs at the same time; one
// records the outcome and the effects exist once.
func TestWebhookConcurrentRunsApplyOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	body := webtest.EventBody("wh-race-1", apiclient.EventCardTransactionCreated, map[string]any{
		"cardId": "card-race", "transactionId": "tx-race", "serviceUserId": "user-race", "amount": "5.00", "fee": "0.05", "currency": "NGN"})

	if code := webtest.MustDeliver(t, env, secret, "wh-race-1", body); code != http.StatusOK {
		t.Fatalf("deliver: %d", code)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-race-1")
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- env.App.Webhooks().ProcessEvent(ctx, ev.ID, false)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	after := webtest.EventByWebhookID(t, env, "wh-race-1")
	feed, _ := env.Store.CardActivityFeed(ctx, "card-race", 10)
	if after.ProcessedCount != 1 || after.State != store.EventProcessed || webtest.ActivityCount(t, env, ev.ID) != 1 || len(feed) != 1 {
		t.Fatalf("10 concurrent runs: processed %d times, state %s, %d activity rows, %d card rows",
			after.ProcessedCount, after.State, webtest.ActivityCount(t, env, ev.ID), len(feed))
	}
}

// TestWebhookProcessingFailureIsShownAndReplayable: when the API read an
// event needs keeps failing, the attempts are recorded, the last one marks
// the event failed in the log, and a replay once the API answers again
// applies it.
func TestWebhookProcessingFailureIsShownAndReplayable(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	fault, _ := json.Marshal(map[string]any{"method": "GET", "route": "/v1/users/{userId}/cards/{cardId}", "status": 500, "message": "issuer down"})
	resp, err := http.Post(env.SandboxURL+"/_sandbox/faults", "application/json", bytes.NewReader(fault))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("fault: %v %v", resp, err)
	}
	resp.Body.Close()
	body := webtest.EventBody("wh-fail-1", apiclient.EventCardFulfillmentUpdated, map[string]any{"cardId": "card-f", "serviceUserId": "user-f", "status": "shipped"})
	if code := webtest.MustDeliver(t, env, secret, "wh-fail-1", body); code != http.StatusOK {
		t.Fatalf("deliver: %d", code)
	}
	ev := webtest.EventByWebhookID(t, env, "wh-fail-1")
	worker := &webhooks.ProcessEventWorker{H: env.App.Webhooks()}
	job := func(attempt int) *river.Job[webhooks.ProcessEventArgs] {
		return &river.Job[webhooks.ProcessEventArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: 8},
			Args: webhooks.ProcessEventArgs{EventID: ev.ID}}
	}
	if err := worker.Work(ctx, job(1)); err == nil {
		t.Fatal("processing succeeded while the API fails")
	}
	if e := webtest.EventByWebhookID(t, env, "wh-fail-1"); e.State != store.EventQueued || e.Attempts != 1 || !strings.Contains(e.Error, "500") {
		t.Fatalf("after a failed attempt: %+v", e)
	}
	if err := worker.Work(ctx, job(8)); err == nil {
		t.Fatal("last attempt succeeded while the API fails")
	}
	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/events?state=failed"))
	if doc.Find(`[data-testid="event-row"][data-state="failed"]`).Length() != 1 {
		t.Fatal("the failed event is not in the log")
	}
	req, _ := http.NewRequest(http.MethodDelete, env.SandboxURL+"/_sandbox/faults", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("clear faults: %v %v", resp, err)
	}
	if err := env.App.Webhooks().ProcessEvent(ctx, ev.ID, true); err != nil {
		t.Fatal(err)
	}
	if e := webtest.EventByWebhookID(t, env, "wh-fail-1"); e.State != store.EventProcessed || !strings.Contains(e.Outcome, "card card-f") {
		t.Fatalf("after the replay: %+v", e)
	}
}
