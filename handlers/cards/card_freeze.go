package cards

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const maxReasonLength = 200

// Freeze sends BLOCKED: one click from a search row or the detail page.
func (h *Handler) Freeze(w http.ResponseWriter, r *http.Request) { h.changeStatus(w, r, "freeze") }

// Unfreeze sends ACTIVE to a frozen card.
func (h *Handler) Unfreeze(w http.ResponseWriter, r *http.Request) { h.changeStatus(w, r, "unfreeze") }

// changeStatus freezes or unfreezes a card:
//  1. a second request while one is in flight for the card sends nothing;
//  2. the live status is read first (GET /cards/{cardId});
//  3. a card already in the wanted state gets nothing sent;
//  4. BLOCKED or ACTIVE is sent once, never retried;
//  5. a refusal ("The current status does not allow it") or an unclear
//     failure re-reads the status and explains it;
//  6. every outcome is audited, with the optional reason.
func (h *Handler) changeStatus(w http.ResponseWriter, r *http.Request, action string) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	compact := r.PostFormValue("view") == "row"
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	ctl := views.CardControl{CardID: hit.ID, CardName: hit.CardName, CanWrite: true, Compact: compact, Poll: !compact}
	respond := func(status int, badgeStatus string, live bool, msg string, isErr bool) {
		if live {
			ctl.Badge = badge(badgeStatus, true, h.Now(), h.Now())
		} else {
			ctl.Badge = badge(badgeStatus, false, hit.StatusReadAt, h.Now())
		}
		ctl.Action, ctl.Message, ctl.Error = actionFor(badgeStatus), msg, isErr
		if !compact {
			ctl.Note = explainStatus(badgeStatus)
		}
		h.controlAnswer(w, r, hit, status, ctl)
	}
	if hit.Reserved {
		respond(http.StatusConflict, "RESERVED", false, "This card is not issued yet: there is nothing to "+action+".", true)
		return
	}
	if utf8.RuneCountInString(reason) > maxReasonLength {
		ctl.Badge = badge(hit.Status, false, hit.StatusReadAt, h.Now())
		ctl.Action, ctl.Message, ctl.Error = actionFor(hit.Status), "The reason must be at most 200 characters.", true
		ctl.Reason = reason
		h.controlAnswer(w, r, hit, http.StatusUnprocessableEntity, ctl)
		return
	}
	started, err := h.Store.BeginCardAction(ctx, hit.ID, action, inFlightStale)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !started {
		// A second click while the first is in flight: nothing is sent.
		respond(http.StatusConflict, hit.Status, false, "A change to this card is already in progress; wait for it to finish.", true)
		return
	}
	wctx, cancel := h.writeContext(r)
	defer cancel()
	defer func() {
		if err := h.Store.EndCardAction(wctx, hit.ID); err != nil {
			h.Logger.ErrorContext(wctx, "end card action", "card", hit.ID, "err", err)
		}
	}()

	want, sent := apiclient.CardBlocked, "BLOCKED"
	auditAction := "card.freeze"
	if action == "unfreeze" {
		want, sent, auditAction = apiclient.CardActive, "ACTIVE", "card.unfreeze"
	}
	entry := store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: auditAction, Target: target(hit.ID)}
	reasonDetail := ""
	if reason != "" {
		reasonDetail = "reason: " + reason
	}

	live, err := h.API.GetCard(wctx, hit.ServiceUserID, hit.ID)
	if err != nil {
		entry.Outcome, entry.Detail = store.OutcomeFailed, auditDetail("live status could not be read; nothing sent", reasonDetail)
		if aerr := h.Store.Audit(wctx, entry); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		h.Logger.WarnContext(ctx, "card status read failed", "card", hit.ID, "err", err)
		respond(http.StatusBadGateway, hit.Status, false, upstreamWords(err)+" Nothing was sent; try again in a moment.", true)
		return
	}
	before := statusKey(live.Status)
	if (action == "freeze" && isFrozen(before)) || (action == "unfreeze" && before == "active") {
		entry.Outcome, entry.Detail = store.OutcomeOK, auditDetail("already "+before+"; nothing sent", reasonDetail)
		if aerr := h.Store.CardAuditChange(wctx, entry, hit.ID, string(live.Status), h.Now()); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		respond(http.StatusOK, string(live.Status), true, "The card is already "+badge(before, true, h.Now(), h.Now()).Label+"; nothing was sent.", false)
		return
	}

	err = h.API.SetCardStatus(wctx, hit.ServiceUserID, hit.ID, apiclient.SetCardStatusRequest{Status: want})
	if err == nil {
		after := "frozen"
		if action == "unfreeze" {
			after = "active"
		}
		entry.Outcome, entry.Detail = store.OutcomeOK, auditDetail("sent "+sent+" (was "+before+")", reasonDetail)
		if aerr := h.Store.CardAuditChange(wctx, entry, hit.ID, after, h.Now()); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		msg := "Frozen: payments are declined until the card is unfrozen."
		if action == "unfreeze" {
			msg = "Unfrozen: the card can be used again."
		}
		respond(http.StatusOK, after, true, msg, false)
		return
	}

	// Refused, or unclear (timeout, 5xx): never retried. Read the status
	// again to tell the user where the card stands.
	refused := statusNotAllowed(err)
	h.Logger.WarnContext(ctx, "card status change not applied", "card", hit.ID, "action", action, "refused", refused, "err", err)
	now, rerr := h.API.GetCard(wctx, hit.ServiceUserID, hit.ID)
	current := before
	if rerr == nil {
		current = statusKey(now.Status)
	}
	var msg string
	switch {
	case refused:
		entry.Outcome = store.OutcomeRefused
		msg = explainRefusal(action, current)
	case apiclient.IsValidation(err):
		entry.Outcome = store.OutcomeRefused
		msg = "The API refused the request as invalid. Nothing was retried."
	case rerr == nil && ((action == "freeze" && isFrozen(current)) || (action == "unfreeze" && current == "active")):
		// The write failed on the way back but the card did change.
		entry.Outcome = store.OutcomeOK
		msg = "The answer was lost, but the card now reads " + current + ": the change was applied."
	default:
		entry.Outcome = store.OutcomeFailed
		msg = upstreamWords(err) + " The change may not have been applied; the status shown was read again just now. Nothing was retried."
		if rerr != nil {
			msg = upstreamWords(err) + " The card's status could not be read again either: reload the page before trying again. Nothing was retried."
		}
	}
	entry.Detail = auditDetail("sent "+sent+" (was "+before+")", "now "+current, reasonDetail)
	status := ""
	if rerr == nil {
		status = string(now.Status)
	}
	if aerr := h.Store.CardAuditChange(wctx, entry, hit.ID, status, h.Now()); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	code := http.StatusConflict
	if entry.Outcome == store.OutcomeFailed {
		code = http.StatusBadGateway
	}
	if entry.Outcome == store.OutcomeOK {
		code = http.StatusOK
	}
	respond(code, current, rerr == nil, msg, entry.Outcome != store.OutcomeOK)
}

