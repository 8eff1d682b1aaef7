package employees

import (
	"context"
	"fmt"
	"net/http"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// ResolveAction is "Mark as resolved" on a flagged employee: the HR admin
// confirms the employee did what the API asked (or it is no longer needed)
// and the action-required flag is cleared. It calls no API: the form's
// one-time token is the action's key, and the flag, the ledger row and the
// audit row commit together. An employee no longer flagged (cleared
// meanwhile by a webhook or another admin) is said so, not treated as an
// error.
func (h *Handler) ResolveAction(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	if h.seen(w, r, key, kindResolve, page) {
		return
	}
	if e.InviteState != store.InviteActionRequired && e.ActionRequired == "" {
		h.Flash(r, "info", "No action is required from "+e.Name()+" any more: nothing to mark as resolved.")
		h.Redirect(w, r, page)
		return
	}
	if r.PostFormValue("confirm") != "1" {
		h.renderDetailWith(w, r, http.StatusUnprocessableEntity, e, func(v *views.EmployeeDetailView) {
			v.ResolveError = "Tick the box to confirm the employee has done what was asked."
			v.Tokens.Resolve = r.PostFormValue(handlers.FormTokenField)
		})
		return
	}
	what := e.ActionRequired
	if what == "" {
		what = "an action (not described)"
	}
	by := handlers.ActorFrom(r.Context())
	d, err := h.Actions.RunLocal(r.Context(), handlers.Local{Key: key, Kind: kindResolve, Target: employeeTarget(e.ID), Actor: by,
		Request: map[string]int64{"employeeId": e.ID},
		Detail:  "no longer required: " + what + "; marked as resolved by hand on the employee's page",
		Change: func(ctx context.Context, tx *store.Store) error {
			cleared, err := tx.ResolveActionRequired(ctx, e.ID)
			if err == nil && !cleared {
				return handlers.Refusal("no action is required any more")
			}
			return err
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	if d.State() != store.ActionDone {
		h.Flash(r, "info", "No action is required from "+e.Name()+" any more: nothing to mark as resolved.")
		h.Redirect(w, r, page)
		return
	}
	h.Flash(r, "ok", "Marked as resolved: no action is required from "+e.Name()+" any more.")
	h.Redirect(w, r, page)
}
