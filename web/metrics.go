package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
)

// Metrics are the app's Prometheus metrics, in a registry of their own (one
// per app: nothing is registered in the process-wide default registry).
// Build them before the API client, whose exchanges they count
// (apiclient.WithObserver(m.ObserveAPI)), and hand them to New.
type Metrics struct {
	Registry *prometheus.Registry

	requests *prometheus.HistogramVec
	upstream *prometheus.HistogramVec
	webhooks *prometheus.CounterVec
	jobs     *prometheus.CounterVec
}

// metricsNamespace prefixes every metric the app defines.
const metricsNamespace = "partner_admin"

// NewMetrics builds the registry with the app's metrics and the Go runtime
// and process collectors. The database pool and job queue collectors are
// added by New, which has the pool.
func NewMetrics() (*Metrics, error) {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: metricsNamespace, Name: "http_request_duration_seconds",
		Help:    "Time to answer a request, by route pattern (never the raw path), method and status.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method", "status"})
	m.upstream = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: metricsNamespace, Name: "upstream_request_duration_seconds",
		Help:    "Time of each HTTP exchange with the Partner API (each attempt of a retried call), by client operation and outcome.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"operation", "outcome"})
	m.webhooks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: metricsNamespace, Name: "webhook_deliveries_total",
		Help: "Webhook deliveries answered, by outcome: received, duplicate, unparseable, refused (4xx), unavailable (503).",
	}, []string{"outcome"})
	m.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: metricsNamespace, Name: "jobs_total",
		Help: "Background jobs worked by this replica, by job kind and outcome: completed, failed (to be retried), discarded (failed for good), cancelled, snoozed.",
	}, []string{"kind", "outcome"})
	for _, c := range []prometheus.Collector{m.requests, m.upstream, m.webhooks, m.jobs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := m.Registry.Register(c); err != nil {
			return nil, fmt.Errorf("web: register metrics: %w", err)
		}
	}
	return m, nil
}

// ObserveAPI counts one exchange with the Partner API; give it to
// apiclient.WithObserver. The operation is the client's method name.
func (m *Metrics) ObserveAPI(_ context.Context, e apiclient.Exchange) {
	outcome := "ok"
	switch {
	case e.Status == 0:
		outcome = "error"
	case e.Status >= 500:
		outcome = "server_error"
	case e.Status >= 400:
		outcome = "client_error"
	case e.Status >= 300:
		outcome = "redirect"
	}
	m.upstream.WithLabelValues(e.Op, outcome).Observe(e.Duration.Seconds())
}

// webhookDelivered counts one webhook delivery by how it was answered.
func (m *Metrics) webhookDelivered(outcome string) { m.webhooks.WithLabelValues(outcome).Inc() }

// handler serves the registry in the Prometheus text format.
func (m *Metrics) handler(logger *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.Registry, // counts its own scrapes and errors
	})
}

// instrument records every request's duration under chi's route pattern
// (known once routing is done), so /cards/{id} is one series whatever the
// id. Requests no route matched are "unmatched".
func (m *Metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil {
			if p := rc.RoutePattern(); p != "" {
				route = p
			}
		}
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		m.requests.WithLabelValues(route, r.Method, strconv.Itoa(status)).Observe(time.Since(start).Seconds())
	})
}

// countJobs counts the jobs this replica's river client works until ctx
// ends. It subscribes before returning, so no event after it is missed.
func (m *Metrics) countJobs(ctx context.Context, client *river.Client[pgx.Tx]) {
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
	go func() {
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok {
					return
				}
				if ev.Job == nil {
					continue
				}
				m.jobs.WithLabelValues(ev.Job.Kind, jobOutcome(ev)).Inc()
			}
		}
	}()
}

func jobOutcome(ev *river.Event) string {
	switch ev.Kind {
	case river.EventKindJobCompleted:
		return "completed"
	case river.EventKindJobCancelled:
		return "cancelled"
	case river.EventKindJobSnoozed:
		return "snoozed"
	}
	if ev.Job.State == rivertype.JobStateDiscarded {
		return "discarded"
	}
	return "failed"
}

// addStoreCollectors registers the pool's statistics and the job queue's
// depth, both read at scrape time.
func (m *Metrics) addStoreCollectors(pool *pgxpool.Pool, logger *slog.Logger) error {
	for _, c := range []prometheus.Collector{newPoolCollector(pool), newQueueCollector(pool, logger)} {
		if err := m.Registry.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if errors.As(err, &already) {
				return errors.New("web: metrics already belong to another app: give each app its own NewMetrics")
			}
			return fmt.Errorf("web: register metrics: %w", err)
		}
	}
	return nil
}

