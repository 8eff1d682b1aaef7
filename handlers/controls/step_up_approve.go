package controls

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
)

// StepUpApprove records the viewer's approval in the app of a proposal
// above its wallet's step-up tier. Its creator may not give one.
func (h *Handler) StepUpApprove(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	if handlers.CheckText(id, 100, false) != "" {
		h.NotFound(w, r)
		return
	}
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	back := "/approvals/" + url.PathEscape(id)
	err := h.store.StepUpApprove(ctx, id, handlers.ActorFrom(ctx), h.clock())
	if msg, known := decisionWords(err, "proposal"); known {
		h.Flash(r, "error", msg)
		h.Redirect(w, r, back)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Your approval above the tier is recorded.")
	h.Redirect(w, r, back)
}
