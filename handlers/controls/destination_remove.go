package controls

import (
	"errors"
	"net/http"

	"partneradmin/handlers"
	"partneradmin/store"
)

// RemoveDestination takes a destination out of the book at once: taking
// trust away needs no second person.
func (h *Handler) RemoveDestination(w http.ResponseWriter, r *http.Request) {
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
	err := h.store.RemoveDestination(ctx, id, handlers.ActorFrom(ctx), h.clock())
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.Flash(r, "info", "That destination was already removed.")
	case err != nil:
		h.ServerError(w, r, err)
		return
	default:
		h.Flash(r, "ok", "The destination was removed from the book.")
	}
	h.Redirect(w, r, "/controls#book")
}
