package treasury

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// The ledger's kinds of the onramp routing calls.
const (
	kindRouteSet   = "treasury.deposit_route.set"
	kindRouteClear = "treasury.deposit_route.clear"
)

// routeAsk is what the routing forms ask, as the ledger keeps it.
type routeAsk struct {
	Holder   string `json:"holder"` // the account holder's serviceUserId
	Rail     string `json:"rail"`   // USD or NGN
	WalletID string `json:"smartWalletId"`
}

// railToken is the token a rail's deposits credit.
func railToken(rail string) (apiclient.Stablecoin, bool) {
	switch rail {
	case "USD":
		return apiclient.USDB, true
	case "NGN":
		return apiclient.CNGN, true
	}
	return "", false
}

// idWord reports whether s looks like an id the API issues (a UUID or a
// similar token): letters, digits and dashes, at most 64.
func idWord(s string) bool { return plainWord(s, 64) }

// routeRefusal is a route refused before anything is sent, in words.
type routeRefusal struct {
	status int
	words  string
}

// checkRoute validates the form and checks the spec's rule before sending:
// "the account must belong to the caller, who must be an active admin of
// the wallet". The caller is the account's holder; the wallet is the
// treasury's. It returns the holder's name.
func (h *Handler) checkRoute(ctx context.Context, t treasury, q routeAsk) (string, *routeRefusal, error) {
	bad := func(words string) (string, *routeRefusal, error) {
		return "", &routeRefusal{status: http.StatusUnprocessableEntity, words: words + " Nothing was sent."}, nil
	}
	refused := func(words string) (string, *routeRefusal, error) {
		return "", &routeRefusal{status: http.StatusConflict, words: words + " Nothing was sent."}, nil
	}
	token, ok := railToken(q.Rail)
	if !ok || !idWord(q.Holder) || !idWord(q.WalletID) {
		return bad("The form did not name a person, a USD or NGN account and a treasury wallet.")
	}
	wallet, ok := t.wallet(q.WalletID)
	if !ok || wallet.Legacy {
		return bad("The wallet chosen is not one of the treasury's wallets.")
	}
	if wallet.Currency != string(token) {
		return bad(q.Rail + " deposits can only be routed to a " + string(token) + " wallet, and the wallet chosen holds " + wallet.Currency + ".")
	}
	holder, err := h.store.EmployeeByServiceUserID(ctx, q.Holder)
	if errors.Is(err, store.ErrNotFound) {
		return bad("The person chosen is not known to the app.")
	}
	if err != nil {
		return "", nil, err
	}
	name := holder.Name()
	if holder.DeletedAt != nil {
		return refused(name + "'s account is deleted, so it has no bank account to route.")
	}
	if h.api == nil {
		return "", &routeRefusal{status: http.StatusServiceUnavailable, words: "The app has no Partner API connection. Nothing was sent."}, nil
	}
	unreadable := func(what string, err error) (string, *routeRefusal, error) {
		return "", &routeRefusal{status: http.StatusServiceUnavailable, words: what + " could not be read, so the rule could not be checked and nothing was sent. " + apiclient.ReadWords(err)}, nil
	}
	// spec: "who must be an active admin of the wallet".
	if q.Holder != t.user.ServiceUserID {
		pol, err := h.api.GetApprovalPolicy(ctx, t.user.ServiceUserID)
		if err != nil {
			return unreadable("The treasury's admins", err)
		}
		if !slices.Contains(pol.Admins, q.Holder) {
			return refused("The Partner API routes an account's deposits only to a wallet its holder is an active admin of, and " + name +
				" is not an admin of the treasury's wallets. Make " + name + " an admin in the treasury's approval mode (Controls) first, or choose another person.")
		}
	}
	live, err := h.api.GetWallet(ctx, t.user.ServiceUserID, q.WalletID)
	if err != nil {
		return unreadable("The treasury's "+wallet.Currency+" wallet", err)
	}
	if live.Status != "active" {
		return refused("The treasury's " + walletWords(wallet) + " is not active, and the Partner API routes deposits only to a wallet whose admins are active on it.")
	}
	// spec: "the account must belong to the caller".
	issued, err := h.issuedAccount(ctx, q.Holder, q.Rail)
	if err != nil {
		return unreadable(name+"'s "+q.Rail+" bank account", err)
	}
	if !issued {
		return refused(name + " has no issued " + q.Rail + " bank account yet, so there are no deposits to route.")
	}
	return name, nil, nil
}

// issuedAccount reports whether the holder's account of rail is issued
// and active.
func (h *Handler) issuedAccount(ctx context.Context, holder, rail string) (bool, error) {
	if rail == "USD" {
		va, err := h.api.GetUSDVirtualAccount(ctx, holder)
		if apiclient.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return activeAccount(va) != nil, nil
	}
	accounts, err := h.api.GetDepositAccounts(ctx, holder, apiclient.NGN)
	if apiclient.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(accounts, func(a apiclient.DepositAccount) bool { return a.IsActive() }), nil
}

