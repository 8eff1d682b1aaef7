package cards

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Cancel deactivates a card permanently (PUT .../deactivate). The user must
// type the card's name; the request is sent once and never retried.
func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	form := views.CardCancelForm{CardID: hit.ID, CardName: hit.CardName, Typed: r.PostFormValue("confirm_name"),
		Reason: strings.TrimSpace(r.PostFormValue("reason")), Fields: views.FieldErrors{}}
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
	if strings.TrimSpace(form.Typed) != strings.TrimSpace(hit.CardName) {
		form.Fields["confirm_name"] = "Type the card's name exactly, " + hit.CardName + ", to confirm."
	}
	if utf8.RuneCountInString(form.Reason) > maxReasonLength {
		form.Fields["reason"] = "The reason must be at most 200 characters."
	}
	if form.Fields.Any() {
		again(http.StatusUnprocessableEntity, "")
		return
	}
	started, err := h.Store.BeginCardAction(ctx, hit.ID, "cancel", inFlightStale)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !started {
		again(http.StatusConflict, "A change to this card is already in progress; wait for it to finish.")
		return
	}
	wctx, cancel := h.writeContext(r)
	defer cancel()
	defer func() {
		if err := h.Store.EndCardAction(wctx, hit.ID); err != nil {
			h.Logger.ErrorContext(wctx, "end card action", "card", hit.ID, "err", err)
		}
	}()
	entry := store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: "card.cancel", Target: target(hit.ID)}
	reason := ""
	if form.Reason != "" {
		reason = "reason: " + form.Reason
	}
	if err := h.API.DeactivateCard(wctx, hit.ServiceUserID, hit.ID); err != nil {
		h.Logger.WarnContext(ctx, "cancel card", "card", hit.ID, "err", err)
		live, rerr := h.API.GetCard(wctx, hit.ServiceUserID, hit.ID)
		status, now := "", "unknown"
		if rerr == nil {
			status, now = string(live.Status), statusKey(live.Status)
		}
		msg := upstreamWords(err) + " The card may not be cancelled; nothing was retried."
		entry.Outcome = store.OutcomeFailed
		switch {
		case statusNotAllowed(err) && isCanceled(now):
			entry.Outcome, msg = store.OutcomeRefused, "The card was already cancelled. Nothing was retried."
		case statusNotAllowed(err):
			entry.Outcome, msg = store.OutcomeRefused, "The issuer refused to cancel the card in its current status ("+now+"). Nothing was retried."
		case rerr == nil && isCanceled(now):
			entry.Outcome, msg = store.OutcomeOK, "The answer was lost, but the card now reads cancelled."
		}
		entry.Detail = auditDetail("now "+now, reason)
		if aerr := h.Store.CardAuditChange(wctx, entry, hit.ID, status, h.Now()); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		if entry.Outcome == store.OutcomeOK {
			h.Flash(r, "ok", msg)
			h.Redirect(w, r, "/cards/"+hit.ID)
			return
		}
		code := http.StatusBadGateway
		if entry.Outcome == store.OutcomeRefused {
			code = http.StatusConflict
		}
		again(code, msg)
		return
	}
	entry.Outcome, entry.Detail = store.OutcomeOK, auditDetail("cancelled permanently", reason)
	if aerr := h.Store.CardAuditChange(wctx, entry, hit.ID, "canceled", h.Now()); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	h.Flash(r, "ok", "Card "+hit.CardName+" is cancelled permanently.")
	h.Redirect(w, r, "/cards/"+hit.ID)
}
