package controls

import (
	"net/http"

	"partneradmin/handlers"
)

// RejectChange turns down a policy change (another owner), or withdraws
// it (its proposer).
func (h *Handler) RejectChange(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, ok := idParam(r)
	if !ok {
		h.NotFound(w, r)
		return
	}
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	c, err := h.store.RejectPolicyChange(ctx, id, handlers.ActorFrom(ctx), h.clock())
	if h.refusedDecision(w, r, err) {
		return
	}
	h.Flash(r, "ok", c.Kind.Label()+" change turned down: nothing changes.")
	h.Redirect(w, r, "/controls#changes")
}
