package railsetup

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/onboard"
	"partneradmin/store"
	"partneradmin/views"
)

// rail is one currency's onboarding as the spec's "Rail onboarding starts"
// table has it.
type rail struct {
	Currency apiclient.Fiat
	Coin     apiclient.Stablecoin
	Path     string // the start endpoint's last segment, for the audit row
	Page     string
	Name     string
}

var (
	railEUR = rail{Currency: apiclient.EUR, Coin: apiclient.EURe, Path: "start-eur-provider", Page: "/treasury/rails/eur", Name: "the EUR provider's onboarding"}
	railMXN = rail{Currency: apiclient.MXN, Coin: apiclient.MEXe, Path: "start-mexico", Page: "/treasury/rails/mxn", Name: "the Mexican onboarding"}
	railUSD = rail{Currency: apiclient.USD, Coin: apiclient.USDB, Path: "start-usa", Page: "/treasury/rails/usd", Name: "the USD onboarding"}
)

// startRequest is what the ledger keeps of a start.
type startRequest struct {
	UserID        string `json:"userId"`
	Currency      string `json:"currency"`
	IdentityLevel string `json:"identityLevelName"`
	WalletID      string `json:"smartWalletId"`
	WalletAddress string `json:"walletAddress"`
	WalletIndex   int    `json:"walletIndex"`
}

// StartEUR activates the treasury's KYC for EUR and starts the EUR
// provider's onboarding with its EURe wallet.
func (h *Handler) StartEUR(w http.ResponseWriter, r *http.Request) { h.start(w, r, railEUR) }

// StartMXN activates the treasury's KYC for MXN and starts the Mexican
// onboarding with its MEXe wallet.
func (h *Handler) StartMXN(w http.ResponseWriter, r *http.Request) { h.start(w, r, railMXN) }

// StartUSD activates the treasury's KYC for USD and starts the USD account
// with its USDB wallet.
func (h *Handler) StartUSD(w http.ResponseWriter, r *http.Request) { h.start(w, r, railUSD) }

// start checks the form and the API's readiness, then activates and
// starts in one action, once per form.
func (h *Handler) start(w http.ResponseWriter, r *http.Request, rl rail) {
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
	f := h.startForm(rl)
	f.Level = r.PostFormValue("identity_level")
	again := func(status int) {
		f.Token = handlers.NewFormToken()
		h.renderRail(w, r, t, rl, status, pageOverride{start: &f})
	}
	req, status := h.prepareStart(readCtx(r), t, rl, &f)
	if status != 0 {
		again(status)
		return
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindStart, Target: "user:" + req.UserID, Actor: handlers.ActorFrom(ctx),
		Request: req, Call: h.callStart(req)})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, rl.Page)
		return
	case done.State() == store.ActionDone:
		h.Flash(r, "ok", "The treasury's identity check was activated for "+string(rl.Currency)+" and "+rl.Name+" started.")
		h.Redirect(w, r, rl.Page)
		return
	case done.State() != store.ActionRefused:
		h.Flash(r, "warn", "The Partner API did not confirm that "+rl.Name+" started; the app keeps checking and this page shows the outcome. "+done.Problem.Summary)
		h.Redirect(w, r, rl.Page)
		return
	}
	f.Error = done.Problem.Summary
	if m := done.Problem.Fields["identityLevelName"]; m != "" {
		f.Fields["identity_level"] = m
	}
	again(http.StatusBadGateway)
}

// prepareStart checks the posted level, the rail's wallet and the API's
// readiness, and builds the request; a refusal is put on f with its status.
func (h *Handler) prepareStart(ctx context.Context, t treasury, rl rail, f *views.TreasuryRailStart) (startRequest, int) {
	if !onboard.ValidIdentityLevel(f.Level) {
		f.Fields["identity_level"] = "Choose how the identity is checked."
		return startRequest{}, http.StatusUnprocessableEntity
	}
	wallet, ok := t.wallet(rl.Coin)
	if !ok {
		f.Error = "The treasury has no " + coinWords(rl.Coin) + " wallet for this rail. Create one on the treasury page first. Nothing was sent."
		return startRequest{}, http.StatusConflict
	}
	var no onboard.NotReady
	if err := onboard.CheckReady(ctx, h.api, t.user.ServiceUserID, rl.Currency, fieldWords); errors.As(err, &no) {
		f.Error = no.Words
		if no.Unread {
			return startRequest{}, http.StatusBadGateway
		}
		return startRequest{}, http.StatusConflict
	}
	return startRequest{UserID: t.user.ServiceUserID, Currency: string(rl.Currency), IdentityLevel: f.Level,
		WalletID: wallet.ID, WalletAddress: wallet.Address, WalletIndex: onboard.OwnerKeyIndex}, 0
}

// startForm is a rail's start form, empty.
func (h *Handler) startForm(rl rail) views.TreasuryRailStart {
	button := map[apiclient.Fiat]string{apiclient.EUR: "Start the EUR provider's onboarding",
		apiclient.MXN: "Start the Mexican onboarding", apiclient.USD: "Open the USD account"}
	return views.TreasuryRailStart{Action: rl.Page + "/start", Token: handlers.NewFormToken(), Level: apiclient.IdentityLevelIDAndLiveness,
		Levels: identityLevels(), Button: button[rl.Currency], Fields: views.FieldErrors{}}
}

// callStart activates, then starts the rail.
func (h *Handler) callStart(req startRequest) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		status, err := onboard.ActivateAndStart(ctx, h.api, onboard.Start{UserID: req.UserID, Currency: apiclient.Fiat(req.Currency),
			IdentityLevel: req.IdentityLevel, WalletID: req.WalletID, WalletAddress: req.WalletAddress, WalletIndex: req.WalletIndex})
		if err != nil {
			return handlers.Effect{}, err
		}
		return startEffect(req, status), nil
	}
}

func startEffect(req startRequest, status string) handlers.Effect {
	rl := railOf(req.Currency)
	detail := fmt.Sprintf("treasury %s onboarding: KYC activated (%s), then %s with the %s wallet %s", req.Currency, req.IdentityLevel,
		rl.Path, rl.Coin, req.WalletID)
	if status != "" {
		detail += "; the API says " + status
	}
	return handlers.Effect{Target: "user:" + req.UserID, Result: map[string]string{"status": status}, Detail: detail}
}

func railOf(currency string) rail {
	switch apiclient.Fiat(currency) {
	case apiclient.EUR:
		return railEUR
	case apiclient.MXN:
		return railMXN
	}
	return railUSD
}

// readBackStart learns whether a start took effect.
func (h *Handler) readBackStart(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var req startRequest
	if err := a.DecodeRequest(&req); err != nil {
		return handlers.Effect{}, false, err
	}
	if h.api == nil {
		return handlers.Effect{}, false, fmt.Errorf("railsetup: no Partner API configured")
	}
	status, started, err := onboard.Started(ctx, h.api, req.UserID, apiclient.Fiat(req.Currency))
	if err != nil || !started {
		return handlers.Effect{}, false, err
	}
	return startEffect(req, status), true, nil
}
