package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/activity"
	"partneradmin/handlers/approvals"
	"partneradmin/handlers/audit"
	"partneradmin/handlers/auth"
	"partneradmin/handlers/cards"
	"partneradmin/handlers/controls"
	"partneradmin/handlers/dashboard"
	"partneradmin/handlers/employees"
	"partneradmin/handlers/moneyout"
	"partneradmin/handlers/moneyout/cash"
	"partneradmin/handlers/moneyout/mexico"
	"partneradmin/handlers/moneyout/nigeria"
	"partneradmin/handlers/moneyout/payout"
	"partneradmin/handlers/moneyout/sepa"
	"partneradmin/handlers/notify"
	"partneradmin/handlers/payroll"
	"partneradmin/handlers/railsetup"
	"partneradmin/handlers/sign"
	"partneradmin/handlers/staff"
	"partneradmin/handlers/treasury"
	"partneradmin/handlers/userstate"
	"partneradmin/handlers/webhooks"
	"partneradmin/static"
	"partneradmin/store"
	"partneradmin/views"
)

// Deps is what the app is built from.
type Deps struct {
	Config   Config
	Store    *store.Store
	Logger   *slog.Logger
	Upstream Upstream
	// API is the Partner API client (the real API or the sandbox).
	API *apiclient.Client
	Now func() time.Time

	// Metrics, when set, are the app's metrics (the API client's observer
	// counts into them); nil: New makes its own.
	Metrics *Metrics

	// ApprovalSyncConcurrency bounds the upstream calls of one approvals
	// sync (0: approvals.DefaultSyncConcurrency).
	ApprovalSyncConcurrency int
}

// App is the assembled web application.
type App struct {
	cfg      Config
	store    *store.Store
	logger   *slog.Logger
	sessions *scs.SessionManager
	static   *staticFiles
	base     *handlers.Base
	river    *river.Client[pgx.Tx]
	actions  *handlers.Actions
	handler  http.Handler
	table    []Route
	now      func() time.Time

	metrics        *Metrics
	metricsHandler http.Handler
	upstream       Upstream
	upstreamCheck  upstreamCheck

	auth      *auth.Handler
	dashboard *dashboard.Handler
	staff     *staff.Handler
	audit     *audit.Handler
	employees *employees.Handler
	webhooks  *webhooks.Handler
	cards     *cards.Handler
	approvals *approvals.Handler
	sign      *sign.Handler
	treasury  *treasury.Handler
	moneyout  *moneyout.Handler
	// The money-out rails, one package each (listed on moneyout's index
	// in the order built).
	nigeria  *nigeria.Handler
	payout   *payout.Handler
	cash     *cash.Handler
	sepa     *sepa.Handler
	mexico   *mexico.Handler
	rails    *railsetup.Handler
	activity *activity.Handler
	payroll  *payroll.Handler
	notify   *notify.Handler
	controls *controls.Handler
}

// New builds the app: sessions in PostgreSQL, handlers, the route table,
// the router and the background workers (not started yet).
func New(d Deps) (*App, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	a := &App{cfg: d.Config, store: d.Store, logger: d.Logger, now: d.Now, upstream: d.Upstream, metrics: d.Metrics}
	if err := a.setUpMetrics(d); err != nil {
		return nil, err
	}
	a.sessions = newSessions(d)
	var err error
	if a.static, err = newStaticFiles(static.FS); err != nil {
		return nil, err
	}
	a.base = &handlers.Base{Logger: d.Logger, Sessions: a.sessions, Assets: a.static.assets(), Sandbox: a.cfg.UsesSandbox()}
	// A session that cannot be loaded or saved (the database down) gets
	// the app's error page, never the error's text.
	a.sessions.ErrorFunc = a.base.ServerError
	// Handlers enqueue through an insert-only client; the working client
	// below runs the jobs. Both are river clients over the same pool.
	queue, err := river.NewClient(riverpgxv5.New(d.Store.Pool()), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("web: river insert client: %w", err)
	}
	a.actions = handlers.NewActions(d.Store, d.Logger)
	hd := handlers.Deps{Base: a.base, Store: d.Store, API: d.API, Queue: queue, Clock: d.Now, Logger: d.Logger,
		Config: handlers.Config{PublicOrigin: d.Config.PublicOrigin, ApprovalSyncConcurrency: d.ApprovalSyncConcurrency,
			SignLinkTemplate: d.Config.SignLinkTemplate, Sandbox: d.Upstream.Sandbox},
		Actions: a.actions}
	nav := navigation()
	if err := a.newAreas(d, hd, nav); err != nil {
		return nil, err
	}
	if a.river, err = newRiver(d, a.webhooks, a.approvals, a.sign, a.actions, a.payroll, a.notify); err != nil {
		return nil, err
	}
	a.table = a.routes()
	if a.handler, err = a.router(nav); err != nil {
		return nil, err
	}
	return a, nil
}

