package sandbox

import (
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

var allPartnerEvents = []string{"employee.deposit.completed", "employee.linked", "card.transaction.created", "card.fulfillment.updated"}

func (e *env) subscribe(key, callback string, events []string, extra map[string]any) map[string]any {
	e.t.Helper()
	body := map[string]any{"callbackUrl": callback, "events": events}
	for k, v := range extra {
		body[k] = v
	}
	return e.want(e.call("POST", "/v1/webhooks/config", key, body), 201).data()
}

// spec: Webhook config "callbackUrl (HTTPS), secretKey (64 lowercase hex
// characters, 32 random bytes, no prefix), active (boolean, default true)";
// "A second POST for the same partner scope returns 409."
func TestWebhookConfig_CreateGetPatchRotateDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Not HTTPS and not loopback.
	r := e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "http://example.com/hook", "events": []string{"employee.linked"}}), 400)
	if !strings.Contains(r.msg(), "https") {
		t.Errorf("http: %s", r.raw)
	}
	// Every invalid field is listed.
	r = e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "ftp://x", "events": []string{}}), 400)
	if msgs, _ := r.body["message"].([]any); len(msgs) != 2 {
		t.Errorf("validation %s", r.raw)
	}
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "https://a.example/h", "events": []string{"employee.nope"}}), 400)
	// Another partner's id.
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "https://a.example/h", "events": []string{"employee.linked"}, "partnerId": "22222222-2222-4222-8222-222222222222"}), 403)
	if r := e.want(e.call("GET", "/v1/webhooks/config", keyA, nil), 404); r.body["message"] != msgNoWebhook {
		t.Errorf("get before create: %s", r.raw)
	}
	cfg := e.subscribe(keyA, "https://a.example/h", []string{"employee.linked"}, nil)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(cfg["secretKey"].(string)) {
		t.Errorf("secretKey %v", cfg["secretKey"])
	}
	if cfg["active"] != true || cfg["partnerId"] != "11111111-1111-4111-8111-111111111111" {
		t.Errorf("config %v", cfg)
	}
	r = e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "https://b.example/h", "events": []string{"employee.linked"}}), 409)
	if r.body["message"] != msgWebhookExists {
		t.Errorf("second POST: %s", r.raw)
	}
	// Partner B's scope is separate.
	e.subscribe(keyB, "https://b.example/h", []string{"employee.linked"}, nil)
	// spec: "partnerId cannot change"
	r = e.want(e.call("PATCH", "/v1/webhooks/config", keyA, map[string]any{"partnerId": "22222222-2222-4222-8222-222222222222"}), 400)
	if !strings.Contains(r.msg(), "partnerId cannot be changed") {
		t.Errorf("patch partnerId: %s", r.raw)
	}
	r = e.want(e.call("PATCH", "/v1/webhooks/config", keyA, map[string]any{"active": false, "events": []string{"employee.deposit.completed"}}), 200)
	if r.data()["active"] != false || r.data()["events"].([]any)[0] != "employee.deposit.completed" || r.data()["secretKey"] != cfg["secretKey"] {
		t.Errorf("patch %s", r.raw)
	}
	r = e.want(e.call("POST", "/v1/webhooks/config/rotate-secret", keyA, nil), 200)
	if r.data()["secretKey"] == cfg["secretKey"] || len(r.data()["secretKey"].(string)) != 64 {
		t.Errorf("rotate %s", r.raw)
	}
	if got := e.want(e.call("GET", "/v1/webhooks/config", keyA, nil), 200).data()["secretKey"]; got != r.data()["secretKey"] {
		t.Errorf("get after rotate %v", got)
	}
	e.want(e.call("DELETE", "/v1/webhooks/config", keyA, nil), 200)
	e.want(e.call("GET", "/v1/webhooks/config", keyA, nil), 404)
	e.want(e.call("POST", "/v1/webhooks/config/rotate-secret", keyA, nil), 404)
}

// http:// callbacks are allowed to loopback only in local mode.
func TestWebhookConfig_HTTPLoopbackOnlyInLocalMode(t *testing.T) {
	t.Parallel()
	strict := newEnv(t, func(o *Options) { o.Local = false })
	strict.want(strict.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "http://127.0.0.1:9/h", "events": []string{"employee.linked"}}), 400)
	local := newEnv(t)
	local.want(local.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "http://localhost:9/h", "events": []string{"employee.linked"}}), 201)
	local.want(local.call("POST", "/v1/webhooks/config", keyB, map[string]any{"callbackUrl": "http://10.0.0.1/h", "events": []string{"employee.linked"}}), 400)
}

