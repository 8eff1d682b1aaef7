package treasury

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// kindOwnerProof is the ledger's kind of an owner-proof challenge asked for
// a new treasury wallet.
const kindOwnerProof = "wallet.owner_proof"

// SignRequests issues sign requests for the owner's device (the sign area):
// an owner proof for a new wallet, and a rail's signatureRequest.
type SignRequests interface {
	IssueOwnerProof(ctx context.Context, by store.Actor, userID string, currency apiclient.Stablecoin, owner string) (views.SignPanel, error)
	handlers.WorkflowSigner
}

// ownerProofRequest is what the new wallet form asks, as the ledger keeps
// it.
type ownerProofRequest struct {
	UserID   string               `json:"userId"`
	Currency apiclient.Stablecoin `json:"currency"`
	Owner    string               `json:"ownerAddress"`
}

// CreateWallet asks the owner's device to prove it holds the key of a new
// treasury wallet; the wallet is created when the device's signature
// checks out. The challenge is asked for once per form.
func (h *Handler) CreateWallet(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.NewWalletForm{Token: postedToken(r), Currency: r.PostFormValue("currency"), Owner: strings.TrimSpace(r.PostFormValue("owner")),
		Fields: views.FieldErrors{}}
	coin, err := apiclient.ParseStablecoin(f.Currency)
	switch {
	case err != nil || coin.IsLegacy():
		f.Fields["currency"] = "Choose one of the listed stablecoins."
	case t.has(coin):
		f.Fields["currency"] = "The treasury already has a " + string(coin) + " wallet."
	}
	if !apiclient.IsAddress(f.Owner) {
		f.Fields["owner"] = "Give the owner key's address: 0x and 40 hex characters."
	}
	if f.Fields.Any() {
		h.render(w, r, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { v.NewWallet = f })
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	actor := handlers.ActorFrom(ctx)
	q := ownerProofRequest{UserID: t.user.ServiceUserID, Currency: coin, Owner: f.Owner}
	var panel views.SignPanel
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindOwnerProof, Target: "user:" + q.UserID, Actor: actor,
		Request: q, Call: func(ctx context.Context) (handlers.Effect, error) {
			p, err := h.sign.IssueOwnerProof(ctx, actor, q.UserID, q.Currency, q.Owner)
			if err != nil {
				return handlers.Effect{}, err
			}
			panel = p
			id := strconv.FormatInt(p.ID, 10)
			return handlers.Effect{Target: "sign_request:" + id, Result: map[string]string{"signRequestId": id},
				Detail: "owner proof asked for a new " + string(q.Currency) + " wallet of owner " + q.Owner}, nil
		}})
	switch {
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.Repeated(w, r, done.Action, "/treasury", "The device's QR code was shown in answer to the first send; if it is lost, send the form again for a new one.")
		return
	}
	f.Token = handlers.NewFormToken()
	if done.State() == store.ActionDone {
		h.render(w, r, http.StatusCreated, func(v *views.TreasuryView) { v.NewWallet, v.OwnerProof = f, &panel })
		return
	}
	h.render(w, r, http.StatusBadGateway, func(v *views.TreasuryView) { v.NewWallet, v.Error = f, done.Problem.Summary })
}
