// Package webhooks receives the Partner API's webhook deliveries, processes
// them in river jobs, and serves the owner's subscription settings, the
// event log with replay, and the reconciliation job that heals lost events.
//
// DESIGN.md decision 6: the receiver verifies the signature on the raw body
// in constant time before parsing, stores the delivery keyed by
// X-Webhook-Id and enqueues its processing in the same transaction, then
// answers 200; a storage failure answers 503 so the sender retries.
package webhooks

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/secretbox"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
)

// ReceiverPath is where the Partner API delivers webhooks.
const ReceiverPath = "/webhooks/partner-api"

// Store is what this area needs from the store.
type Store interface {
	WebhookSubscription(ctx context.Context) (store.WebhookSubscription, error)
	SaveWebhookSubscription(ctx context.Context, c store.SubscriptionChange) (store.WebhookSubscription, error)
	MarkSecretRotating(ctx context.Context, rotating bool) error
	RecordSignatureFailure(ctx context.Context, f store.SignatureFailure) error
	ListSignatureFailures(ctx context.Context, limit int) ([]store.SignatureFailure, error)
	ReceiveDeliveries(ctx context.Context, ds []store.NewDelivery, wake func(ctx context.Context, tx pgx.Tx) error) ([]store.Received, error)
	ClaimQueuedEvents(ctx context.Context, limit int, lease time.Duration) ([]store.WebhookEvent, error)
	ApplyEvents(ctx context.Context, apps []store.EventApplication) ([]bool, error)
	WebhookEventByID(ctx context.Context, id int64) (store.WebhookEvent, error)
	RecordEventAttempt(ctx context.Context, id int64, errText string, final bool) error
	ApplyEvent(ctx context.Context, a store.EventApplication) (bool, error)
	EmployeeByServiceUserID(ctx context.Context, serviceUserID string) (store.Employee, error)
	ListWebhookEvents(ctx context.Context, f store.EventFilter) ([]store.WebhookEvent, error)
	CountWebhookEventsByState(ctx context.Context, f store.EventFilter) (map[string]int, error)
	WebhookEventTypes(ctx context.Context) ([]string, error)
	ReplayEvents(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx pgx.Tx, eventID int64, eventType string) error, audit store.AuditEntry) (int, error)
	DeferredEventIDs(ctx context.Context, limit int) ([]int64, error)
	StoredWebhookIDs(ctx context.Context, ids []string) (map[string]bool, error)
	KnownServiceUserIDs(ctx context.Context, limit int) ([]string, error)
	userstate.BalanceStore
	ListActivity(ctx context.Context, serviceUserID string, limit int) ([]store.Activity, error)
	RecordReconciliation(ctx context.Context, r store.ReconciliationRun) error
	ListReconciliations(ctx context.Context, limit int) ([]store.ReconciliationRun, error)
	InTx(ctx context.Context, fn func(tx pgx.Tx) error) error
	RequestJob(ctx context.Context, e store.AuditEntry, insert func(ctx context.Context, tx pgx.Tx) error) error
}

// API is what this area calls on the Partner API.
type API interface {
	CreateWebhookConfig(ctx context.Context, req apiclient.CreateWebhookConfigRequest) (*apiclient.WebhookConfig, error)
	GetWebhookConfig(ctx context.Context) (*apiclient.WebhookConfig, error)
	UpdateWebhookConfig(ctx context.Context, req apiclient.UpdateWebhookConfigRequest) (*apiclient.WebhookConfig, error)
	RotateWebhookSecret(ctx context.Context) (*apiclient.WebhookConfig, error)
	ListWebhookDeliveries(ctx context.Context) ([]apiclient.WebhookDelivery, error)
	ListBalances(ctx context.Context, userID string) ([]apiclient.WalletBalance, error)
	GetCard(ctx context.Context, userID, cardID string) (*apiclient.Card, error)
}

// Queue inserts jobs inside a transaction (river's client).
type Queue interface {
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Handler serves the webhook routes and holds what the jobs need.
type Handler struct {
	*handlers.Base
	Store Store
	// db is the store itself, for transactions; actions is the one path of
	// upstream writes.
	db      *store.Store
	actions *handlers.Actions
	// API is nil when no Partner API is wired in; settings then say so and
	// processing records what it could not read.
	API API
	Box *secretbox.Box
	// Queue is set once river's client exists.
	Queue        Queue
	PublicOrigin string
	// Employees is the employees area; NoEmployees until it is built.
	Employees Employees
	// Reconcilers are the checks the reconciliation job runs.
	Reconcilers []Reconciler
	Now         func() time.Time

	// BodyRetention is how long processed events keep their body (0: for
	// ever), as the event pages say it.
	BodyRetention time.Duration

	// Delivered, when set, is told how each delivery was answered
	// (metrics): DeliveryReceived, DeliveryDuplicate, DeliveryUnparseable,
	// DeliveryRefused or DeliveryUnavailable.
	Delivered func(outcome string)

	// afterStore, when set (tests), runs after a delivery is committed and
	// before the answer is written.
	afterStore func()
	// batcher stores concurrent deliveries together.
	batcher receiveBatcher
}

// New returns the handler with the defaults for what is not built yet.
// employees is the employees area seen through what this area needs of it
// (NoEmployees when there is none); more are checks the reconciliation job
// runs besides this area's own.
func New(d handlers.Deps, box *secretbox.Box, employees Employees, more ...Reconciler) *Handler {
	var st Store = d.Store
	h := &Handler{Base: d.Base, Store: st, db: d.Store, actions: d.Actions, Box: box, PublicOrigin: d.Config.PublicOrigin, Employees: employees, Now: d.Clock,
		Queue: d.Queue}
	if d.API != nil {
		h.API = d.API
	}
	if h.Employees == nil {
		h.Employees = NoEmployees{}
	}
	if h.actions != nil && h.API != nil {
		h.actions.ReadBackFor("webhooks.subscription.create", h.readBackCreate)
		h.actions.ReadBackFor("webhooks.subscription.update", h.readBackUpdate)
	}
	h.Reconcilers = append([]Reconciler{&BalanceReconciler{Store: st, API: h.API, Now: h.now}, &DeferredEventReconciler{H: h},
		&DeliveryHistoryReconciler{Store: st, API: h.API}}, more...)
	return h
}

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

// CallbackURL is the receiver's public address.
func (h *Handler) CallbackURL() string { return h.PublicOrigin + ReceiverPath }

// enqueue inserts the processing job of an event inside tx. eventType is
// the stored type ("" when unknown to the caller).
func (h *Handler) enqueue(replay bool) func(ctx context.Context, tx pgx.Tx, eventID int64, eventType string) error {
	return func(ctx context.Context, tx pgx.Tx, eventID int64, eventType string) error {
		if h.Queue == nil {
			return errNoQueue
		}
		_, err := h.Queue.InsertTx(ctx, tx, ProcessEventArgs{EventID: eventID, EventType: eventType, Replay: replay}, nil)
		return err
	}
}