// setUpMetrics makes the metrics (unless Deps brought them), with the pool's
// collectors, and their handler.
func (a *App) setUpMetrics(d Deps) error {
	if a.metrics == nil {
		m, err := NewMetrics()
		if err != nil {
			return err
		}
		a.metrics = m
	}
	if err := a.metrics.addStoreCollectors(d.Store.Pool(), d.Logger); err != nil {
		return err
	}
	a.metricsHandler = a.metrics.handler(d.Logger)
	return nil
}

// newSessions is the session manager: sessions in PostgreSQL through
// pgxstore, with the app's cookie.
func newSessions(d Deps) *scs.SessionManager {
	sm := scs.New()
	// No cleanup goroutine: expired sessions are deleted by the periodic
	// prune job (auth.PruneLoginFailuresWorker), once across replicas.
	sm.Store = pgxstore.NewWithCleanupInterval(d.Store.Pool(), 0)
	sm.Lifetime = 12 * time.Hour
	sm.Codec = sessionCodec{}
	// The idle timeout is enforced by authenticate, which touches the
	// session at most once a minute: scs's own IdleTimeout rewrites the
	// session row on every request.
	sm.Cookie.Name = "partner_admin_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = d.Config.SecureCookies()
	if sm.Cookie.Secure {
		// __Host- cookies are bound to this exact origin, over HTTPS only.
		sm.Cookie.Name = "__Host-partner_admin_session"
		sm.Cookie.Path = "/"
	}
	return sm
}

// newAreas builds the handlers of every area.
func (a *App) newAreas(d Deps, hd handlers.Deps, nav []NavEntry) error {
	authOpts, err := secondFactorOptions(d)
	if err != nil {
		return err
	}
	if a.auth, err = auth.New(hd, authOpts); err != nil {
		return err
	}
	a.dashboard = dashboard.New(hd, d.Upstream, areaDescriptions(nav))
	a.staff = staff.New(hd)
	a.audit = audit.New(hd)
	a.employees = employees.New(hd)
	a.cards = cards.New(hd)
	// A lost employee.linked or onboarding event heals in the periodic
	// reconciliation (onboarding: 25 employees read over an hour ago a run).
	if a.webhooks, err = newWebhooks(d, hd, employees.Events{H: a.employees},
		employees.InviteChecker{H: a.employees}, employees.OnboardingChecker{H: a.employees, MaxAge: time.Hour, Batch: 25}); err != nil {
		return err
	}
	a.webhooks.Delivered = a.metrics.webhookDelivered
	a.webhooks.BodyRetention = d.Config.WebhookBodyRetention
	a.approvals = approvals.New(hd)
	a.sign = sign.New(hd)
	a.treasury = treasury.New(hd, a.sign)
	a.moneyout = moneyout.New(hd, a.sign)
	a.nigeria, a.payout, a.cash = nigeria.New(a.moneyout), payout.New(a.moneyout), cash.New(a.moneyout)
	a.sepa, a.mexico = sepa.New(a.moneyout), mexico.New(a.moneyout)
	a.rails = railsetup.New(hd, a.sign)
	a.activity = activity.New(hd)
	a.payroll = payroll.New(hd)
	a.controls = controls.New(hd)
	if a.notify, err = newNotify(d, hd); err != nil {
		return err
	}
	return nil
}

