// Package moneyout is the hub of money out: the index of every rail value
// can leave the partner's treasury by, and what the rails share (the
// treasury user, the address book on their forms, amounts and the owner
// signature's panel). Each rail lives in its own package below this one
// (payout, nigeria, sepa, mexico, cash) and adds itself to the index when
// it is built; rails never import each other.
//
// Each rail is a wizard whose steps are checked against the spec's limits
// before any call; every state-changing call goes through the action
// ledger (handlers.Actions) under the form's one-time token, and a
// signatureRequest goes to the owner's device as a QR code (the sign
// area's IssueWorkflow).
package moneyout

import (
	"context"
	"errors"
	"net/http"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// ErrNoTreasury: the mirror has no treasury user with an upstream id.
var ErrNoTreasury = errors.New("moneyout: the partner has no treasury user in the mirror")

// SignRequests hands a rail's signatureRequest to the owner's device.
type SignRequests = handlers.WorkflowSigner

// Rail is what every rail's handler is built on: the app's dependencies,
// the owner's device, and the helpers the rails share.
type Rail struct {
	handlers.Deps
	Sign SignRequests
}

// Handler serves the money-out index.
type Handler struct {
	Rail
	rails []views.Rail
}

// New returns the hub with the rails that live in other areas listed; the
// rail packages add themselves with Add.
func New(d handlers.Deps, sign SignRequests) *Handler {
	h := &Handler{Rail: Rail{Deps: d, Sign: sign}}
	h.Add(views.Rail{Name: "Crypto withdrawal", Href: "/treasury/withdrawal",
		Description: "A treasury wallet's whole balance to an address outside the app, on a chain and token the API supports; signed on the owner's device."})
	h.Add(views.Rail{Name: "Crypto offramp", Href: "/treasury/withdrawal?rail=offramp",
		Description: "The API's alternative crypto rail, with its own routes: reviewed like the withdrawal, signed on the owner's device."})
	h.Add(views.Rail{Name: "Swap", Href: "/treasury#swap",
		Description: "One stablecoin for another at a firm quote, as a proposal that approvers approve and the owner signs."})
	return h
}

// Add lists a rail on the index.
func (h *Handler) Add(r views.Rail) { h.rails = append(h.rails, r) }

// Index lists the rails value can leave by, under the treasury's balances
// as last read.
func (h *Handler) Index(w http.ResponseWriter, r *http.Request) {
	v := views.MoneyOutView{Rails: h.rails}
	// The page changes nothing: the treasury as kept for the request's
	// start will do.
	_, wallets, err := h.Store.Treasury(r.Context())
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

// TreasuryUser is the partner's treasury user: the account value leaves,
// with its wallets (store.Treasury: one round trip).
func (h *Rail) TreasuryUser(ctx context.Context) (store.Employee, []store.Wallet, error) {
	u, ws, err := h.Store.Treasury(ctx)
	if errors.Is(err, store.ErrNoTreasury) {
		return store.Employee{}, nil, ErrNoTreasury
	}
	return u, ws, err
}
