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
// and the action-required flag is cleared, with its audit row. An employee
// no longer flagged (cleared meanwhile by a webhook or another admin) is
// said so, not treated as an error.
func (h *Handler) ResolveAction(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	if e.InviteState != store.InviteActionRequired && e.ActionRequired == "" {
		h.Flash(r, "info", "No action is required from "+e.Name()+" any more: nothing to mark as resolved.")
		h.Redirect(w, r, page)
		return
	}
	if r.PostFormValue("confirm") != "1" {
		h.renderDetailWith(w, r, http.StatusUnprocessableEntity, e, func(v *views.EmployeeDetailView) {
			v.ResolveError = "Tick the box to confirm the employee has done what was asked."
		})
		return
	}
	by := handlers.ActorFrom(r.Context())
	cleared, err := h.Store.ClearActionRequired(context.WithoutCancel(r.Context()), e.ID, by, "marked as resolved by hand on the employee's page")
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !cleared {
		h.Flash(r, "info", "No action is required from "+e.Name()+" any more: nothing to mark as resolved.")
		h.Redirect(w, r, page)
		return
	}
	h.Flash(r, "ok", "Marked as resolved: no action is required from "+e.Name()+" any more.")
	h.Redirect(w, r, page)
}
