// Package controls serves the money controls: the address book of trusted
// destinations, each treasury wallet's spending policy, the controls'
// settings and the account's approval mode, and the changes of policy that
// one owner proposes and a second approves. The checks themselves run in
// the store (store.CheckSpend), in the transaction that begins each
// value-moving action.
package controls

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// Handler serves the money controls' routes.
type Handler struct {
	*handlers.Base
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	clock   func() time.Time
}

// kindApprovalMode is the ledger's kind (and the audit row's action) of
// an approval-mode change sent to the Partner API.
const kindApprovalMode = "approval_mode.set"

// New returns the money controls' handler.
func New(d handlers.Deps) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions, clock: d.Clock}
	if d.Actions != nil {
		d.Actions.ReadBackFor(kindApprovalMode, h.readBackApprovalMode)
	}
	return h
}

// idParam reads a numeric path parameter.
func idParam(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	return id, err == nil && id > 0
}

// decisionWords says why a confirmation or decision was not taken.
func decisionWords(err error, what string) (string, bool) {
	switch {
	case errors.Is(err, store.ErrSamePerson):
		return "You proposed this " + what + ": another person must confirm it.", true
	case errors.Is(err, store.ErrAlreadyDecided):
		return "Someone else has already decided this " + what + ".", true
	case errors.Is(err, store.ErrNotFound):
		return "This " + what + " is no longer there.", true
	case errors.Is(err, store.ErrNotNamed):
		return "The wallet's spending policy names who approves above its tier, and you are not one of them.", true
	}
	return "", false
}
