package treasury

import (
	"context"
	"errors"
	"net/http"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// kindUSDStart is the ledger's kind of start-usa for the treasury user.
const kindUSDStart = "treasury.usd_onboarding.start"

const fundingPath = "/treasury/funding"

// usdStart is what the start-usa form asks, as the ledger keeps it.
type usdStart struct {
	UserID   string `json:"userId"`
	WalletID string `json:"smartWalletId"`
}

// StartUSD starts USD onboarding for the treasury user (POST
// .../onboarding/start-usa with its USDB wallet), once per form: a second
// click, another tab or a resubmit finds the first and sends nothing. The
// outcome comes back as a flash on the funding page.
func (h *Handler) StartUSD(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	t, err := h.load(ctx)
	if errors.Is(err, store.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusConflict, "USD onboarding not started", "The app does not know the partner's treasury user yet. Nothing was sent.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	usdb, ok := t.walletIn(apiclient.USDB)
	if !ok {
		h.ErrorPage(w, r, http.StatusConflict, "USD onboarding not started",
			"The treasury has no USDB wallet for the USD account to pay into: add one on the treasury page first. Nothing was sent.")
		return
	}
	if h.api == nil {
		h.ErrorPage(w, r, http.StatusServiceUnavailable, "USD onboarding not started", "The app has no Partner API connection. Nothing was sent.")
		return
	}
	q := usdStart{UserID: t.user.ServiceUserID, WalletID: usdb.ID}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindUSDStart, Target: "user:" + q.UserID, Actor: handlers.ActorFrom(ctx),
		Request: q, Call: func(ctx context.Context) (handlers.Effect, error) {
			res, err := h.api.StartUSA(ctx, q.UserID, apiclient.StartUSARequest{SmartWalletID: q.WalletID})
			if err != nil {
				return handlers.Effect{}, err
			}
			detail := "USD onboarding started for the treasury with its USDB wallet " + q.WalletID
			if res != nil && res.WorkflowID != "" {
				detail += " (workflow " + res.WorkflowID + ")"
			}
			return handlers.Effect{Detail: detail}, nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(done.Action))
	case done.State() == store.ActionDone:
		h.Flash(r, "ok", "USD onboarding started for the treasury. The bank opens the account in steps; this page shows its state and, once active, the account details.")
	case done.State() == store.ActionRefused:
		h.Flash(r, "error", "USD onboarding was not started: "+done.Problem.Summary)
	default:
		h.Flash(r, "warn", "The Partner API did not confirm that USD onboarding started; the app keeps checking. "+done.Problem.Summary)
	}
	h.Redirect(w, r, fundingPath)
}

// readBackUSDStart learns whether start-usa took effect from the USD
// account's state: anything past none and failed means it did.
func (h *Handler) readBackUSDStart(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q usdStart
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	if h.api == nil {
		return handlers.Effect{}, false, errors.New("treasury: no Partner API configured")
	}
	vba, err := h.api.GetUSDVirtualAccount(ctx, q.UserID)
	if apiclient.IsNotFound(err) {
		return handlers.Effect{}, false, nil
	}
	if err != nil {
		return handlers.Effect{}, false, err
	}
	switch vba.Status {
	case apiclient.VirtualAccountProvisioning, apiclient.VirtualAccountPending, apiclient.VirtualAccountActive:
		return handlers.Effect{Detail: "USD onboarding started for the treasury; the USD account is " + string(vba.Status)}, true, nil
	}
	return handlers.Effect{}, false, nil
}