// poolCollector reads pgxpool's statistics at each scrape.
type poolCollector struct {
	pool *pgxpool.Pool

	acquired, idle, constructing, total, max           *prometheus.Desc
	acquires, emptyAcquires, canceledAcquires, created *prometheus.Desc
	acquireSeconds, emptyAcquireSeconds                *prometheus.Desc
	lifetimeDestroyed, idleDestroyed                   *prometheus.Desc
}

func newPoolCollector(pool *pgxpool.Pool) *poolCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, "db_pool", name), help, nil, nil)
	}
	return &poolCollector{pool: pool,
		acquired:            d("acquired_connections", "Connections in use."),
		idle:                d("idle_connections", "Connections idle in the pool."),
		constructing:        d("constructing_connections", "Connections being opened."),
		total:               d("connections", "Connections open (acquired, idle and being opened)."),
		max:                 d("max_connections", "The pool's size limit."),
		acquires:            d("acquires_total", "Connections handed out."),
		emptyAcquires:       d("empty_acquires_total", "Acquires that found no idle connection and had to wait for or open one."),
		canceledAcquires:    d("canceled_acquires_total", "Acquires given up by their context (timeouts while the pool was exhausted or the database unreachable)."),
		created:             d("created_connections_total", "Connections opened."),
		acquireSeconds:      d("acquire_seconds_total", "Time spent acquiring connections."),
		emptyAcquireSeconds: d("empty_acquire_wait_seconds_total", "Time spent waiting for a connection when none was idle."),
		lifetimeDestroyed:   d("max_lifetime_destroyed_total", "Connections closed for reaching their maximum lifetime."),
		idleDestroyed:       d("max_idle_destroyed_total", "Connections closed for idling too long."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.acquired, c.idle, c.constructing, c.total, c.max, c.acquires, c.emptyAcquires,
		c.canceledAcquires, c.created, c.acquireSeconds, c.emptyAcquireSeconds, c.lifetimeDestroyed, c.idleDestroyed} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	gauge := func(d *prometheus.Desc, v float64) { sendConst(ch, d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v float64) { sendConst(ch, d, prometheus.CounterValue, v) }
	gauge(c.acquired, float64(s.AcquiredConns()))
	gauge(c.idle, float64(s.IdleConns()))
	gauge(c.constructing, float64(s.ConstructingConns()))
	gauge(c.total, float64(s.TotalConns()))
	gauge(c.max, float64(s.MaxConns()))
	counter(c.acquires, float64(s.AcquireCount()))
	counter(c.emptyAcquires, float64(s.EmptyAcquireCount()))
	counter(c.canceledAcquires, float64(s.CanceledAcquireCount()))
	counter(c.created, float64(s.NewConnsCount()))
	counter(c.acquireSeconds, s.AcquireDuration().Seconds())
	counter(c.emptyAcquireSeconds, s.EmptyAcquireWaitTime().Seconds())
	counter(c.lifetimeDestroyed, float64(s.MaxLifetimeDestroyCount()))
	counter(c.idleDestroyed, float64(s.MaxIdleDestroyCount()))
}

// queueCollector counts the jobs waiting in river's table at each scrape:
// one figure for all replicas (the table is shared), by kind and state.
// When the database does not answer within a second the figures are left
// out of that scrape and everything else is still served.
type queueCollector struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	jobs   *prometheus.Desc
}

func newQueueCollector(pool *pgxpool.Pool, logger *slog.Logger) *queueCollector {
	return &queueCollector{pool: pool, logger: logger, jobs: prometheus.NewDesc(
		prometheus.BuildFQName(metricsNamespace, "jobs", "queued"),
		"Jobs not finished yet, across all replicas, by kind and state (available, running, retryable, scheduled).",
		[]string{"kind", "state"}, nil)}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.jobs }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	rows, err := c.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM river_job
		WHERE state IN ('available', 'running', 'retryable', 'scheduled') GROUP BY kind, state`)
	if err != nil {
		c.logger.Warn("metrics: count queued jobs", "err", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var kind, state string
		var n int64
		if err := rows.Scan(&kind, &state, &n); err != nil {
			c.logger.Warn("metrics: count queued jobs", "err", err)
			return
		}
		sendConst(ch, c.jobs, prometheus.GaugeValue, float64(n), kind, state)
	}
	if err := rows.Err(); err != nil {
		c.logger.Warn("metrics: count queued jobs", "err", err)
	}
}

// sendConst sends one figure read at scrape time (a figure that does not
// fit its description is left out rather than stopping the scrape).
func sendConst(ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	if m, err := prometheus.NewConstMetric(d, t, v, labels...); err == nil {
		ch <- m
	}
}
