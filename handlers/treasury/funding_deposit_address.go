package treasury

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// kindDepositAddress is the ledger's kind of POST /deposit/wallet for the
// treasury user.
const kindDepositAddress = "treasury.deposit_address.create"

// depositAddressAsk is what the form asks, as the ledger keeps it.
type depositAddressAsk struct {
	UserID   string `json:"userId"`
	Chain    string `json:"chain"`
	Currency string `json:"currency"`
}

// routeWord reports whether s is a chain or token name as the supported
// assets spell them: letters, digits and dashes, at most 32.
func routeWord(s string) bool { return plainWord(s, 32) }

// plainWord reports whether s is 1 to max letters, digits and dashes.
func plainWord(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// CreateDepositAddress asks the Partner API for the treasury's deposit
// address of one supported asset (POST .../deposit/wallet) and keeps it:
// the API has no call that lists it again. The pair is checked against the
// live supported-assets list before anything is begun. There is no read to
// learn an unknown outcome from, so an unknown one is left for a person to
// check (never asked again blindly).
func (h *Handler) CreateDepositAddress(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	const title = "No deposit address asked for"
	chain, currency := strings.ToLower(strings.TrimSpace(r.PostFormValue("chain"))), strings.ToUpper(strings.TrimSpace(r.PostFormValue("currency")))
	if !routeWord(chain) || !routeWord(currency) {
		h.ErrorPage(w, r, http.StatusUnprocessableEntity, title, "The form did not name a chain and a token as the Partner API lists them. Nothing was sent: go back, reload the page and choose one of the listed tokens.")
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
	assets, err := h.api.ListDepositAssets(ctx)
	if err != nil {
		h.ErrorPage(w, r, http.StatusServiceUnavailable, title, "Which tokens the Partner API accepts could not be read, so nothing was sent. "+apiclient.ReadWords(err))
		return
	}
	q := depositAddressAsk{UserID: t.user.ServiceUserID, Chain: chain, Currency: currency}
	if !slices.ContainsFunc(assets, func(a apiclient.CryptoRoute) bool {
		return sameRoute(a, apiclient.CryptoRoute{Chain: chain, Currency: currency})
	}) {
		h.ErrorPage(w, r, http.StatusUnprocessableEntity, title, "The Partner API does not accept "+currency+" on "+chain+" as a deposit. Nothing was sent.")
		return
	}
	actor := handlers.ActorFrom(ctx)
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindDepositAddress, Target: "user:" + q.UserID, Actor: actor, Request: q,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			dw, err := h.api.CreateDepositWallet(ctx, q.UserID, apiclient.DepositWalletRequest{Chain: q.Chain, Currency: q.Currency})
			if err != nil {
				return handlers.Effect{}, err
			}
			if dw.Address == "" {
				return handlers.Effect{}, errors.New("treasury: the Partner API answered a deposit address without an address")
			}
			saved := store.DepositAddress{ServiceUserID: q.UserID, Chain: q.Chain, Currency: q.Currency, Address: dw.Address}
			return handlers.Effect{Result: dw, Detail: "Deposit address for " + q.Currency + " on " + q.Chain + " issued for the treasury: " + dw.Address,
				Apply: func(ctx context.Context, tx *store.Store) error { return tx.SaveDepositAddress(ctx, saved, actor) }}, nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(done.Action))
	case done.State() == store.ActionDone:
		h.Flash(r, "ok", "The treasury's "+q.Currency+" deposit address on "+q.Chain+" is ready: send only "+q.Currency+" on "+q.Chain+" to it.")
	case done.State() == store.ActionRefused:
		h.Flash(r, "error", "No deposit address was issued: "+done.Problem.Summary)
	default:
		h.Flash(r, "warn", "The Partner API did not confirm the deposit address. "+done.Problem.Summary)
	}
	h.Redirect(w, r, fundingPath+"#deposit-addresses")
}
