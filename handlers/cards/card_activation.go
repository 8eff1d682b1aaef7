package cards

import (
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// RequestActivation asks the API to send the cardholder a one-time code by
// sms or email (physical cards; virtual cards need no activation).
func (h *Handler) RequestActivation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	av := views.CardActivationView{CardID: hit.ID, Channel: r.PostFormValue("channel"), Available: true, Fields: views.FieldErrors{}}
	pan := strings.NewReplacer(" ", "", "-", "").Replace(r.PostFormValue("pan"))
	again := func(status int) {
		h.showDetail(w, r, hit, status, nil, func(v *views.CardDetailView) { v.Activate = av })
	}
	if av.Channel != "sms" && av.Channel != "email" {
		av.Fields["channel"] = "Choose sms or email."
	}
	if pan != "" && (len(pan) < 13 || len(pan) > 19 || !isDigits(pan)) {
		// The number typed is not echoed back.
		av.Fields["pan"] = "A card number is 13 to 19 digits. Type it again, or leave it empty."
	}
	if hit.Type != "physical" {
		av.Message, av.Error = "Virtual cards need no activation.", true
		again(http.StatusConflict)
		return
	}
	if av.Fields.Any() {
		again(http.StatusUnprocessableEntity)
		return
	}
	entry := store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: "card.activation_request", Target: target(hit.ID)}
	wctx, cancel := h.writeContext(r)
	defer cancel()
	ch, err := h.API.RequestCardActivation(wctx, hit.ServiceUserID, hit.ID, apiclient.CardActivationRequest{Channel: av.Channel, PAN: pan})
	if err != nil {
		h.Logger.WarnContext(ctx, "card activation request", "card", hit.ID, "err", err)
		entry.Outcome, entry.Detail = store.OutcomeFailed, "channel "+av.Channel
		av.Message, av.Error = upstreamWords(err)+" No code was sent; nothing was retried.", true
		status := http.StatusBadGateway
		switch {
		case statusNotAllowed(err):
			entry.Outcome = store.OutcomeRefused
			av.Message, status = "The issuer does not allow activation in the card's current status (it may already be active).", http.StatusConflict
		case apiclient.IsValidation(err) || apiclient.StatusCode(err) == http.StatusBadRequest:
			entry.Outcome = store.OutcomeRefused
			av.Message, status = "The API refused the request: check the channel and the card number.", http.StatusUnprocessableEntity
		}
		if aerr := h.Store.Audit(wctx, entry); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		again(status)
		return
	}
	entry.Outcome, entry.Detail = store.OutcomeOK, "code sent by "+av.Channel
	if aerr := h.Store.Audit(wctx, entry); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	av.OTPID, av.ExpiresInMinutes = ch.OTPID, ch.ExpiresInMinutes
	av.ExpiresAt = h.Now().Add(time.Duration(ch.ExpiresInMinutes) * time.Minute)
	av.Message = "A 6-digit code was sent to the cardholder by " + av.Channel + "."
	again(http.StatusOK)
}

// ConfirmActivation sends the 6-digit code the cardholder read out.
func (h *Handler) ConfirmActivation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	av := views.CardActivationView{CardID: hit.ID, Channel: r.PostFormValue("channel"), Available: true,
		OTPID: r.PostFormValue("otp_id"), Fields: views.FieldErrors{}}
	if t, err := time.Parse(time.RFC3339, r.PostFormValue("expires_at")); err == nil {
		av.ExpiresAt = t
	}
	code := strings.TrimSpace(r.PostFormValue("code"))
	again := func(status int) {
		h.showDetail(w, r, hit, status, nil, func(v *views.CardDetailView) { v.Activate = av })
	}
	if av.OTPID == "" {
		av.Message, av.Error = "Request a code first.", true
		again(http.StatusUnprocessableEntity)
		return
	}
	if len(code) != 6 || !isDigits(code) {
		av.Fields["code"] = "The code is exactly 6 digits."
		again(http.StatusUnprocessableEntity)
		return
	}
	if !av.ExpiresAt.IsZero() && h.Now().After(av.ExpiresAt) {
		av.Fields["code"] = "This code has expired. Request a new one."
		again(http.StatusUnprocessableEntity)
		return
	}
	entry := store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: "card.activation_confirm", Target: target(hit.ID)}
	wctx, cancel := h.writeContext(r)
	defer cancel()
	err := h.API.ConfirmCardActivation(wctx, hit.ServiceUserID, hit.ID, apiclient.ConfirmCardActivationRequest{OTPID: av.OTPID, Code: code})
	if err != nil {
		h.Logger.WarnContext(ctx, "card activation confirm", "card", hit.ID, "err", err)
		entry.Outcome = store.OutcomeFailed
		status := http.StatusBadGateway
		msg := upstreamWords(err) + " The card may not be activated; nothing was retried."
		if apiclient.StatusCode(err) == http.StatusBadRequest || apiclient.IsValidation(err) {
			entry.Outcome, status = store.OutcomeRefused, http.StatusUnprocessableEntity
			var e *apiclient.Error
			lower := ""
			if asErr(err, &e) {
				lower = strings.ToLower(e.Message())
			}
			switch {
			case strings.Contains(lower, "expired"):
				av.OTPID, av.Message, av.Error = "", "The code has expired. Request a new one.", true
			case strings.Contains(lower, "unknown otp") || strings.Contains(lower, "request a new"):
				av.OTPID, av.Message, av.Error = "", "This code request is no longer valid. Request a new code.", true
			default:
				av.Fields["code"] = "The code was not accepted. Check it with the cardholder and try again."
			}
		} else {
			av.Message, av.Error = msg, true
		}
		entry.Detail = "code not accepted"
		if entry.Outcome == store.OutcomeFailed {
			entry.Detail = "confirmation failed"
		}
		if aerr := h.Store.Audit(wctx, entry); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		again(status)
		return
	}
	entry.Outcome, entry.Detail = store.OutcomeOK, "activated"
	if aerr := h.Store.CardAuditChange(wctx, entry, hit.ID, "active", h.Now()); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	h.Flash(r, "ok", "Card "+hit.CardName+" is activated.")
	h.Redirect(w, r, "/cards/"+hit.ID)
}
