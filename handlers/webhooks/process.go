package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers/inbound"
	"partneradmin/store"
)

// ProcessEventArgs is the job that applies one stored delivery: a replay,
// or a retry after processing in a drain failed. It carries
// only the event's row id: never the body or a secret (job args are stored
// in river_job).
type ProcessEventArgs struct {
	EventID int64 `json:"event_id"`
	// EventType is the stored type, for reading the job list (not secret).
	EventType string `json:"event_type,omitempty"`
	// Replay is set when an owner asked to run processing again.
	Replay bool `json:"replay,omitempty"`
}

// Kind names the job.
func (ProcessEventArgs) Kind() string { return "webhook_event_process" }

// QueueName is the river queue of event processing, apart from the other
// jobs so a burst of deliveries does not hold them up.
const QueueName = "webhooks"

// QueueConfig is the processing queue's configuration. Few workers: a
// drain job processes a batch of events at a time, and each worker holds
// one of the pool's few database connections while it works, which the
// receiver needs to acknowledge. During a burst, acknowledging comes
// first: the upstream counts a slow acknowledgement as a failure and
// sends again, while processing may finish a few seconds later.
func QueueConfig() river.QueueConfig {
	return river.QueueConfig{MaxWorkers: 4}
}

// InsertOpts bounds the retries: a cause that lasts longer is left to the
// event log (replay) and to reconciliation.
func (ProcessEventArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 8, Queue: QueueName}
}

// ProcessEventWorker runs ProcessEventArgs jobs.
type ProcessEventWorker struct {
	river.WorkerDefaults[ProcessEventArgs]
	H *Handler
}

// Timeout bounds one attempt (the API calls have their own).
func (w *ProcessEventWorker) Timeout(*river.Job[ProcessEventArgs]) time.Duration { return time.Minute }

