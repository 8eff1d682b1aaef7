package controls

import (
	"net/http"

	"partneradmin/handlers"
	"partneradmin/views"
)

// ConfirmDestination records a second person's confirmation of a
// destination; it is usable after the cooling-off period in force now.
func (h *Handler) ConfirmDestination(w http.ResponseWriter, r *http.Request) {
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
	now := h.clock()
	settings, err := h.store.SettingsInForce(ctx, now)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	d, err := h.store.ConfirmDestination(ctx, id, handlers.ActorFrom(ctx), now, settings.CoolingOff())
	if msg, known := decisionWords(err, "destination"); known {
		h.show(w, r, http.StatusConflict, func(v *views.ControlsView) { v.Error = msg })
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "“"+d.Name+"” is confirmed. It is usable from "+views.DateTime(ctx, *d.UsableFrom)+".")
	h.Redirect(w, r, "/controls#book")
}
