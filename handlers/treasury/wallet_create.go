package treasury

import (
	"context"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// SignRequests issues sign requests for the owner's device (the sign area):
// an owner proof for a new wallet, and a rail's signatureRequest.
type SignRequests interface {
	IssueOwnerProof(ctx context.Context, by store.Actor, userID string, currency apiclient.Stablecoin, owner string) (views.SignPanel, error)
	IssueWorkflow(ctx context.Context, by store.Actor, userID, walletID string, req apiclient.SignatureRequest, what string) (views.SignPanel, error)
}

// CreateWallet asks the owner's device to prove it holds the key of a new
// treasury wallet; the wallet is created when the device's signature
// checks out.
func (h *Handler) CreateWallet(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.NewWalletForm{Currency: r.PostFormValue("currency"), Owner: strings.TrimSpace(r.PostFormValue("owner")), Fields: views.FieldErrors{}}
	coin, err := apiclient.ParseStablecoin(f.Currency)
	switch {
	case err != nil || coin.IsLegacy():
		f.Fields["currency"] = "Choose one of the listed stablecoins."
	default:
		if _, has := t.walletOf(string(coin)); has {
			f.Fields["currency"] = "The treasury already has a " + string(coin) + " wallet."
		}
	}
	if !apiclient.IsAddress(f.Owner) {
		f.Fields["owner"] = "Give the owner key's address: 0x and 40 hex characters."
	}
	if f.Fields.Any() {
		h.render(w, r, t, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { v.NewWallet = f })
		return
	}
	panel, err := h.Sign.IssueOwnerProof(ctx, handlers.ActorFrom(ctx), t.user.ServiceUserID, coin, f.Owner)
	if err != nil {
		_, msg, aerr := h.upstreamFailed(ctx, "sign_request.create", err)
		if aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		h.render(w, r, t, http.StatusBadGateway, func(v *views.TreasuryView) { v.NewWallet, v.Error = f, msg })
		return
	}
	h.render(w, r, t, http.StatusCreated, func(v *views.TreasuryView) { v.NewWallet, v.OwnerProof = f, &panel })
}
