// Package moneyout takes value out of the partner's treasury over every
// rail of the spec: a Nigerian bank withdrawal, a bank payout, a EUR SEPA
// payout, the Mexican offramp, LATAM cash and the crypto offramp. Each rail
// is a wizard whose steps are checked against the spec's limits before any
// call; every state-changing call goes through the action ledger
// (handlers.Actions) under the form's one-time token, and a signatureRequest
// goes to the owner's device as a QR code (the sign area's IssueWorkflow).
//
// Each rail lives in its own file and adds itself to the index with
// h.rail when the handler is built.
package moneyout

import (
	"context"
	"errors"
	"net/http"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// errNoTreasury: the mirror has no treasury user with an upstream id.
var errNoTreasury = errors.New("moneyout: the partner has no treasury user in the mirror")

// SignRequests hands a rail's signatureRequest to the owner's device.
type SignRequests = handlers.WorkflowSigner

// Handler serves the money-out routes.
type Handler struct {
	*handlers.Base
	store   *store.Store
	api     *apiclient.Client
	actions *handlers.Actions
	sign    SignRequests
	clock   func() time.Time
	rails   []views.Rail
	// The signing links of the rails whose records wait for the owner's
	// signature.
	payoutLinks *handlers.SignLinks[store.BankPayout]
	sepaLinks   *handlers.SignLinks[store.SepaMXNOrder]
	mexicoLinks *handlers.SignLinks[store.SepaMXNOrder]
}

// New returns the handler with every rail registered (its index entry and
// how its writes are read back).
func New(d handlers.Deps, sign SignRequests) *Handler {
	h := &Handler{Base: d.Base, store: d.Store, api: d.API, actions: d.Actions, sign: sign, clock: d.Clock}
	h.rail(views.Rail{Name: "Crypto withdrawal", Href: "/treasury/withdrawal",
		Description: "A treasury wallet's whole balance to an address outside the app, on a chain and token the API supports; signed on the owner's device."})
	h.rail(views.Rail{Name: "Crypto offramp", Href: "/treasury/withdrawal?rail=offramp",
		Description: "The API's alternative crypto rail, with its own routes: reviewed like the withdrawal, signed on the owner's device."})
	h.rail(views.Rail{Name: "Swap", Href: "/treasury#swap",
		Description: "One stablecoin for another at a firm quote, as a proposal that approvers approve and the owner signs."})
	// Rails add themselves here, one line each.
	h.registerNigeria(d)
	h.registerBankPayout(d)
	h.registerCash(d)
	h.registerSEPA(d)
	h.registerMexico(d)
	return h
}

// rail adds a rail to the index.
func (h *Handler) rail(r views.Rail) { h.rails = append(h.rails, r) }

// Index lists the rails value can leave by, under the treasury's balances
// as last read.
func (h *Handler) Index(w http.ResponseWriter, r *http.Request) {
	v := views.MoneyOutView{Rails: h.rails}
	// The page changes nothing: the treasury as kept for the request's
	// start will do.
	_, wallets, err := h.store.Treasury(r.Context())
	switch {
	case errors.Is(err, store.ErrNoTreasury):
	case err != nil:
		h.ServerError(w, r, err)
		return
	}
	for _, w := range wallets {
		a := views.Amount{Currency: w.Currency}
		if fiat, ok := apiclient.Stablecoin(w.Currency).Fiat(); ok {
			a.Currency, a.Token = string(fiat), w.Currency
		}
		if w.Balance.Valid {
			a.Value = w.Balance.Decimal
		}
		v.Balances = append(v.Balances, views.MoneyOutBalance{Amount: a, Read: w.Balance.Valid})
	}
	h.Render(w, r, http.StatusOK, "Money out", views.MoneyOutPage(v), nil)
}

// treasuryUser is the partner's treasury user: the account value leaves,
// with its wallets (store.Treasury: one round trip).
func (h *Handler) treasuryUser(ctx context.Context) (store.Employee, []store.Wallet, error) {
	u, ws, err := h.store.Treasury(ctx)
	if errors.Is(err, store.ErrNoTreasury) {
		return store.Employee{}, nil, errNoTreasury
	}
	return u, ws, err
}