// RouteDeposits routes an admin's issued USD or NGN account's deposits to
// a treasury wallet (POST .../smart-wallets/{smartWalletId}/onramp/vba/usd
// or /nigeria, as the account's holder), once per form, after checking the
// spec's rule. The API has no call that reads a route back, so an unknown
// outcome is left for a person to check, never sent again blindly.
func (h *Handler) RouteDeposits(w http.ResponseWriter, r *http.Request) {
	h.route(w, r, false)
}

// UnrouteDeposits sends such an account's deposits back to its holder's
// own wallet (DELETE on the same path).
func (h *Handler) UnrouteDeposits(w http.ResponseWriter, r *http.Request) {
	h.route(w, r, true)
}

func (h *Handler) route(w http.ResponseWriter, r *http.Request, remove bool) {
	ctx := r.Context()
	title := "Deposits not routed"
	if remove {
		title = "Route not removed"
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	q := routeAsk{Holder: r.PostFormValue("holder"), Rail: r.PostFormValue("rail"), WalletID: r.PostFormValue("wallet_id")}
	t, err := h.load(ctx)
	if errors.Is(err, store.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusConflict, title, "The app does not know the partner's treasury user yet. Nothing was sent.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if remove {
		known, err := h.routeInForce(ctx, t, q)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if !known {
			h.ErrorPage(w, r, http.StatusConflict, title, "The app made no such route, or it was removed already. Nothing was sent.")
			return
		}
	}
	name, refusal, err := h.checkRoute(ctx, t, q)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if refusal != nil {
		h.ErrorPage(w, r, refusal.status, title, refusal.words)
		return
	}
	wallet, _ := t.wallet(q.WalletID)
	actor := handlers.ActorFrom(ctx)
	kind, call := h.routeChange(q, remove, name, wallet, actor)
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kind, Target: "user:" + q.Holder, Actor: actor, Request: q, Call: call})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(done.Action))
	case done.State() == store.ActionDone && remove:
		h.Flash(r, "ok", "Transfers to "+name+"'s "+q.Rail+" bank account go to "+name+"'s own wallet again.")
	case done.State() == store.ActionDone:
		h.Flash(r, "ok", "Transfers to "+name+"'s "+q.Rail+" bank account now fund the treasury's "+walletWords(wallet)+".")
	case done.State() == store.ActionRefused:
		h.Flash(r, "error", title+": "+done.Problem.Summary)
	default:
		h.Flash(r, "warn", "The Partner API did not confirm the change. "+done.Problem.Summary)
	}
	h.Redirect(w, r, fundingPath+"#routes")
}

// routeInForce reports whether the app holds the route the remove form
// names.
func (h *Handler) routeInForce(ctx context.Context, t treasury, q routeAsk) (bool, error) {
	routes, err := h.store.DepositRoutes(ctx, t.walletIDs())
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(routes, func(d store.DepositRoute) bool {
		return d.ServiceUserID == q.Holder && d.Rail == q.Rail && d.WalletID == q.WalletID
	}), nil
}

// routeChange is the ledger's kind and call for routing a holder's
// deposits to a treasury wallet, or for removing that route.
func (h *Handler) routeChange(q routeAsk, remove bool, name string, wallet store.Wallet, actor store.Actor) (string, func(ctx context.Context) (handlers.Effect, error)) {
	kind, send := kindRouteSet, h.api.RouteUSDDeposits
	switch {
	case remove && q.Rail == "USD":
		kind, send = kindRouteClear, h.api.UnrouteUSDDeposits
	case remove:
		kind, send = kindRouteClear, h.api.UnrouteNGNDeposits
	case q.Rail == "NGN":
		send = h.api.RouteNGNDeposits
	}
	return kind, func(ctx context.Context) (handlers.Effect, error) {
		if _, err := send(ctx, q.Holder, q.WalletID); err != nil {
			return handlers.Effect{}, err
		}
		if remove {
			return handlers.Effect{Detail: name + "'s " + q.Rail + " bank account pays into " + name + "'s own wallet again, no longer the treasury's " + walletWords(wallet),
				Apply: func(ctx context.Context, tx *store.Store) error { return tx.ClearDepositRoute(ctx, q.Holder, q.Rail) }}, nil
		}
		return handlers.Effect{Detail: name + "'s " + q.Rail + " bank account now pays into the treasury's " + walletWords(wallet),
			Apply: func(ctx context.Context, tx *store.Store) error {
				return tx.SetDepositRoute(ctx, q.Holder, q.Rail, q.WalletID, actor)
			}}, nil
	}
}