// newRiver builds the job client with every worker and periodic job.
// Periodic jobs run once across replicas: river elects a leader for them.
func newRiver(d Deps, wh *webhooks.Handler, ap *approvals.Handler, sg *sign.Handler, ac *handlers.Actions, pr *payroll.Handler, nt *notify.Handler) (*river.Client[pgx.Tx], error) {
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &handlers.RecoverActionsWorker{Actions: ac, Clock: d.Now}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &employees.BulkInviteWorker{Store: d.Store, API: d.API, Logger: d.Logger}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &employees.OnboardingStartWorker{Store: d.Store, API: d.API, Logger: d.Logger}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &auth.PruneLoginFailuresWorker{Store: d.Store, Now: d.Now}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := addWebhookWorkers(workers, wh); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &cards.RefreshIndexWorker{Indexer: cards.NewIndexer(d.Store, d.API, d.Logger, d.Now)}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &approvals.SyncWorker{Syncer: ap.Sync}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &sign.RelayWorker{H: sg}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	stale := &userstate.StaleBalancesWorker{Store: d.Store, Clock: d.Now, Logger: d.Logger}
	if d.API != nil {
		stale.API = d.API
	}
	if err := river.AddWorkerSafely(workers, stale); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &payroll.SendWorker{H: pr}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &payroll.ApproveWorker{H: pr}); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, retentionWorker(d)); err != nil {
		return nil, fmt.Errorf("web: add worker: %w", err)
	}
	if err := addNotifyWorkers(workers, nt); err != nil {
		return nil, err
	}
	client, err := river.NewClient(riverpgxv5.New(d.Store.Pool()), &river.Config{
		Logger: slog.New(minLevelHandler{d.Logger.Handler(), slog.LevelWarn}).With("component", "river"),
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: 10},
			webhooks.QueueName: webhooks.QueueConfig(),
		},
		Workers: workers,
		// The jobs are short (a long one works in parts of at most
		// payroll.JobTimeout): one left "running" by a killed process is
		// rescued once both this and its own timeout have passed, at the
		// rescuer's next look (every 30 s), not after river's default hour.
		RescueStuckJobsAfter: payroll.JobTimeout,
		PeriodicJobs: append([]*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
				func() (river.JobArgs, *river.InsertOpts) { return auth.PruneLoginFailuresArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(approvals.SyncInterval),
				func() (river.JobArgs, *river.InsertOpts) { return approvals.SyncArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(handlers.RecoverActionsInterval),
				func() (river.JobArgs, *river.InsertOpts) { return handlers.RecoverActionsArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(sign.RelayInterval),
				func() (river.JobArgs, *river.InsertOpts) { return sign.RelayArgs{}, nil }, nil),
			river.NewPeriodicJob(river.PeriodicInterval(userstate.StaleBalancesInterval),
				func() (river.JobArgs, *river.InsertOpts) { return userstate.StaleBalancesArgs{}, nil }, nil),
		}, append(append(append(webhookPeriodicJobs(), cards.PeriodicJobs()...), notifyPeriodicJobs()...), retentionPeriodicJob())...),
	})
	if err != nil {
		return nil, fmt.Errorf("web: river client: %w", err)
	}
	return client, nil
}

// router mounts every route of the table with its middleware. A route
// without a permission is a programming error and stops the app from
// starting.
func (a *App) router(nav []NavEntry) (http.Handler, error) {
	cop, err := crossOrigin(a.base, a.cfg.PublicOrigin)
	if err != nil {
		return nil, err
	}
	authn := &Authenticator{Base: a.base, Store: a.store, Nav: nav, Now: a.now}
	r := chi.NewRouter()
	r.Use(requestID, a.metrics.instrument, clientAddress(a.cfg.TrustedProxies), accessLog(a.logger), securityHeaders(a.cfg.SecureCookies()), recoverer(a.base), cop, checkInput(a.base), readBudget(pageReadBudget), views.Zoned)
	// HEAD is answered by the GET route of the path, without the body.
	r.Use(middleware.GetHead)
	seen := map[string]bool{}
	for _, rt := range a.table {
		if rt.Permission == "" {
			return nil, fmt.Errorf("web: route %s %s has no permission", rt.Method, rt.Pattern)
		}
		if rt.Handler == nil {
			return nil, fmt.Errorf("web: route %s %s has no handler", rt.Method, rt.Pattern)
		}
		key := rt.Method + " " + rt.Pattern
		if seen[key] {
			return nil, fmt.Errorf("web: route %s declared twice", key)
		}
		seen[key] = true
		var h http.Handler = authorize(a.base, a.store, rt.Permission, a.auth.Gate(rt.Method, rt.Pattern, rt.Permission, returnPage(r), rt.Handler))
		if !rt.Stateless {
			h = a.sessions.LoadAndSave(authn.authenticate(h))
		}
		r.Method(rt.Method, rt.Pattern, h)
	}
	notFound := a.sessions.LoadAndSave(authn.authenticate(http.HandlerFunc(a.base.NotFound)))
	r.NotFound(notFound.ServeHTTP)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		setAllow(w, r)
		a.base.ErrorPage(w, r, http.StatusMethodNotAllowed, "Not allowed", "This address does not take that kind of request.")
	})
	return r, nil
}

// Actions is the action ledger's runner (for tests and tools).
func (a *App) Actions() *handlers.Actions { return a.actions }

// Sign is the sign request area (for tests and tools).
func (a *App) Sign() *sign.Handler { return a.sign }

// Notify is the notifications area (for tests and tools).
func (a *App) Notify() *notify.Handler { return a.notify }

// Payroll is the payroll area (for tests and tools).
func (a *App) Payroll() *payroll.Handler { return a.payroll }

// Auth is the sign-in area (for tests and tools).
func (a *App) Auth() *auth.Handler { return a.auth }

// Handler is the app's HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Routes returns the route table (for tests and documentation).
func (a *App) Routes() []Route { return a.table }

// Start starts the background workers.
func (a *App) Start(ctx context.Context) error {
	a.metrics.countJobs(ctx, a.river)
	if err := a.river.Start(ctx); err != nil {
		return fmt.Errorf("web: start workers: %w", err)
	}
	return nil
}

// Stop stops the workers, letting running jobs finish until ctx ends.
func (a *App) Stop(ctx context.Context) error {
	err := a.river.Stop(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("web: stop workers: %w", err)
	}
	return nil
}
