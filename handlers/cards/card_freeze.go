package cards

import (
	"context"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Freeze sends BLOCKED: one click from a search row or the detail page.
func (h *Handler) Freeze(w http.ResponseWriter, r *http.Request) { h.changeStatus(w, r, kindFreeze) }

// Unfreeze sends ACTIVE to a frozen card.
func (h *Handler) Unfreeze(w http.ResponseWriter, r *http.Request) {
	h.changeStatus(w, r, kindUnfreeze)
}

// statusChange is a freeze or unfreeze as the ledger keeps it.
type statusChange struct {
	CardID string               `json:"cardId"`
	UserID string               `json:"userId"`
	Status apiclient.CardStatus `json:"status"` // BLOCKED or ACTIVE
	Was    string               `json:"was"`
	Reason string               `json:"reason,omitempty"`
}

// reached reports whether a status is what the change asked for.
func (c statusChange) reached(s views.CardStatus) bool {
	if c.Status == apiclient.CardBlocked {
		return s.Frozen()
	}
	return s.Active()
}

// effect is what a freeze or unfreeze that took effect changes here: the
// card's last-seen status, and the audit row's words.
func (h *Handler) statusEffect(c statusChange, now string) handlers.Effect {
	reason := ""
	if c.Reason != "" {
		reason = "reason: " + c.Reason
	}
	return handlers.Effect{
		Detail: auditDetail("sent "+string(c.Status)+" (was "+c.Was+")", reason),
		Result: map[string]string{"status": now},
		Apply: func(ctx context.Context, tx *store.Store) error {
			return tx.RecordCardStatus(ctx, c.CardID, now, h.Clock())
		},
	}
}

// readBackStatus learns from GET /cards/{cardId} whether a freeze or
// unfreeze took effect.
func (h *Handler) readBackStatus(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var c statusChange
	if err := a.DecodeRequest(&c); err != nil {
		return handlers.Effect{}, false, err
	}
	live, err := h.API.GetCard(ctx, c.UserID, c.CardID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	if !c.reached(views.CardStatus(live.Status)) {
		return handlers.Effect{}, false, nil
	}
	return h.statusEffect(c, string(live.Status)), true, nil
}

// changeStatus freezes or unfreezes a card:
//  1. the live status is read first (GET /cards/{cardId}); a card already
//     in the wanted state gets nothing sent;
//  2. BLOCKED or ACTIVE is sent once through the ledger, keyed by the
//     form's token: a second click sends nothing and shows what the first
//     did;
//  3. a refusal re-reads the status and explains it; an answer that never
//     came is read back, never sent again.
func (h *Handler) changeStatus(w http.ResponseWriter, r *http.Request, kind string) {
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
	compact := r.PostFormValue("view") == "row"
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	verb, pastTense := "freeze", "frozen"
	want, after := apiclient.CardBlocked, "frozen"
	if kind == kindUnfreeze {
		verb, pastTense, want, after = "unfreeze", "unfrozen", apiclient.CardActive, "active"
	}
	ctl := views.CardControl{CardID: hit.ID, CardName: hit.CardName, CanWrite: true, Compact: compact, Poll: !compact,
		FormToken: handlers.NewFormToken()}
	a := &controlReply{h: h, w: w, r: r, hit: hit, ctl: &ctl}
	answer := a.answer
	if hit.Reserved {
		answer(http.StatusConflict, views.CardReserved, false, "This card is not issued yet: there is nothing to "+verb+".", true)
		return
	}
	if msg := checkText(reason, maxReasonLength, "The reason"); msg != "" {
		ctl.FormToken, ctl.Reason = formToken(r), reason
		answer(http.StatusUnprocessableEntity, views.CardStatus(hit.Status), false, msg, true)
		return
	}
	live, err := h.API.GetCard(ctx, hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(ctx, "card status read failed", "card", hit.ID, "err", err)
		ctl.FormToken, ctl.Reason = formToken(r), reason
		answer(http.StatusBadGateway, views.CardStatus(hit.Status), false,
			"The card's live status could not be read, so nothing was sent: "+apiclient.ReadWords(err)+" Try again in a moment.", true)
		return
	}
	before := views.CardStatus(live.Status)
	c := statusChange{CardID: hit.ID, UserID: hit.ServiceUserID, Status: want, Was: before.Key(), Reason: reason}
	if c.reached(before) {
		if err := h.Store.RecordCardStatus(ctx, hit.ID, string(before), h.Clock()); err != nil {
			h.ServerError(w, r, err)
			return
		}
		answer(http.StatusOK, before, true, "The card is already "+before.Label()+"; nothing was sent.", false)
		return
	}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kind, Target: target(hit.ID), Actor: handlers.ActorFrom(ctx), Request: c,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if err := h.API.SetCardStatus(ctx, c.UserID, c.CardID, apiclient.SetCardStatusRequest{Status: want}); err != nil {
				return handlers.Effect{}, err
			}
			return h.statusEffect(c, after), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.State() != store.ActionDone {
		ctl.Reason = reason // not done: the form shown again keeps what was typed
	}
	a.outcome(d, kind, pastTense, before, after)
}

// controlReply answers a freeze or unfreeze with the card's control.
type controlReply struct {
	h   *Handler
	w   http.ResponseWriter
	r   *http.Request
	hit store.CardHit
	ctl *views.CardControl
}

// answer shows the control with a status: live when just read.
func (a *controlReply) answer(status int, st views.CardStatus, live bool, msg string, isErr bool) {
	now := a.h.Clock()
	a.ctl.Badge = views.CardBadge{Status: st, Live: live, ReadAt: now, Now: now}
	if !live {
		a.ctl.Badge.ReadAt = a.hit.StatusReadAt
	}
	a.ctl.Action, a.ctl.Message, a.ctl.Error = actionFor(st), msg, isErr
	a.h.controlAnswer(a.w, a.r, a.hit, status, *a.ctl)
}

// outcome answers what the ledger made of a status change: a refusal
// re-reads the status and explains it.
func (a *controlReply) outcome(d handlers.Done, kind, pastTense string, before views.CardStatus, after string) {
	ctx, h, hit := a.r.Context(), a.h, a.hit
	switch {
	case d.Repeat:
		a.answer(failedStatus(d), before, true, handlers.RepeatWords(d.Action), d.State() != store.ActionDone)
	case d.State() == store.ActionDone:
		msg := "Frozen: payments are declined until the card is unfrozen."
		if kind == kindUnfreeze {
			msg = "Unfrozen: the card can be used again."
		}
		a.answer(http.StatusOK, views.CardStatus(after), true, msg, false)
	case d.State() == store.ActionRefused:
		// spec: a refused transition: "retrying cannot succeed, read the
		// status first". The status re-read says where the card stands.
		msg := "The card was not " + pastTense + ": " + d.Problem.Summary
		now, err := h.API.GetCard(ctx, hit.ServiceUserID, hit.ID)
		if err != nil {
			a.answer(failedStatus(d), before, false, msg+" The status could not be read again: reload the page.", true)
			return
		}
		if err := h.Store.RecordCardStatus(ctx, hit.ID, string(now.Status), h.Clock()); err != nil {
			h.ServerError(a.w, a.r, err)
			return
		}
		a.answer(failedStatus(d), views.CardStatus(now.Status), true, msg, true)
	default:
		a.answer(failedStatus(d), before, false, d.Problem.Summary, true)
	}
}

// controlAnswer answers a freeze or unfreeze: the control fragment for
// htmx (swapped in place; a refusal keeps its 4xx), or the whole detail
// page with the control's message and the real status code.
func (h *Handler) controlAnswer(w http.ResponseWriter, r *http.Request, hit store.CardHit, status int, ctl views.CardControl) {
	w.Header().Set("Cache-Control", "no-store")
	fragmentStatus := status
	if status >= http.StatusInternalServerError {
		// An outcome not known is words to read in place, not a fault of
		// the request: htmx swaps 2xx and the 4xx refusals only.
		fragmentStatus = http.StatusOK
	}
	if h.Fragment(w, r, fragmentStatus, views.CardControlView(ctl)) {
		return
	}
	ctl.Compact, ctl.Poll = false, true
	h.showDetail(w, r, hit, status, &ctl)
}
