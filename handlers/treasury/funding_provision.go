package treasury

import (
	"context"
	"errors"
	"net/http"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// kindProvision is the ledger's kind of POST /vba/eu and /vba/ngn for the
// treasury user.
const kindProvision = "treasury.virtual_account.provision"

// provisionAsk is what the form asks, as the ledger keeps it.
type provisionAsk struct {
	UserID   string         `json:"userId"`
	Currency apiclient.Fiat `json:"currency"`
}

// ProvisionEUR opens the treasury's EUR account (POST .../vba/eu).
func (h *Handler) ProvisionEUR(w http.ResponseWriter, r *http.Request) {
	h.provision(w, r, apiclient.EUR)
}

// ProvisionNGN opens the treasury's NGN account (POST .../vba/ngn).
func (h *Handler) ProvisionNGN(w http.ResponseWriter, r *http.Request) {
	h.provision(w, r, apiclient.NGN)
}

// provision opens a virtual account once per form, after reading the
// onboarding state: when onboarding does not allow it yet, the page says
// what is missing and nothing is sent.
func (h *Handler) provision(w http.ResponseWriter, r *http.Request, fiat apiclient.Fiat) {
	ctx := r.Context()
	title := "The " + string(fiat) + " account was not opened"
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	t, err := h.load(ctx)
	if errors.Is(err, store.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusConflict, title, "The app does not know the partner's treasury user yet. Nothing was sent.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if h.api == nil {
		h.ErrorPage(w, r, http.StatusServiceUnavailable, title, "The app has no Partner API connection. Nothing was sent.")
		return
	}
	o, err := h.api.GetOnboardingStatus(ctx, t.user.ServiceUserID)
	if err != nil {
		h.ErrorPage(w, r, http.StatusServiceUnavailable, title, "The treasury's onboarding state could not be read, so nothing was sent. "+apiclient.ReadWords(err))
		return
	}
	rd := fundingReads{onboarding: o}
	p := ngnProvision(rd, bankRailOf(fiat))
	if fiat == apiclient.EUR {
		p = eurProvision(t, rd, bankRailOf(fiat))
	}
	if !p.Allowed {
		h.ErrorPage(w, r, http.StatusConflict, title, p.Missing+" Nothing was sent.")
		return
	}
	q := provisionAsk{UserID: t.user.ServiceUserID, Currency: fiat}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindProvision, Target: "user:" + q.UserID, Actor: handlers.ActorFrom(ctx), Request: q,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			call := h.api.ProvisionNGNVirtualAccount
			if q.Currency == apiclient.EUR {
				call = h.api.ProvisionEURVirtualAccount
			}
			va, err := call(ctx, q.UserID)
			if err != nil {
				return handlers.Effect{}, err
			}
			detail := string(q.Currency) + " account opened for the treasury"
			if va != nil && va.Status != "" {
				detail += "; the account is " + string(va.Status)
			}
			return handlers.Effect{Detail: detail}, nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(done.Action))
	case done.State() == store.ActionDone:
		h.Flash(r, "ok", "The treasury's "+string(fiat)+" account is open: its details are on this page.")
	case done.State() == store.ActionRefused:
		h.Flash(r, "error", "The "+string(fiat)+" account was not opened: "+done.Problem.Summary)
	default:
		h.Flash(r, "warn", "The Partner API did not confirm the "+string(fiat)+" account; the app keeps checking. "+done.Problem.Summary)
	}
	h.Redirect(w, r, fundingPath)
}

// bankRailOf is an empty rail of the currency: the provisioning offer
// asked at submit time concerns an account not known to exist.
func bankRailOf(fiat apiclient.Fiat) views.FundingBankRail {
	return views.FundingBankRail{Currency: string(fiat)}
}

// readBackProvision learns whether a provisioning took effect: the
// account is among the user's deposit accounts of that currency.
func (h *Handler) readBackProvision(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q provisionAsk
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	if h.api == nil {
		return handlers.Effect{}, false, errors.New("treasury: no Partner API configured")
	}
	accounts, err := h.api.GetDepositAccounts(ctx, q.UserID, q.Currency)
	if apiclient.IsNotFound(err) {
		return handlers.Effect{}, false, nil
	}
	if err != nil {
		return handlers.Effect{}, false, err
	}
	if len(accounts) == 0 {
		return handlers.Effect{}, false, nil
	}
	return handlers.Effect{Detail: string(q.Currency) + " account opened for the treasury"}, true, nil
}
