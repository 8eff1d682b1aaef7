package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// Write is one state-changing call to the Partner API, made through the
// action ledger: begun (committed) before the call, called once, classified
// once, read back when the outcome is unknown, and finished with its local
// changes and its audit row in one transaction.
type Write struct {
	// Key makes the write happen once: a form's one-time token (FormKey)
	// or a natural key of the domain.
	Key    string
	Kind   string // e.g. "proposal.create"
	Target string // e.g. "proposal:…"; a create may set it in its Effect
	Actor  store.Actor
	// Request is what is asked, kept in the ledger as JSON: never secrets,
	// identification numbers or card data.
	Request any
	// Shared: the key is a natural key any person may reach (an approval
	// as the same wallet admin, a payroll row), so the same kind of write
	// begun by someone else is a repeat, not a form used for another write.
	Shared bool
	// Call makes the one upstream call. It returns what a done call changes
	// here.
	Call func(ctx context.Context) (Effect, error)
	// Spend, when set, is what the write takes from a treasury wallet: the
	// money controls decide it in the transaction that begins the action
	// (store.CheckSpend), and a refusal (*store.PolicyRefusal) begins
	// nothing and sends nothing.
	Spend *store.Spend
}

// Effect is what a done write changes here, applied in the transaction that
// finishes the action.
type Effect struct {
	Target string
	Result any
	// Detail is the audit row's words (what was done, never secrets).
	Detail string
	Apply  func(ctx context.Context, tx *store.Store) error
}

// ReadBack reads the API to learn whether an open action took effect:
// recorded true with the effect it had, or false when the API shows it did
// not happen (yet). It is built from the ledger row alone, so the recovery
// job can run it after a restart.
type ReadBack func(ctx context.Context, a store.Action) (eff Effect, recorded bool, err error)

// Done is the outcome of Run.
type Done struct {
	// Action is the ledger row after the run.
	Action store.Action
	// Repeat: the key was used before (a second click, another tab, a
	// retry); nothing was sent now and Action is what the first did.
	Repeat bool
	// Problem explains a refused or unknown call.
	Problem apiclient.Problem
	// Err is the upstream error, nil when done.
	Err error
}

// State is the action's state.
func (d Done) State() store.ActionState { return d.Action.State }

// ErrKeyReused is returned when a key comes back for another kind of write
// or another person.
var ErrKeyReused = errors.New("handlers: this form was already used for something else")

// reused is ErrKeyReused when the action begun under a key is another kind
// of write, or (unless the key is shared) another person's.
func reused(a store.Action, kind string, by store.Actor, shared bool) error {
	if a.Kind != kind || (!shared && a.Actor.StaffID != by.StaffID) {
		return ErrKeyReused
	}
	return nil
}

// Actions runs writes and resolves the ones left open.
type Actions struct {
	store  *store.Store
	logger *slog.Logger
	// callTimeout bounds one upstream write. The call runs detached from
	// the request, so a browser that goes away does not cut it short.
	callTimeout time.Duration
	// settleAfter is how long an open action is left before the recovery
	// job concludes from a read-back that it did not happen: a request can
	// still land upstream until its call has timed out.
	settleAfter time.Duration

	mu        sync.RWMutex
	readBacks map[string]ReadBack
}

// NewActions returns the runner over the store.
func NewActions(st *store.Store, logger *slog.Logger) *Actions {
	return &Actions{store: st, logger: logger, callTimeout: 30 * time.Second, settleAfter: 2 * time.Minute,
		readBacks: map[string]ReadBack{}}
}

// ReadBackFor registers how actions of a kind are read back. Areas register
// their kinds when they are built.
func (x *Actions) ReadBackFor(kind string, rb ReadBack) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.readBacks[kind] = rb
}

func (x *Actions) readBack(kind string) ReadBack {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.readBacks[kind]
}

// Run makes the write once. The error is local (the database); upstream
// refusals and unknown outcomes are in Done.
func (x *Actions) Run(ctx context.Context, w Write) (Done, error) {
	if w.Key == "" || w.Kind == "" || w.Call == nil {
		return Done{}, fmt.Errorf("handlers: write %q: key, kind and call are needed", w.Kind)
	}
	a, fresh, err := x.begin(ctx, w)
	if err != nil {
		return Done{}, err
	}
	if !fresh {
		return Done{Action: a, Repeat: true}, reused(a, w.Kind, w.Actor, w.Shared)
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), x.callTimeout)
	eff, callErr := w.Call(cctx)
	cancel()
	ctx = context.WithoutCancel(ctx) // finish what was sent even if the browser left
	if callErr == nil {
		a, err := x.finish(ctx, a, store.ActionDone, eff, "")
		return Done{Action: a}, err
	}
	p := apiclient.Explain(callErr)
	if p.Kind == apiclient.Refused {
		a, err := x.finish(ctx, a, store.ActionRefused, Effect{}, p.Summary)
		return Done{Action: a, Problem: p, Err: callErr}, err
	}
	x.logger.WarnContext(ctx, "upstream write: outcome unknown; reading back", "kind", w.Kind, "key", w.Key, "err", callErr)
	a, err = x.settle(ctx, a, false, p.Summary)
	if a.State == store.ActionDone {
		return Done{Action: a}, err
	}
	p.Summary = a.Message
	return Done{Action: a, Problem: p, Err: callErr}, err
}