// controlAnswer answers a freeze or unfreeze: the control fragment for
// htmx (swapped in place), or the whole detail page with the control's
// message and the real status code.
func (h *Handler) controlAnswer(w http.ResponseWriter, r *http.Request, hit store.CardHit, status int, ctl views.CardControl) {
	if handlers.IsFragmentRequest(r) {
		w.Header().Set("Cache-Control", "no-store")
		h.RenderFragment(w, r, http.StatusOK, views.CardControlView(ctl))
		return
	}
	ctl.Compact, ctl.Poll = false, true
	ctl.Note = explainStatus(ctl.Badge.Status)
	h.showDetail(w, r, hit, status, &ctl)
}

// statusNotAllowed recognises the issuer's refusal of a transition. spec:
// "500 | The current status does not allow it | card transition refused by
// the issuer; retrying cannot succeed". Wording is unstable, so a 500 from
// the status route is taken as a refusal when it says so in any case.
func statusNotAllowed(err error) bool {
	var e *apiclient.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusInternalServerError {
		return false
	}
	return strings.Contains(strings.ToLower(e.Message()), "status does not allow")
}

// loadCard finds the card of the {id} path parameter in the index, or
// answers 404.
func (h *Handler) loadCard(w http.ResponseWriter, r *http.Request) (store.CardHit, bool) {
	id := chi.URLParam(r, "id")
	hit, err := h.Store.CardByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.ErrorPage(w, r, http.StatusNotFound, "Card not found",
			"No card with this id is in the card index. Search again, or re-read the card lists from the Cards page.")
		return store.CardHit{}, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return store.CardHit{}, false
	}
	return hit, true
}
