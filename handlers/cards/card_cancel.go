package cards

import (
	"context"
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// cancellation is a cancel as the ledger keeps it.
type cancellation struct {
	CardID string `json:"cardId"`
	UserID string `json:"userId"`
	Reason string `json:"reason,omitempty"`
}

func (h *Handler) cancelEffect(c cancellation, status string) handlers.Effect {
	reason := ""
	if c.Reason != "" {
		reason = "reason: " + c.Reason
	}
	return handlers.Effect{
		Detail: auditDetail("cancelled permanently", reason),
		Apply: func(ctx context.Context, tx *store.Store) error {
			return tx.RecordCardStatus(ctx, c.CardID, status, h.Clock())
		},
	}
}

// readBackCancel learns from GET /cards/{cardId} whether a cancel took
// effect.
func (h *Handler) readBackCancel(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var c cancellation
	if err := a.DecodeRequest(&c); err != nil {
		return handlers.Effect{}, false, err
	}
	live, err := h.API.GetCard(ctx, c.UserID, c.CardID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	if !views.CardStatus(live.Status).Canceled() {
		return handlers.Effect{}, false, nil
	}
	return h.cancelEffect(c, string(live.Status)), true, nil
}

// Cancel deactivates a card permanently (PUT .../deactivate). The user must
// type the card's name; the request is sent once, through the ledger.
func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	form := views.CardCancelForm{CardID: hit.ID, CardName: hit.CardName, Typed: r.PostFormValue("confirm_name"),
		Reason: strings.TrimSpace(r.PostFormValue("reason")), Fields: views.FieldErrors{}, FormToken: formToken(r)}
	again := func(status int, msg string) {
		h.showDetail(w, r, hit, status, nil, func(v *views.CardDetailView) {
			form.Message = msg
			v.Cancel = form
		})
	}
	if hit.Reserved {
		again(http.StatusConflict, "This card is not issued yet. A request is withdrawn by rejecting its proposal in the approval queue.")
		return
	}
	if msg := checkText(form.Typed, 100, "The name"); msg != "" {
		form.Fields["confirm_name"] = msg
	} else if strings.TrimSpace(form.Typed) != strings.TrimSpace(hit.CardName) {
		form.Fields["confirm_name"] = "Type the card's name exactly, " + hit.CardName + ", to confirm."
	}
	if msg := checkText(form.Reason, maxReasonLength, "The reason"); msg != "" {
		form.Fields["reason"] = msg
	}
	if form.Fields.Any() {
		again(http.StatusUnprocessableEntity, "")
		return
	}
	c := cancellation{CardID: hit.ID, UserID: hit.ServiceUserID, Reason: form.Reason}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindCancel, Target: target(hit.ID), Actor: handlers.ActorFrom(ctx), Request: c,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if err := h.API.DeactivateCard(ctx, c.UserID, c.CardID); err != nil {
				return handlers.Effect{}, err
			}
			return h.cancelEffect(c, "canceled"), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	switch {
	case d.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(d.Action))
		h.Redirect(w, r, "/cards/"+hit.ID)
	case d.State() == store.ActionDone:
		h.Flash(r, "ok", "Card "+hit.CardName+" is cancelled permanently.")
		h.Redirect(w, r, "/cards/"+hit.ID)
	case d.State() == store.ActionRefused:
		form.FormToken = handlers.NewFormToken()
		again(failedStatus(d), "The card was not cancelled: "+d.Problem.Summary)
	default:
		form.FormToken = handlers.NewFormToken()
		again(failedStatus(d), d.Problem.Summary)
	}
}