// Work processes the event once. A job for an event already settled does
// nothing unless it is a replay, and every processor is idempotent, so
// at-least-once delivery of jobs never applies an event twice.
func (w *ProcessEventWorker) Work(ctx context.Context, job *river.Job[ProcessEventArgs]) error {
	err := w.H.processEvent(ctx, job.Args.EventID, job.Args.Replay)
	if err == nil {
		return nil
	}
	final := job.Attempt >= job.MaxAttempts
	if rerr := w.H.Store.RecordEventAttempt(ctx, job.Args.EventID, err.Error(), final); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// Outcome is what a processor decided for an event.
type Outcome = inbound.Outcome

func processed(userID, format string, args ...any) Outcome {
	return Outcome{State: store.EventProcessed, ServiceUserID: userID, Note: fmt.Sprintf(format, args...)}
}

// processor decides what an event does: its outcome and the rows to write
// (effects). It does no I/O; processEvent writes the effects and the
// outcome together. API reads happen before, in prepare.
type processor func(ev store.WebhookEvent, env *apiclient.Event) (Outcome, effects, error)

// effects are the rows an event adds: to the activity feed, and to a
// card's own feed. Both are keyed by the event, so writing them twice
// changes nothing.
type effects struct {
	activity []store.Activity
	cards    []store.CardActivity
	// refresh names users whose balances are read again after this event.
	refresh []string
	// settle records a crypto withdrawal's outcome on the rail (with its
	// audit row) in the transaction that records the event's outcome.
	settle *store.WithdrawalSettlement
}

// ProcessEvent applies a stored event: skip it when already settled (unless
// replayed), otherwise dispatch it by type and record the outcome.
func (h *Handler) ProcessEvent(ctx context.Context, id int64, replay bool) error {
	return h.processEvent(ctx, id, replay)
}

// settled reports whether a run should leave the event as it is.
func settled(state string, replay bool) bool {
	switch state {
	case store.EventQueued:
		return false
	case store.EventUnparseable:
		return true
	}
	return !replay
}

// processEvent applies an event: load it, read what the API must tell
// (outside any transaction), decide its effects, and write them with the
// outcome in one round trip (one transaction with the jobs it enqueues,
// when it enqueues any). No lock is held: effects are keyed by the event,
// and the outcome is recorded only while the event is still queued, so a
// second run of the same event changes nothing. (A crypto withdrawal's
// settlement locks its one row for its transaction, and changes it only
// while it still waits for the rail.)
func (h *Handler) processEvent(ctx context.Context, id int64, replay bool) error {
	ev, err := h.Store.WebhookEventByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // nothing to do; never retry a missing row
	}
	if err != nil {
		return err
	}
	if settled(ev.State, replay) {
		return nil
	}
	app := store.EventApplication{EventID: id, Replay: replay}
	env, err := apiclient.ParseEvent(ev.Body)
	if err != nil {
		app.Outcome = store.EventOutcome{State: store.EventUnparseable, Error: unparseableReason(err)}
		_, err := h.Store.ApplyEvent(ctx, app)
		return err
	}
	proc, pre := h.dispatch(env.EventType)
	var prepared Outcome
	if pre != nil {
		if prepared, err = pre(ctx, ev, env); err != nil {
			return err
		}
	}
	out, eff, err := proc(ev, env)
	if err != nil {
		return err
	}
	if prepared.Note != "" {
		out.Note += "; " + prepared.Note
	}
	app.Activity, app.Cards = eff.activity, eff.cards
	app.Outcome = store.EventOutcome{State: out.State, Outcome: out.Note, ServiceUserID: out.ServiceUserID}
	if len(eff.refresh) == 0 && eff.settle == nil {
		_, err := h.Store.ApplyEvent(ctx, app)
		return err
	}
	err = h.Store.InTx(ctx, func(tx pgx.Tx) error {
		a, changed := app, false
		if eff.settle != nil {
			res, err := store.SettleCryptoWithdrawalTx(ctx, tx, *eff.settle)
			if err != nil {
				return err
			}
			a.Outcome.Outcome += "; " + settleNote(*eff.settle, res)
			changed = res.Changed
		}
		applied, err := store.ApplyEventTx(ctx, tx, a)
		if err != nil {
			return err
		}
		if !applied {
			if changed {
				return errSettledElsewhere
			}
			return nil
		}
		for _, user := range eff.refresh {
			if err := h.queueBalanceRefresh(ctx, tx, user); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errSettledElsewhere) {
		return nil
	}
	return err
}

// prepare runs API reads before the transaction of a processor.
type prepare func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error)

// dispatch picks the processor of an event type. Unknown types are kept
// and shown, not dropped.
func (h *Handler) dispatch(eventType string) (processor, prepare) {
	switch eventType {
	case apiclient.EventEmployeeDepositCompleted, apiclient.EventEmployeeDepositFailed, apiclient.EventEmployeeDepositRefunded,
		apiclient.EventWalletDepositCompleted, apiclient.EventWalletDepositFailed, apiclient.EventWalletDepositRefunded:
		return h.moneyMovement(store.ActivityDeposit), nil
	case apiclient.EventEmployeeWithdrawalProcessing, apiclient.EventWalletWithdrawalProcessing:
		return h.moneyMovement(store.ActivityWithdrawal), nil
	case apiclient.EventEmployeeWithdrawalCompleted, apiclient.EventEmployeeWithdrawalFailed,
		apiclient.EventWalletWithdrawalCompleted, apiclient.EventWalletWithdrawalFailed:
		return h.withdrawalSettled, nil
	case apiclient.EventCardTransactionCreated:
		return h.cardTransaction, nil
	case apiclient.EventCardFulfillmentUpdated:
		return h.cardFulfillment, h.readCardStatus
	case apiclient.EventEmployeeLinked:
		return h.employeeHandoff(h.employeeLinked)
	case apiclient.EventEmployeeUnlinked:
		return h.employeeHandoff(func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
			return h.Employees.Unlink(ctx, employeeEventOf(ev, env))
		})
	case apiclient.EventEmployeeVBARegistered:
		return h.employeeHandoff(func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
			return h.Employees.RecordVBA(ctx, employeeEventOf(ev, env))
		})
	case apiclient.EventOnboardingCompleted, apiclient.EventOnboardingFailed:
		return h.employeeHandoff(func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
			return h.Employees.RefreshOnboarding(ctx, employeeEventOf(ev, env))
		})
	case apiclient.EventKYCActionRequired:
		return h.employeeHandoff(func(ctx context.Context, ev store.WebhookEvent, env *apiclient.Event) (Outcome, error) {
			return h.Employees.FlagKYCAction(ctx, employeeEventOf(ev, env))
		})
	}
	return func(store.WebhookEvent, *apiclient.Event) (Outcome, effects, error) {
		return Outcome{State: store.EventKept, Note: "unknown event type; kept and shown, nothing applied"}, effects{}, nil
	}, nil
}

// payloadFields reads the string fields the spec leaves "not shown" but the
// API sends (serviceUserId, userId, cardId, ...), tolerating any shape.
func payloadFields(raw json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return map[string]any{}
	}
	return m
}

func fieldString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// userOf names the user an event is about.
func userOf(env *apiclient.Event) string { return userIn(payloadFields(env.Payload)) }

// userIn is userOf on payload fields already read.
func userIn(f map[string]any) string {
	id := fieldString(f, "serviceUserId", "userId")
	if !validID(id) {
		return ""
	}
	return id
}

func occurredAt(ev store.WebhookEvent, env *apiclient.Event) time.Time {
	if !env.Timestamp.IsZero() {
		return env.Timestamp
	}
	return ev.ReceivedAt
}
