package cards

import (
	"context"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// activationAsk is a request for an activation code as the ledger keeps
// it. A card number typed with it is sent once and never kept.
type activationAsk struct {
	CardID   string `json:"cardId"`
	UserID   string `json:"userId"`
	Channel  string `json:"channel"`
	PANGiven bool   `json:"panGiven,omitempty"`
}

// challenge is what the API answered to a code request: the code's id and
// how long it is valid.
type challenge struct {
	OTPID            string `json:"otpId"`
	ExpiresInMinutes int    `json:"expiresInMinutes"`
}

// activationConfirm is a confirmation as the ledger keeps it (never the
// code).
type activationConfirm struct {
	CardID string `json:"cardId"`
	UserID string `json:"userId"`
	OTPID  string `json:"otpId"`
}

func (h *Handler) activatedEffect(c activationConfirm, status string) handlers.Effect {
	return handlers.Effect{
		Detail: "activated",
		Apply: func(ctx context.Context, tx *store.Store) error {
			return tx.RecordCardStatus(ctx, c.CardID, status, h.Clock())
		},
	}
}

// readBackActivation learns from GET /cards/{cardId} whether the card was
// activated.
func (h *Handler) readBackActivation(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var c activationConfirm
	if err := a.DecodeRequest(&c); err != nil {
		return handlers.Effect{}, false, err
	}
	live, err := h.API.GetCard(ctx, c.UserID, c.CardID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	if !live.Activated && views.CardStatus(live.Status).Pending() {
		return handlers.Effect{}, false, nil
	}
	return h.activatedEffect(c, string(live.Status)), true, nil
}

// activationField is the form field of a request field the API named.
func activationField(apiField string) string {
	switch apiField {
	case "channel", "pan", "code":
		return apiField
	}
	return ""
}

// RequestActivation asks the API to send the cardholder a one-time code by
// sms or email (physical cards; virtual cards need no activation).
func (h *Handler) RequestActivation(w http.ResponseWriter, r *http.Request) {
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
	av := views.CardActivationView{CardID: hit.ID, Channel: r.PostFormValue("channel"), Available: true, Fields: views.FieldErrors{},
		RequestToken: formToken(r), ConfirmToken: handlers.NewFormToken()}
	pan := strings.NewReplacer(" ", "", "-", "").Replace(r.PostFormValue("pan"))
	again := func(status int) {
		h.showDetail(w, r, hit, status, nil, func(v *views.CardDetailView) { v.Activate = av })
	}
	if av.Channel != "sms" && av.Channel != "email" {
		av.Channel = ""
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
	// Only a card issued and never activated takes a code: read where it
	// stands before asking for one.
	live, err := h.API.GetCard(ctx, hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(ctx, "card status before activation", "card", hit.ID, "err", err)
		av.Message, av.Error = "The card's status could not be read, so no code was asked for: "+apiclient.ReadWords(err), true
		again(http.StatusBadGateway)
		return
	}
	if st := views.CardStatus(live.Status); live.Activated || !st.Pending() {
		av.Message, av.Error = "This card is not waiting for activation (it is "+st.Label()+"), so no code was asked for.", true
		again(http.StatusConflict)
		return
	}
	ask := activationAsk{CardID: hit.ID, UserID: hit.ServiceUserID, Channel: av.Channel, PANGiven: pan != ""}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindActivationRequest, Target: target(hit.ID), Actor: handlers.ActorFrom(ctx),
		Request: ask,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			ch, err := h.API.RequestCardActivation(ctx, ask.UserID, ask.CardID, apiclient.CardActivationRequest{Channel: ask.Channel, PAN: pan})
			if err != nil {
				return handlers.Effect{}, err
			}
			return handlers.Effect{Detail: "code sent by " + ask.Channel,
				Result: challenge{OTPID: ch.OTPID, ExpiresInMinutes: ch.ExpiresInMinutes}}, nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	av.RequestToken = handlers.NewFormToken()
	again(activationAsked(&av, d, ask.Channel))
}

// activationAsked puts what became of a code request into the form's
// words and returns the status to answer with.
func activationAsked(av *views.CardActivationView, d handlers.Done, channel string) int {
	var ch challenge
	if d.State() == store.ActionDone && d.Action.DecodeResult(&ch) == nil {
		sent := d.Action.BegunAt
		if d.Action.FinishedAt != nil {
			sent = *d.Action.FinishedAt
		}
		av.OTPID, av.ExpiresInMinutes = ch.OTPID, ch.ExpiresInMinutes
		av.ExpiresAt = sent.Add(time.Duration(ch.ExpiresInMinutes) * time.Minute)
		av.Message = "A 6-digit code was sent to the cardholder by " + channel + "."
		if d.Repeat {
			av.Message = handlers.RepeatWords(d.Action) + " " + av.Message
		}
		return http.StatusOK
	}
	av.Error = true
	switch {
	case d.Repeat:
		av.Message = handlers.RepeatWords(d.Action)
	case d.State() == store.ActionRefused:
		av.Message = "No code was sent: " + d.Problem.Summary
		for k, m := range d.Problem.Fields {
			if f := activationField(k); f != "" {
				av.Fields[f] = m
			}
		}
	default:
		av.Message = d.Problem.Summary + " Ask the cardholder whether a code arrived; if none did, send a new one."
	}
	return failedStatus(d)
}

// ConfirmActivation sends the 6-digit code the cardholder read out.
func (h *Handler) ConfirmActivation(w http.ResponseWriter, r *http.Request) {
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
	av := views.CardActivationView{CardID: hit.ID, Channel: r.PostFormValue("channel"), Available: true,
		OTPID: strings.TrimSpace(r.PostFormValue("otp_id")), Fields: views.FieldErrors{},
		RequestToken: handlers.NewFormToken(), ConfirmToken: formToken(r)}
	if av.Channel != "sms" && av.Channel != "email" {
		av.Channel = ""
	}
	if t, err := time.Parse(time.RFC3339, r.PostFormValue("expires_at")); err == nil {
		av.ExpiresAt = t
	}
	code := strings.TrimSpace(r.PostFormValue("code"))
	again := func(status int) {
		h.showDetail(w, r, hit, status, nil, func(v *views.CardDetailView) { v.Activate = av })
	}
	if av.OTPID == "" || checkText(av.OTPID, 100, "The code's id") != "" {
		av.OTPID, av.Message, av.Error = "", "Request a code first.", true
		again(http.StatusUnprocessableEntity)
		return
	}
	switch {
	case len(code) != 6 || !isDigits(code):
		av.Fields["code"] = "The code is exactly 6 digits."
	case !av.ExpiresAt.IsZero() && h.Clock().After(av.ExpiresAt):
		av.Fields["code"] = "This code has expired. Request a new one."
	}
	if av.Fields.Any() {
		again(http.StatusUnprocessableEntity)
		return
	}
	c := activationConfirm{CardID: hit.ID, UserID: hit.ServiceUserID, OTPID: av.OTPID}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindActivationConfirm, Target: target(hit.ID), Actor: handlers.ActorFrom(ctx),
		Request: c,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if err := h.API.ConfirmCardActivation(ctx, c.UserID, c.CardID, apiclient.ConfirmCardActivationRequest{OTPID: c.OTPID, Code: code}); err != nil {
				return handlers.Effect{}, err
			}
			return h.activatedEffect(c, "active"), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	switch {
	case d.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(d.Action))
		h.Redirect(w, r, "/cards/"+hit.ID)
		return
	case d.State() == store.ActionDone:
		h.Flash(r, "ok", "Card "+hit.CardName+" is activated.")
		h.Redirect(w, r, "/cards/"+hit.ID)
		return
	case d.State() == store.ActionRefused:
		av.Message = "The card was not activated: " + d.Problem.Summary
		for k, m := range d.Problem.Fields {
			if f := activationField(k); f != "" {
				av.Fields[f] = m
			}
		}
	default:
		av.Message = d.Problem.Summary
	}
	av.Error, av.ConfirmToken = true, handlers.NewFormToken()
	again(failedStatus(d))
}
