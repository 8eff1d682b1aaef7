package web

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/handlers/webhooks"
)

// Probe deadlines: a load balancer's probe must be answered quickly
// whatever the database or the API is doing.
const (
	readyDBTimeout       = time.Second
	readyUpstreamTimeout = 2 * time.Second
	// readyUpstreamEvery bounds how often /readyz calls the API: probes
	// every few seconds from every replica would otherwise be a steady
	// stream of upstream calls.
	readyUpstreamEvery = 15 * time.Second
)

// readiness is /readyz's body.
type readiness struct {
	Status   string `json:"status"`   // "ready" or "not ready"
	Database string `json:"database"` // "ok" or "unavailable"
	// Upstream is the Partner API's state: "ok", "unavailable" or "not
	// configured". It never makes the replica not ready: pages that need
	// the API say so themselves, and every replica shares the same API, so
	// taking them out of the load balancer would only make things worse.
	Upstream        string    `json:"upstream"`
	UpstreamChecked time.Time `json:"upstream_checked,omitzero"`
}

// upstreamCheck remembers the API's last probe for readyUpstreamEvery.
type upstreamCheck struct {
	mu    sync.Mutex
	at    time.Time
	state string
}

func (u *upstreamCheck) get(ctx context.Context, up Upstream) (string, time.Time) {
	if up.Probe == nil {
		return "not configured", time.Time{}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.state != "" && time.Since(u.at) < readyUpstreamEvery {
		return u.state, u.at
	}
	ctx, cancel := context.WithTimeout(ctx, readyUpstreamTimeout)
	defer cancel()
	u.state, u.at = "ok", time.Now()
	if err := up.Probe(ctx); err != nil {
		u.state = "unavailable"
	}
	return u.state, u.at
}

// readyz is the readiness probe: 200 when the database answers a ping
// within a second, 503 otherwise; the API's state is reported in the body
// without affecting the answer.
func (a *App) readyz(w http.ResponseWriter, r *http.Request) {
	body := readiness{Status: "ready", Database: "ok"}
	status := http.StatusOK
	ctx, cancel := context.WithTimeout(r.Context(), readyDBTimeout)
	err := a.store.Pool().Ping(ctx)
	cancel()
	if err != nil {
		a.logger.WarnContext(r.Context(), "readiness: database unavailable", "err", err)
		body.Status, body.Database, status = "not ready", "unavailable", http.StatusServiceUnavailable
	}
	body.Upstream, body.UpstreamChecked = a.upstreamCheck.get(r.Context(), a.upstream)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// healthz is the liveness probe: the process answers requests. It does not
// look at the database (see /readyz): a database outage must not have every
// replica restarted.
func (a *App) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// metricsPage is GET /metrics for a signed-in owner.
func (a *App) metricsPage(w http.ResponseWriter, r *http.Request) {
	a.metricsHandler.ServeHTTP(w, r)
}

// MetricsHandler serves /metrics without a session, for a scraper on a
// separate listener (--metrics-addr) that only the monitoring network
// reaches, with /readyz and /healthz beside it.
func (a *App) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metricsHandler)
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("GET /healthz", a.healthz)
	return mux
}

// retentionWorker blanks old webhook bodies (WEBHOOK_BODY_RETENTION).
func retentionWorker(d Deps) *webhooks.RetentionWorker {
	return &webhooks.RetentionWorker{Store: d.Store, Retention: d.Config.WebhookBodyRetention, Now: d.Now, Logger: d.Logger}
}

// retentionPeriodicJob runs the retention hourly, and at start; river's
// leader inserts it, so it runs once across replicas.
func retentionPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(webhooks.RetentionInterval),
		func() (river.JobArgs, *river.InsertOpts) { return webhooks.RetentionArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}
