package handlers

import (
	"context"
	"errors"
	"fmt"

	"partneradmin/store"
)

// Local is a state-changing action that stays in the app (no upstream
// call), made once under a one-time key like a Write.
type Local struct {
	Key     string
	Kind    string
	Target  string
	Actor   store.Actor
	Request any
	// Detail is the audit row's words when the change is done.
	Detail string
	// Change is the local change, made in the transaction that finishes
	// the action and writes its audit row. A Refusal from it finishes the
	// action refused, with its words, and changes nothing.
	Change func(ctx context.Context, tx *store.Store) error
}

// Refusal is what a local change returns when it does not apply.
type Refusal string

func (r Refusal) Error() string { return string(r) }

// RunLocal makes a local change under a one-time key: the begun row is
// committed first (so a second click finds it), then the change and its
// audit row commit with the finish. A repeat changes nothing and returns
// what the first did; the error is local (the database) or ErrKeyReused.
func (x *Actions) RunLocal(ctx context.Context, l Local) (Done, error) {
	if l.Key == "" || l.Kind == "" || l.Change == nil {
		return Done{}, fmt.Errorf("handlers: local %q: key, kind and change are needed", l.Kind)
	}
	a, fresh, err := x.store.BeginAction(ctx, store.NewAction{Key: l.Key, Kind: l.Kind, Target: l.Target, Actor: l.Actor, Request: l.Request})
	if err != nil {
		return Done{}, err
	}
	if !fresh {
		return Done{Action: a, Repeat: true}, reused(a, l.Kind, l.Actor, false)
	}
	ctx = context.WithoutCancel(ctx) // the begun row is committed: finish it
	out, err := x.store.FinishAction(ctx, l.Key, store.Finish{State: store.ActionDone, Message: "Done.", Detail: l.Detail, Apply: l.Change})
	var no Refusal
	if errors.As(err, &no) {
		out, err = x.store.FinishAction(ctx, l.Key, store.Finish{State: store.ActionRefused, Message: string(no)})
	}
	if errors.Is(err, store.ErrActionFinished) {
		err = nil
	}
	if err != nil {
		return Done{Action: a}, fmt.Errorf("handlers: finish %s %s: %w", l.Kind, l.Key, err)
	}
	return Done{Action: out}, nil
}

// Seen looks a form's key up ahead of any other check, so a form sent
// again is answered with what its first post did and nothing is checked
// or sent again. seen is false when the key is new; err is ErrKeyReused
// when the key was used for another kind of write or by another person.
func (x *Actions) Seen(ctx context.Context, key, kind string, by store.Actor) (a store.Action, seen bool, err error) {
	a, err = x.store.ActionByKey(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	return a, true, reused(a, kind, by, false)
}

// Refused records a request refused here before anything began (the state
// does not allow it): there is no change to write its audit row with, so
// the ledger writes the row alone. The form keeps its key, so the person
// can send it again once the state allows it.
func (x *Actions) Refused(ctx context.Context, kind, target string, by store.Actor, why string) error {
	return x.store.Audit(ctx, store.AuditEntry{Actor: by, Action: kind, Target: target, Outcome: store.OutcomeRefused, Detail: why})
}
