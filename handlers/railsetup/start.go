package railsetup

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
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

// start checks the form and the API's readiness (spec rule 1: "then GET
// /kyc/readiness, then POST /kyc/activate, then the rail-specific start"),
// then activates and starts in one action (spec rule 4: "call POST
// /kyc/activate again before that currency's start call"), once per form.
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
	if !validIdentityLevel(f.Level) {
		f.Fields["identity_level"] = "Choose how the identity is checked."
		again(http.StatusUnprocessableEntity)
		return
	}
	wallet, ok := t.wallet(rl.Coin)
	if !ok {
		f.Error = "The treasury has no " + coinWords(rl.Coin) + " wallet for this rail. Create one on the treasury page first. Nothing was sent."
		again(http.StatusConflict)
		return
	}
	rctx := readCtx(r)
	kr, err := h.api.GetKYCReadiness(rctx, t.user.ServiceUserID)
	if err != nil {
		f.Error = "The treasury's identity check could not be read before starting, so nothing was sent. " + apiclient.ReadWords(err)
		again(http.StatusBadGateway)
		return
	}
	if !kr.CanActivate {
		f.Error = "The Partner API says the treasury's identity check cannot be activated yet; it still needs " + missingWords(kr.Missing) + ". Nothing was sent."
		again(http.StatusConflict)
		return
	}
	if rl.Currency == apiclient.USD {
		// spec: "start-usa gated on usd-readiness".
		ur, err := h.api.GetUSDReadiness(rctx, t.user.ServiceUserID)
		if err != nil {
			f.Error = "The USD readiness could not be read before starting, so nothing was sent. " + apiclient.ReadWords(err)
			again(http.StatusBadGateway)
			return
		}
		if !ur.Ready {
			f.Error = "The Partner API says USD is not ready; it still needs " + missingWords(ur.Missing) + ". Nothing was sent."
			again(http.StatusConflict)
			return
		}
	}
	req := startRequest{UserID: t.user.ServiceUserID, Currency: string(rl.Currency), IdentityLevel: f.Level,
		WalletID: wallet.ID, WalletAddress: wallet.Address, WalletIndex: ownerKeyIndex}
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
	for field, m := range done.Problem.Fields {
		if field == "identityLevelName" {
			f.Fields["identity_level"] = m
		}
	}
	again(http.StatusBadGateway)
}

// startForm is a rail's start form, empty.
func (h *Handler) startForm(rl rail) views.TreasuryRailStart {
	button := map[apiclient.Fiat]string{apiclient.EUR: "Start the EUR provider's onboarding",
		apiclient.MXN: "Start the Mexican onboarding", apiclient.USD: "Open the USD account"}
	return views.TreasuryRailStart{Action: rl.Page + "/start", Token: handlers.NewFormToken(), Level: apiclient.IdentityLevelIDAndLiveness,
		Levels: identityLevels(), Button: button[rl.Currency], Fields: views.FieldErrors{}}
}

// callStart activates, then starts the rail: one action, since an
// activation is only used by the start that follows it.
func (h *Handler) callStart(req startRequest) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		act := apiclient.ActivateKYCRequest{Currency: apiclient.Fiat(req.Currency), IdentityLevelName: req.IdentityLevel}
		if _, err := h.api.ActivateKYC(ctx, req.UserID, act); err != nil {
			return handlers.Effect{}, err
		}
		var res *apiclient.OnboardingStarted
		var err error
		switch apiclient.Fiat(req.Currency) {
		case apiclient.EUR:
			res, err = h.api.StartEURProvider(ctx, req.UserID, apiclient.StartEURProviderRequest{EURWalletAddress: req.WalletAddress, EURWalletIndex: req.WalletIndex})
		case apiclient.MXN:
			res, err = h.api.StartMexico(ctx, req.UserID, apiclient.StartMexicoRequest{MXNWalletAddress: req.WalletAddress, MXNWalletIndex: req.WalletIndex})
		case apiclient.USD:
			// spec: start-usa takes the USDB smart wallet's id.
			res, err = h.api.StartUSA(ctx, req.UserID, apiclient.StartUSARequest{SmartWalletID: req.WalletID})
		default:
			return handlers.Effect{}, fmt.Errorf("railsetup: no rail for %q", req.Currency)
		}
		if err != nil {
			return handlers.Effect{}, err
		}
		status := ""
		if res != nil {
			status = res.Status
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

// readBackStart learns whether a start took effect: the rail moved past
// not started (for USD, the USD account exists).
func (h *Handler) readBackStart(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var req startRequest
	if err := a.DecodeRequest(&req); err != nil {
		return handlers.Effect{}, false, err
	}
	if h.api == nil {
		return handlers.Effect{}, false, fmt.Errorf("railsetup: no Partner API configured")
	}
	if apiclient.Fiat(req.Currency) == apiclient.USD {
		vba, err := h.api.GetUSDVirtualAccount(ctx, req.UserID)
		if apiclient.IsNotFound(err) {
			return handlers.Effect{}, false, nil
		}
		if err != nil {
			return handlers.Effect{}, false, err
		}
		switch vba.Status {
		case apiclient.VirtualAccountProvisioning, apiclient.VirtualAccountPending, apiclient.VirtualAccountActive:
			return startEffect(req, string(vba.Status)), true, nil
		}
		return handlers.Effect{}, false, nil
	}
	st, err := h.api.GetOnboardingStatus(ctx, req.UserID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	s := strings.ToLower(st.Currencies[apiclient.Fiat(req.Currency)].Status)
	if apiclient.Fiat(req.Currency) == apiclient.EUR {
		s = strings.ToLower(st.EURProviderStatus)
	}
	switch s {
	case "", "none", "not_started", "failed":
		return handlers.Effect{}, false, nil
	}
	return startEffect(req, s), true, nil
}
