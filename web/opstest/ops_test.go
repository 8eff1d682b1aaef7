package opstest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"partneradmin/handlers/webhooks"
	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

// TestMetricsForOwnerOnly: after some requests /metrics shows the request
// histogram under chi's route pattern (never the raw path), upstream calls
// by operation, webhook deliveries by outcome and the pool's figures; the
// owner reads it, an HR admin is refused and an anonymous visitor sent to
// sign in. The separate listener's handler serves the same without a
// session.
func TestMetricsForOwnerOnly(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	hr, _ := env.SignedIn(store.RoleHRAdmin)

	for range 3 {
		webtest.ReadBody(t, env.Get(owner, "/events/987654321"))
	}
	webtest.ReadBody(t, env.Get(hr, "/employees"))
	// /readyz probes the API once: an upstream exchange to count.
	if resp, err := http.Get(env.URL("/readyz")); err != nil {
		t.Fatal(err)
	} else {
		webtest.ReadBody(t, resp)
	}
	// A delivery with a bad signature is refused.
	if resp, err := webtest.Deliver(t, http.DefaultClient, env.Server.URL, "not-the-secret", "wh-metrics-1", webtest.EventBody("wh-metrics-1", "deposit", nil)); err != nil {
		t.Fatal(err)
	} else if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad signature: %d", resp.StatusCode)
	}

	resp := env.Get(hr, "/metrics")
	if body := webtest.ReadBody(t, resp); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "partner_admin_") {
		t.Fatalf("hr_admin: %d", resp.StatusCode)
	}
	resp = env.Get(env.Client(), "/metrics")
	webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous: %d", resp.StatusCode)
	}

	resp = env.Get(owner, "/metrics")
	body := webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("owner: %d", resp.StatusCode)
	}
	for _, want := range []string{
		`partner_admin_http_request_duration_seconds_count{method="GET",route="/events/{id}",status="404"} 3`,
		`partner_admin_http_request_duration_seconds_count{method="GET",route="/employees",status="200"} 1`,
		`partner_admin_http_request_duration_seconds_count{method="GET",route="/metrics",status="403"} 1`,
		`partner_admin_upstream_request_duration_seconds_count{operation="SupportedCurrencies",outcome="ok"}`,
		`partner_admin_webhook_deliveries_total{outcome="refused"} 1`,
		`partner_admin_db_pool_max_connections `,
		`partner_admin_db_pool_acquires_total `,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, "987654321") {
		t.Error("a raw path reached the metrics")
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", body)
	}

	// The scraper's listener: no session needed.
	rec := httptest.NewRecorder()
	env.App.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `route="/events/{id}"`) {
		t.Fatalf("metrics listener: %d", rec.Code)
	}
}

// TestMetricsCountJobsAndDeliveries: a delivery received, its duplicate,
// and the processing job river works, as the counters see them.
func TestMetricsCountJobsAndDeliveries(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	body := webtest.EventBody("wh-metrics-2", "deposit", map[string]any{"userId": "nobody"})
	for range 2 {
		if code := webtest.MustDeliver(t, env, secret, "wh-metrics-2", body); code != http.StatusOK {
			t.Fatalf("delivery: %d", code)
		}
	}
	scrape := func() string {
		rec := httptest.NewRecorder()
		env.App.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return rec.Body.String()
	}
	m := scrape()
	for _, want := range []string{`partner_admin_webhook_deliveries_total{outcome="received"} 1`, `partner_admin_webhook_deliveries_total{outcome="duplicate"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	kind := webhooks.DrainArgs{}.Kind()
	webtest.WaitFor(t, "the processing job counted", 30*time.Second, func() bool {
		return strings.Contains(scrape(), `partner_admin_jobs_total{kind="`+kind+`",outcome="completed"}`)
	})

}

// TestReadyzReportsDatabaseAndUpstream: ready with the database up; the
// API's state is in the body and never makes the replica not ready.
func TestReadyzReportsDatabaseAndUpstream(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	get := func() (int, map[string]any) {
		t.Helper()
		resp, err := http.Get(env.URL("/readyz"))
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(webtest.ReadBody(t, resp)), &body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	code, body := get()
	if code != http.StatusOK || body["database"] != "ok" || body["upstream"] != "ok" || body["status"] != "ready" {
		t.Fatalf("db up: %d %v", code, body)
	}

	// The API down: still ready, the body says so.
	down := web.Upstream{Sandbox: true, BaseURL: "http://127.0.0.1:1", Probe: func(context.Context) error { return errors.New("connection refused") }}
	env2 := webtest.New(t, webtest.Options{Upstream: &down})
	resp, err := http.Get(env2.URL("/readyz"))
	if err != nil {
		t.Fatal(err)
	}
	var b2 map[string]any
	if err := json.Unmarshal([]byte(webtest.ReadBody(t, resp)), &b2); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || b2["upstream"] != "unavailable" || b2["database"] != "ok" {
		t.Fatalf("api down: %d %v", resp.StatusCode, b2)
	}
	// Liveness does not depend on anything.
	if resp, err := http.Get(env.URL("/healthz")); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v", err)
	} else {
		webtest.ReadBody(t, resp)
	}
}

// BenchmarkSignedInPage measures a signed-in page that reads nothing but
// the session and the viewer (the account page), at 16 clients: the cost of
// authentication per request (the session and the staff row read).
func BenchmarkSignedInPage(b *testing.B) {
	env := webtest.New(b, webtest.Options{})
	c, _ := env.SignedIn(store.RoleSupport)
	webtest.MeasureGets(b, env, c, "/account/password", 16, false)
}

func TestOperationsConfiguration(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := web.ParseConfig(nil, env(nil), io.Discard)
	if err != nil || c.WebhookBodyRetention != web.DefaultWebhookBodyRetention || c.MetricsAddr != "" {
		t.Fatalf("defaults: %v %v %q", err, c.WebhookBodyRetention, c.MetricsAddr)
	}
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "14": 14 * 24 * time.Hour, "36h": 36 * time.Hour, "0": 0} {
		c, err := web.ParseConfig(nil, env(map[string]string{"WEBHOOK_BODY_RETENTION": in}), io.Discard)
		if err != nil || c.WebhookBodyRetention != want {
			t.Errorf("WEBHOOK_BODY_RETENTION=%s: %v %v", in, c.WebhookBodyRetention, err)
		}
	}
	for _, bad := range []string{"-1d", "30 days", "10m", "abc", "0d"} {
		if _, err := web.ParseConfig(nil, env(map[string]string{"WEBHOOK_BODY_RETENTION": bad}), io.Discard); err == nil || !strings.Contains(err.Error(), "WEBHOOK_BODY_RETENTION") {
			t.Errorf("WEBHOOK_BODY_RETENTION=%s accepted: %v", bad, err)
		}
	}
	c, err = web.ParseConfig([]string{"partner-admin", "--metrics-addr", "127.0.0.1:9100"}, env(nil), io.Discard)
	if err != nil || c.MetricsAddr != "127.0.0.1:9100" {
		t.Fatalf("--metrics-addr: %v %q", err, c.MetricsAddr)
	}
	if _, err := web.ParseConfig(nil, env(map[string]string{"METRICS_ADDR": "9100"}), io.Discard); err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Fatalf("METRICS_ADDR without a host accepted: %v", err)
	}
}