// spec: "Deliveries go to the subscription's callbackUrl as HTTP POST with a
// JSON body { id, eventType, payload, timestamp }" with X-Webhook-Signature,
// X-Webhook-Id and X-Source-Event-Id; "Deposit payloads include userId and
// amount (decimal string)."
func TestWebhookDelivery_DepositCarriesValidHMACAndHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	cfg := e.subscribe(keyA, sink.ts.URL+"/hook", allPartnerEvents, nil)
	u := e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.deposit(w.id, "12.34")
	d := e.waitDelivery(keyA, "employee.deposit.completed")
	if d["status"] != "delivered" || d["attempts"] != 1.0 {
		t.Fatalf("delivery %v", d)
	}
	hits := sink.hits()
	if len(hits) != 1 {
		t.Fatalf("hits %d", len(hits))
	}
	h := hits[0]
	if !verifySignature(cfg["secretKey"].(string), h.body, h.header.Get("X-Webhook-Signature")) {
		t.Errorf("HMAC does not verify")
	}
	var body struct {
		ID        string         `json:"id"`
		EventType string         `json:"eventType"`
		Payload   map[string]any `json:"payload"`
		Timestamp string         `json:"timestamp"`
	}
	if err := json.Unmarshal(h.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.ID == "" || body.ID != h.header.Get("X-Webhook-Id") || body.ID != d["id"] {
		t.Errorf("id %q header %q history %v", body.ID, h.header.Get("X-Webhook-Id"), d["id"])
	}
	if h.header.Get("X-Source-Event-Id") == "" || h.header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h.header)
	}
	if body.EventType != "employee.deposit.completed" || body.Payload["userId"] != u || body.Payload["amount"] != "12.34" {
		t.Errorf("body %s", h.body)
	}
	if _, err := time.Parse(time.RFC3339, body.Timestamp); err != nil {
		t.Errorf("timestamp %q", body.Timestamp)
	}
}

// spec, Delivery and retry rules: 2xx delivered; 5xx, network failure and
// timeout retried; 408 and 429 retried; any other 4xx permanent failure,
// never retried.
func TestWebhookDelivery_RetryMatrix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		statuses []int
		delay    time.Duration
		status   string
		attempts float64
		errMsg   string
	}{
		{"2xx delivered", []int{204}, 0, "delivered", 1, ""},
		{"5xx retried", []int{500, 502, 200}, 0, "delivered", 3, ""},
		{"408 retried", []int{408, 200}, 0, "delivered", 2, ""},
		{"429 retried", []int{429, 200}, 0, "delivered", 2, ""},
		{"400 permanent", []int{400}, 0, "failed", 1, "HTTP 400"},
		{"401 permanent", []int{401}, 0, "failed", 1, "HTTP 401"},
		{"404 permanent", []int{404}, 0, "failed", 1, "HTTP 404"},
		{"5xx until max attempts", []int{503, 503, 503, 503, 503}, 0, "failed", 4, "gave up after 4 attempts"},
		{"timeout retried", nil, 800 * time.Millisecond, "failed", 4, "timed out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(o *Options) { o.WebhookTimeout = 200 * time.Millisecond })
			sink := newSink(t, c.statuses...)
			sink.delay = c.delay
			e.subscribe(keyA, sink.ts.URL, allPartnerEvents, nil)
			u := e.user(keyA)
			e.deposit(e.wallet(keyA, u, "USDB").id, "1")
			d := e.waitDelivery(keyA, "employee.deposit.completed")
			if d["status"] != c.status || d["attempts"] != c.attempts {
				t.Fatalf("delivery %v", d)
			}
			msg, _ := d["errorMessage"].(string)
			if c.errMsg == "" && msg != "" || !strings.Contains(msg, c.errMsg) {
				t.Errorf("errorMessage %q, want %q", msg, c.errMsg)
			}
			// spec: "Retries redeliver the same id"
			ids := map[string]bool{}
			for _, h := range sink.hits() {
				ids[h.header.Get("X-Webhook-Id")] = true
			}
			if c.delay == 0 && (len(ids) != 1 || float64(len(sink.hits())) != c.attempts) {
				t.Errorf("ids %v hits %d", ids, len(sink.hits()))
			}
		})
	}
}

