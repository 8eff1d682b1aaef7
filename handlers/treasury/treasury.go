// Package treasury moves value from the partner's treasury wallets: it
// proposes a transfer to an employee, a swap and an account/send, starts a
// crypto withdrawal, and asks the owner's device to prove a new wallet's key.
// Every one of these is one upstream write through the action ledger
// (handlers.Actions): the form's one-time token is the action's key, so a
// form posted twice sends once. Input is checked before anything is begun;
// a created proposal is mirrored with its creator, who then may not approve
// it.
package treasury

import (
	"context"
	"net/http"
	"slices"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Handler serves the treasury routes.
type Handler struct {
	*handlers.Base
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	sign    SignRequests
	clock   func() time.Time
	// withdrawalLinks issues the crypto withdrawals' signing links.
	withdrawalLinks *handlers.SignLinks[store.CryptoWithdrawal]
}

// New returns the treasury handler and registers how its writes are read
// back when their outcome is unknown.
func New(d handlers.Deps, sign SignRequests) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions, sign: sign, clock: d.Clock}
	h.withdrawalLinks = h.withdrawalSignLinks()
	d.Actions.ReadBackFor(kindProposalCreate, h.readBackProposal)
	d.Actions.ReadBackFor(kindProvision, h.readBackProvision)
	return h
}

// treasury is the partner's treasury user and its wallets.
type treasury struct {
	user    store.Employee
	wallets []store.Wallet
	// outflows are each wallet's open outflows (store.Outflow).
	outflows map[string]store.Outflow
}

func (t treasury) wallet(id string) (store.Wallet, bool) {
	i := slices.IndexFunc(t.wallets, func(w store.Wallet) bool { return w.ID == id })
	if i < 0 {
		return store.Wallet{}, false
	}
	return t.wallets[i], true
}

func (t treasury) has(coin apiclient.Stablecoin) bool {
	return slices.ContainsFunc(t.wallets, func(w store.Wallet) bool { return w.Currency == string(coin) })
}

func (h *Handler) load(ctx context.Context) (treasury, error) {
	u, ws, out, err := h.store.TreasuryWithOutflows(ctx)
	return treasury{user: u, wallets: ws, outflows: out}, err
}

func money(w store.Wallet) views.Amount {
	fiat, ok := apiclient.Stablecoin(w.Currency).Fiat()
	a := views.Amount{Value: w.Balance.Decimal, Currency: w.Currency}
	if ok {
		a.Currency, a.Token = string(fiat), w.Currency
	}
	return a
}

// treasuryWallets are the wallets value moves from, labelled with their
// currency and last known balance.
func treasuryWallets(t treasury) []views.TreasuryWallet {
	var out []views.TreasuryWallet
	for _, w := range t.wallets {
		out = append(out, views.TreasuryWallet{ID: w.ID, Label: walletLabel(w), Balance: money(w)})
	}
	return out
}

// walletLabel is "USD (USDB) · balance 250,000.00 USD (USDB)".
func walletLabel(w store.Wallet) string {
	m := money(w)
	label := m.Currency
	if m.Token != "" {
		label += " (" + m.Token + ")"
	}
	if w.Balance.Valid {
		label += " · balance " + m.String()
	}
	return label
}

// view is the page: every form with a fresh one-time token, then as fill
// leaves them (what was typed, the messages, the token kept), with their
// recipient fields.
func (h *Handler) view(ctx context.Context, t treasury, fill func(*views.TreasuryView)) (views.TreasuryView, error) {
	v := views.TreasuryView{
		Transfer:  views.ProposalForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		Swap:      views.ProposalForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		Send:      views.ProposalForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		NewWallet: views.NewWalletForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
	}
	v.Wallets = treasuryWallets(t)
	v.Balances = h.balances(t, "")
	for _, c := range apiclient.Stablecoins() {
		if !c.IsLegacy() {
			v.Coins = append(v.Coins, string(c))
		}
	}
	if fill != nil {
		fill(&v)
	}
	return v, h.pickers(ctx, &v)
}

// render shows the page with the forms as fill leaves them.
// The treasury is loaded afresh: its balances may have been read since the
// handler loaded it (a form's amount is checked against a fresh read).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, fill func(*views.TreasuryView)) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v, err := h.view(r.Context(), t, fill)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, status, "Treasury", views.TreasuryPage(v), nil)
}

// Form shows the treasury: its balances and its forms.
func (h *Handler) Form(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, nil)
}

// postedToken is the posted form's one-time token when it is one the app
// makes, else a new one: a form shown again after a validation error keeps
// its token (nothing was begun with it).
func postedToken(r *http.Request) string {
	if t := r.PostFormValue(handlers.FormTokenField); handlers.ValidFormToken(t) {
		return t
	}
	return handlers.NewFormToken()
}

// checkText is handlers.CheckText for a field, into fields.
func checkText(fields views.FieldErrors, field, s string, max int, multiline bool) {
	if msg := handlers.CheckText(s, max, multiline); msg != "" {
		fields[field] = msg
	}
}
