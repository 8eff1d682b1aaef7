package webhooks

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// DrainArgs is the job that processes the stored events still queued.
// The receiver inserts one with each statement that stores a new event,
// in the same transaction, so every stored event has a worker coming; a
// periodic one picks up events whose worker died after claiming them.
type DrainArgs struct{}

// Kind names the job.
func (DrainArgs) Kind() string { return "webhook_events_drain" }

// InsertOpts puts the job on the webhook queue.
func (DrainArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 8, Queue: QueueName}
}

const (
	// drainBatch is how many events one claim takes: their outcomes are
	// written in one transaction.
	drainBatch = 200
	// claimLease is how long a claim keeps other workers off its events;
	// longer than a batch can take, shorter than a person would wait.
	claimLease = time.Minute
	// drainFor bounds one job's run, so that the queue's other jobs (a
	// replay, a retry) get a worker during a long burst, and a stopping
	// replica's drain ends within the time it waits for its workers.
	drainFor = 10 * time.Second
	// DrainInterval is how often the periodic drain runs.
	DrainInterval = time.Minute
)

// DrainWorker runs DrainArgs jobs.
type DrainWorker struct {
	river.WorkerDefaults[DrainArgs]
	H *Handler
}

// Timeout bounds one run (the API calls have their own), inside river's
// RescueStuckJobsAfter.
func (w *DrainWorker) Timeout(*river.Job[DrainArgs]) time.Duration { return drainFor + 30*time.Second }

// Work claims queued events a batch at a time and processes them until
// none is left or its time is up (a later job goes on).
func (w *DrainWorker) Work(ctx context.Context, _ *river.Job[DrainArgs]) error {
	until := time.Now().Add(drainFor)
	for ctx.Err() == nil && time.Now().Before(until) {
		evs, err := w.H.Store.ClaimQueuedEvents(ctx, drainBatch, claimLease)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return nil
		}
		w.H.processClaimed(ctx, evs)
	}
	return w.H.Store.InTx(ctx, func(tx pgx.Tx) error { return w.H.wakeDrain(ctx, tx) })
}

// wakeDrain inserts a drain job in tx.
func (h *Handler) wakeDrain(ctx context.Context, tx pgx.Tx) error {
	if h.Queue == nil {
		return errNoQueue
	}
	_, err := h.Queue.InsertTx(ctx, tx, DrainArgs{}, nil)
	return err
}

// processClaimed processes claimed events. An event that needs API reads
// or jobs of its own is processed alone, as its own job would; the others'
// outcomes are written together in one transaction. An event whose
// processing fails gets a job of its own, which retries it with backoff
// and records each attempt.
func (h *Handler) processClaimed(ctx context.Context, evs []store.WebhookEvent) {
	var apps []store.EventApplication
	for _, ev := range evs {
		app, simple := h.decide(ev)
		if !simple {
			h.processAlone(ctx, ev)
			continue
		}
		apps = append(apps, app)
	}
	if len(apps) == 0 {
		return
	}
	if _, err := h.Store.ApplyEvents(ctx, apps); err != nil {
		h.Logger.WarnContext(ctx, "webhook: batch of outcomes not written, processing each alone", "events", len(apps), "err", err)
		for _, a := range apps {
			h.processAlone(ctx, store.WebhookEvent{ID: a.EventID})
		}
	}
}

// decide works out an event's application when processing it needs no
// API read and no transaction of its own (simple).
func (h *Handler) decide(ev store.WebhookEvent) (store.EventApplication, bool) {
	app := store.EventApplication{EventID: ev.ID}
	env, err := apiclient.ParseEvent(ev.Body)
	if err != nil {
		app.Outcome = store.EventOutcome{State: store.EventUnparseable, Error: unparseableReason(err)}
		return app, true
	}
	proc, pre := h.dispatch(env.EventType)
	if pre != nil {
		return app, false
	}
	out, eff, err := proc(ev, env)
	if err != nil || len(eff.refresh) > 0 || eff.settle != nil {
		return app, false
	}
	app.Activity, app.Cards = eff.activity, eff.cards
	app.Outcome = store.EventOutcome{State: out.State, Outcome: out.Note, ServiceUserID: out.ServiceUserID}
	return app, true
}

// processAlone processes one event as its own job does; when that fails,
// the event gets a job of its own, which retries it.
func (h *Handler) processAlone(ctx context.Context, ev store.WebhookEvent) {
	err := h.processEvent(ctx, ev.ID, false)
	if err == nil {
		return
	}
	h.Logger.WarnContext(ctx, "webhook: processing failed, retrying in a job of its own", "event_id", ev.ID, "err", err)
	if rerr := h.Store.RecordEventAttempt(ctx, ev.ID, err.Error(), false); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if qerr := h.Store.InTx(ctx, func(tx pgx.Tx) error {
		return h.enqueue(false)(ctx, tx, ev.ID, ev.EventType)
	}); qerr != nil {
		// The claim runs out and the periodic drain claims it again.
		h.Logger.ErrorContext(ctx, "webhook: retry job not queued", "event_id", ev.ID, "err", errors.Join(err, qerr))
	}
}