// spec: "network failure ... retried (transient)"
func TestWebhookDelivery_NetworkFailureIsRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	e.subscribe(keyA, "http://"+addr+"/hook", allPartnerEvents, nil)
	u := e.user(keyA)
	e.deposit(e.wallet(keyA, u, "USDB").id, "1")
	d := e.waitDelivery(keyA, "employee.deposit.completed")
	if d["status"] != "failed" || d["attempts"] != 4.0 || !strings.Contains(d["errorMessage"].(string), "refused") {
		t.Errorf("delivery %v", d)
	}
}

// spec: "Partner-scoped subscription (has partnerId): money-movement events
// are renamed to employee.* and delivered only for that partner's users.
// Legacy global subscription (no partnerId): receives the original wallet.*
// names for every user. ... Subscribing a partner-scoped config to a
// wallet.* name is accepted but never fires."
func TestWebhookDelivery_PartnerScoping(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sinkA, sinkB, sinkGlobal := newSink(t), newSink(t), newSink(t)
	e.subscribe(keyA, sinkA.ts.URL, []string{"employee.deposit.completed", "wallet.deposit.completed"}, nil)
	e.subscribe(keyB, sinkB.ts.URL, []string{"employee.deposit.completed"}, nil)
	global := e.subscribe(keyB, sinkGlobal.ts.URL, []string{"wallet.deposit.completed"}, map[string]any{"global": true})
	if global["partnerId"] != nil {
		t.Fatalf("global config has partnerId %v", global["partnerId"])
	}
	// One global scope: a second is a conflict.
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": "https://x.example", "events": []string{"wallet.deposit.completed"}, "global": true}), 409)
	ua, ub := e.user(keyA), e.user(keyB)
	e.deposit(e.wallet(keyA, ua, "USDB").id, "1")
	e.deposit(e.wallet(keyB, ub, "USDB").id, "2")
	deadline := time.Now().Add(5 * time.Second)
	for len(sinkGlobal.hits()) < 2 || len(sinkA.hits()) < 1 || len(sinkB.hits()) < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("hits A %d B %d global %d", len(sinkA.hits()), len(sinkB.hits()), len(sinkGlobal.hits()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // anything extra would have arrived by now
	check := func(name string, k *webhookSink, eventType string, users ...string) {
		t.Helper()
		hits := k.hits()
		if len(hits) != len(users) {
			t.Fatalf("%s: %d hits, want %d", name, len(hits), len(users))
		}
		// Deliveries run concurrently: compare the users as a set.
		want := map[string]int{}
		for _, u := range users {
			want[u]++
		}
		for _, h := range hits {
			var b struct {
				EventType string         `json:"eventType"`
				Payload   map[string]any `json:"payload"`
			}
			_ = json.Unmarshal(h.body, &b)
			uid, _ := b.Payload["userId"].(string)
			if b.EventType != eventType || want[uid] == 0 {
				t.Errorf("%s: %s", name, h.body)
			}
			want[uid]--
		}
	}
	check("partner A", sinkA, "employee.deposit.completed", ua)
	check("partner B", sinkB, "employee.deposit.completed", ub)
	check("global", sinkGlobal, "wallet.deposit.completed", ua, ub)
	// The global config's history belongs to its owner.
	r := e.want(e.call("GET", "/v1/webhooks/deliveries?status=delivered", keyB, nil), 200)
	if len(r.list()) != 3 {
		t.Errorf("B's history %s", r.raw)
	}
	if r := e.want(e.call("GET", "/v1/webhooks/config?scope=global", keyB, nil), 200); r.data()["id"] != global["id"] {
		t.Errorf("global get %s", r.raw)
	}
}

// spec: "old secret stops verifying at once"; an inactive config sends
// nothing.
func TestWebhookDelivery_RotationAndInactive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	old := e.subscribe(keyA, sink.ts.URL, allPartnerEvents, nil)["secretKey"].(string)
	fresh := e.want(e.call("POST", "/v1/webhooks/config/rotate-secret", keyA, nil), 200).data()["secretKey"].(string)
	u := e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.deposit(w.id, "1")
	e.waitDelivery(keyA, "employee.deposit.completed")
	h := sink.hits()[0]
	sig := h.header.Get("X-Webhook-Signature")
	if verifySignature(old, h.body, sig) || !verifySignature(fresh, h.body, sig) {
		t.Errorf("signature verifies with old %v, new %v", verifySignature(old, h.body, sig), verifySignature(fresh, h.body, sig))
	}
	e.want(e.call("PATCH", "/v1/webhooks/config", keyA, map[string]any{"active": false}), 200)
	e.deposit(w.id, "1")
	time.Sleep(100 * time.Millisecond)
	if n := len(sink.hits()); n != 1 {
		t.Errorf("inactive config delivered: %d hits", n)
	}
}