// begin begins the write's action, deciding its spend in the same
// transaction when it has one.
func (x *Actions) begin(ctx context.Context, w Write) (a store.Action, fresh bool, err error) {
	n := store.NewAction{Key: w.Key, Kind: w.Kind, Target: w.Target, Actor: w.Actor, Request: w.Request}
	if w.Spend == nil {
		return x.store.BeginAction(ctx, n)
	}
	err = x.store.Tx(ctx, func(tx *store.Store) error {
		if a, fresh, err = tx.BeginAction(ctx, n); err != nil || !fresh {
			return err
		}
		return tx.CheckSpend(ctx, a.Key, *w.Spend)
	})
	// A refusal rolls the begin back (the form keeps its key, to send
	// again within the rules), so its audit row is written on its own,
	// here, for every area alike.
	var refused *store.PolicyRefusal
	if errors.As(err, &refused) {
		if aerr := x.Refused(ctx, w.Kind, w.Target, w.Actor, "Refused by the money controls: "+refused.Words()); aerr != nil {
			return a, false, aerr
		}
	}
	return a, fresh, err
}

// settle reads an open action back. Recorded: done. Not recorded: refused
// when conclusive (the action is older than settleAfter), else unknown.
// Without a read-back, or when it fails: unknown, with what to check.
func (x *Actions) settle(ctx context.Context, a store.Action, conclusive bool, why string) (store.Action, error) {
	rb := x.readBack(a.Kind)
	if rb == nil {
		return x.finish(ctx, a, store.ActionUnknown, Effect{}, why+
			" This kind of request cannot be read back: check it at the Partner API (or with the person it concerns) before sending it again, then mark the action resolved.")
	}
	eff, recorded, err := rb(ctx, a)
	switch {
	case err != nil:
		x.logger.WarnContext(ctx, "upstream write: read-back failed", "kind", a.Kind, "key", a.Key, "err", err)
		return x.finish(ctx, a, store.ActionUnknown, Effect{}, why+
			" Reading it back failed too; the app keeps checking and this page shows the outcome once known. Do not send it again meanwhile.")
	case recorded:
		return x.finish(ctx, a, store.ActionDone, confirmed(eff), "")
	case conclusive:
		return x.finish(ctx, a, store.ActionRefused, Effect{},
			"The Partner API did not confirm the request and reading it back shows it was not recorded: nothing was done. You can send it again.")
	}
	return x.finish(ctx, a, store.ActionUnknown, Effect{}, why+
		" Reading it back shows it is not recorded so far; the app checks again shortly and this page shows the outcome. Do not send it again meanwhile.")
}

// confirmed marks a done effect as learned from a read-back.
func confirmed(eff Effect) Effect {
	if eff.Detail == "" {
		eff.Detail = "confirmed by reading it back"
	} else {
		eff.Detail += " (confirmed by reading it back)"
	}
	return eff
}

// Confirm reads back an action left begun by a writer that is gone (a job
// attempt whose process died) and finishes it as done when the API shows
// it recorded, so the work it belongs to goes on at once. Otherwise it is
// left as it was: only Recover, once the action is old enough that nothing
// of it can still land upstream, concludes that it did not happen.
func (x *Actions) Confirm(ctx context.Context, a store.Action) (store.Action, error) {
	rb := x.readBack(a.Kind)
	if rb == nil || a.State.Finished() {
		return a, nil
	}
	eff, recorded, err := rb(ctx, a)
	if err != nil || !recorded {
		return a, err
	}
	return x.finish(ctx, a, store.ActionDone, confirmed(eff), "")
}

// finish records the outcome. An action another finisher settled first is
// returned as that finisher left it.
func (x *Actions) finish(ctx context.Context, a store.Action, state store.ActionState, eff Effect, msg string) (store.Action, error) {
	f := store.Finish{State: state, Target: eff.Target, Result: eff.Result, Message: msg, Detail: eff.Detail}
	if eff.Apply != nil {
		f.Apply = eff.Apply
	}
	if state == store.ActionDone && msg == "" {
		f.Message = "Done."
	}
	out, err := x.store.FinishAction(ctx, a.Key, f)
	if errors.Is(err, store.ErrActionFinished) {
		return out, nil
	}
	if err != nil {
		return a, fmt.Errorf("handlers: finish %s %s: %w", a.Kind, a.Key, err)
	}
	return out, nil
}

// Recover resolves actions left open: begun by a process that died before
// it learned the outcome, or unknown after a slow answer. It returns how
// many it settled.
func (x *Actions) Recover(ctx context.Context, now time.Time) (int, error) {
	open, err := x.store.OpenActions(ctx, now.Add(-x.settleAfter), 50)
	if err != nil {
		return 0, err
	}
	settled := 0
	for _, a := range open {
		why := "The app did not learn the outcome."
		if a.State == store.ActionBegun {
			why = "The app stopped before it learned whether the Partner API recorded this request."
		}
		after, err := x.settle(ctx, a, true, why)
		if err != nil {
			return settled, err
		}
		if after.State.Finished() {
			settled++
		} else if after.State == a.State {
			if err := x.store.TouchAction(ctx, a.Key); err != nil {
				return settled, err
			}
		}
	}
	return settled, nil
}

// RecoverActionsArgs is the periodic job that resolves open actions.
type RecoverActionsArgs struct{}

// Kind names the job.
func (RecoverActionsArgs) Kind() string { return "recover_actions" }

// RecoverActionsInterval is how often open actions are looked at.
const RecoverActionsInterval = time.Minute

// RecoverActionsWorker runs Recover.
type RecoverActionsWorker struct {
	river.WorkerDefaults[RecoverActionsArgs]
	Actions *Actions
	Clock   func() time.Time
}

// Work resolves open actions.
func (w *RecoverActionsWorker) Work(ctx context.Context, _ *river.Job[RecoverActionsArgs]) error {
	_, err := w.Actions.Recover(ctx, w.Clock())
	return err
}
