package controls

import (
	"errors"
	"net/http"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// RemoveDestination takes a destination out of the book, or asks to: a
// confirmed one is removed only when a second person confirms the
// removal (an entry nobody confirmed yet is withdrawn at once).
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
	removed, err := h.store.RemoveDestination(ctx, id, handlers.ActorFrom(ctx), h.clock())
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.Flash(r, "info", "That destination was already removed.")
	case errors.Is(err, store.ErrSamePerson):
		h.show(w, r, http.StatusConflict, func(v *views.ControlsView) {
			v.Error = "You asked for this removal: another person must confirm it. Until then the destination stays usable."
		})
		return
	case err != nil:
		h.ServerError(w, r, err)
		return
	case removed:
		h.Flash(r, "ok", "The destination was removed from the book.")
	default:
		h.Flash(r, "ok", "Removal asked. Another person confirms it on this page; until then the destination stays usable.")
	}
	h.Redirect(w, r, "/controls#book")
}
