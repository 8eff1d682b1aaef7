package railsetup

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// maxCodeLen bounds the provider's authorization code (an OAuth-style code;
// the spec shows only "code: string").
const maxCodeLen = 256

// checkCode returns the trimmed code, or why it is refused.
func checkCode(raw string) (string, string) {
	code := strings.TrimSpace(raw)
	switch {
	case code == "":
		return "", "Type the authorization code the EUR provider gave."
	case len(code) > maxCodeLen:
		return "", "The code is longer than " + strconv.Itoa(maxCodeLen) + " characters: check it was copied alone."
	}
	for _, c := range code {
		if c < 0x21 || c > 0x7e {
			return "", "The code has a space or a character a provider's code does not have: copy it again, alone."
		}
	}
	return code, ""
}

// eurAuthorizeRequest is what the ledger keeps: never the code itself.
type eurAuthorizeRequest struct {
	UserID   string `json:"userId"`
	WalletID string `json:"walletId"`
}

// EURAuthorize hands the provider's authorization code to the owner's
// device as a QR code, once per form. Nothing goes to the API here: the
// device's signature is checked and relayed to POST /eu/kyc by the sign
// area.
func (h *Handler) EURAuthorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	t, ok := h.load(w, r)
	if !ok {
		return
	}
	f := views.EURAuthorizeForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}}
	again := func(status int) { h.renderEUR(w, r, t, status, pageOverride{authorize: &f}) }
	code, msg := checkCode(r.PostFormValue("code"))
	if msg != "" {
		// A refused code is not drawn back: it is the provider's.
		f.Fields["code"] = msg
		again(http.StatusUnprocessableEntity)
		return
	}
	wallet, ok := t.wallet(apiclient.EURe)
	if !ok {
		f.Error = "The treasury has no EUR (EURe) wallet. Nothing was sent."
		again(http.StatusConflict)
		return
	}
	st, err := h.api.GetOnboardingStatus(readCtx(r), t.user.ServiceUserID)
	if err != nil {
		f.Error = "Where the EUR provider stands could not be read, so nothing was sent. " + apiclient.ReadWords(err)
		again(http.StatusBadGateway)
		return
	}
	if st.EURProviderStatus != "pending" {
		h.Flash(r, "info", "The EUR provider does not wait for an authorization now, so none was asked for.")
		h.Redirect(w, r, railEUR.Page)
		return
	}
	actor := handlers.ActorFrom(ctx)
	q := eurAuthorizeRequest{UserID: t.user.ServiceUserID, WalletID: wallet.ID}
	var panel views.SignPanel
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindEURAuthorize, Target: "user:" + q.UserID, Actor: actor, Request: q,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			p, err := h.sign.IssueEURAuthorization(ctx, actor, q.UserID, q.WalletID, code)
			if err != nil {
				return handlers.Effect{}, err
			}
			panel = p
			id := strconv.FormatInt(p.ID, 10)
			return handlers.Effect{Target: "sign_request:" + id, Result: map[string]string{"signRequestId": id},
				Detail: "EUR provider authorization handed to the owner's device for wallet " + q.WalletID}, nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, railEUR.Page, "The QR code was shown in answer to the first send; if it is lost, send the code again for a new one.")
		return
	case done.State() == store.ActionDone:
		h.renderEUR(w, r, t, http.StatusCreated, pageOverride{sign: &panel})
		return
	}
	f.Error = done.Problem.Summary
	again(http.StatusBadGateway)
}
