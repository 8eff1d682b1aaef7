package treasury

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// render shows the forms again with what was typed (422 for bad input, 502
// when the API failed).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, t treasury, status int, fill func(*views.TreasuryView)) {
	v, err := h.view(r.Context(), t, fill)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, status, "New treasury proposal", views.TreasuryPage(v), nil)
}

// Transfer proposes a transfer from a treasury wallet to an employee.
func (h *Handler) Transfer(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.TransferForm{WalletID: r.PostFormValue("wallet_id"), ToUserID: strings.TrimSpace(r.PostFormValue("to_user_id")),
		To:     views.RecipientPicker{Search: r.PostFormValue("to_search")},
		Amount: r.PostFormValue("amount"), Description: strings.TrimSpace(r.PostFormValue("description")), Fields: views.FieldErrors{}}
	wallet, ok := t.wallet(f.WalletID)
	if !ok {
		f.Fields["wallet"] = "Choose one of the treasury wallets."
	}
	if msg, err := h.checkRecipient(ctx, f.ToUserID); err != nil {
		h.ServerError(w, r, err)
		return
	} else if msg != "" {
		f.Fields["to"] = msg
	}
	var wp *store.Wallet
	if ok {
		wp = &wallet
	}
	amount, msg := parseAmount(f.Amount, wp)
	if msg != "" {
		f.Fields["amount"] = msg
	}
	if msg := checkText(f.Description, apiclient.MaxDescriptionLength); msg != "" {
		f.Fields["description"] = msg
	}
	if f.Fields.Any() {
		h.render(w, r, t, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { v.Transfer = f })
		return
	}
	p, err := h.API.CreateTransferProposal(ctx, t.user.ServiceUserID, wallet.ID, apiclient.TransferProposal{
		ToUserID: f.ToUserID, Amount: amount, Currency: apiclient.Stablecoin(wallet.Currency), Description: f.Description,
	})
	if err != nil {
		h.createFailed(w, r, t, err, f.Fields, func(v *views.TreasuryView) { v.Transfer = f })
		return
	}
	h.created(w, r, t, p, wallet.ID, "transfer of "+amount.String()+" "+wallet.Currency+" to "+f.ToUserID)
}

// Swap proposes exchanging a treasury wallet's stablecoin for another.
func (h *Handler) Swap(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.SwapForm{WalletID: r.PostFormValue("wallet_id"), ToStablecoin: r.PostFormValue("to_stablecoin"),
		Amount: r.PostFormValue("amount"), SlippageBps: strings.TrimSpace(r.PostFormValue("slippage_bps")),
		Description: strings.TrimSpace(r.PostFormValue("description")), Fields: views.FieldErrors{}}
	wallet, ok := t.wallet(f.WalletID)
	var wp *store.Wallet
	if !ok {
		f.Fields["wallet"] = "Choose one of the treasury wallets."
	} else {
		wp = &wallet
	}
	to, err := apiclient.ParseStablecoin(f.ToStablecoin)
	switch {
	case err != nil || to.IsLegacy():
		f.Fields["to_stablecoin"] = "Choose one of the listed stablecoins."
	case ok && string(to) == wallet.Currency:
		f.Fields["to_stablecoin"] = "Choose a different stablecoin from the wallet's own."
	case ok:
		if _, has := t.walletOf(string(to)); !has {
			f.Fields["to_stablecoin"] = "The treasury has no " + string(to) + " wallet to receive the swap."
		}
	}
	amount, msg := parseAmount(f.Amount, wp)
	if msg != "" {
		f.Fields["amount"] = msg
	}
	var slippage *int
	if f.SlippageBps != "" {
		n, err := strconv.Atoi(f.SlippageBps)
		if err != nil || n < apiclient.MinSlippageBps || n > apiclient.MaxSlippageBps {
			f.Fields["slippage_bps"] = "Give a whole number of basis points from 1 to 500 (100 bps = 1%)."
		} else {
			slippage = &n
		}
	}
	if msg := checkText(f.Description, apiclient.MaxDescriptionLength); msg != "" {
		f.Fields["description"] = msg
	}
	if f.Fields.Any() {
		h.render(w, r, t, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { v.Swap = f })
		return
	}
	p, err := h.API.CreateSwapProposal(ctx, t.user.ServiceUserID, wallet.ID, apiclient.SwapProposal{
		FromStablecoin: apiclient.Stablecoin(wallet.Currency), ToStablecoin: to, FromAmount: amount, SlippageBps: slippage, Description: f.Description,
	})
	if err != nil {
		_, msg, aerr := h.upstreamFailed(ctx, "proposal.create", err)
		if aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		h.render(w, r, t, http.StatusBadGateway, func(v *views.TreasuryView) { v.Swap, v.Error = f, msg })
		return
	}
	h.created(w, r, t, p, wallet.ID, "swap of "+amount.String()+" "+wallet.Currency+" to "+string(to))
}

// Send proposes account/send from the treasury user's account.
func (h *Handler) Send(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := views.SendForm{Currency: r.PostFormValue("currency"), ToUserID: strings.TrimSpace(r.PostFormValue("to_user_id")),
		To:     views.RecipientPicker{Search: r.PostFormValue("to_search")},
		Amount: r.PostFormValue("amount"), Note: strings.TrimSpace(r.PostFormValue("note")), Fields: views.FieldErrors{}}
	wallet, ok := t.walletOf(f.Currency)
	var wp *store.Wallet
	if !ok {
		f.Fields["currency"] = "Choose the currency of one of the treasury wallets."
	} else {
		wp = &wallet
	}
	if msg, err := h.checkRecipient(ctx, f.ToUserID); err != nil {
		h.ServerError(w, r, err)
		return
	} else if msg != "" {
		f.Fields["to"] = msg
	}
	amount, msg := parseAmount(f.Amount, wp)
	if msg != "" {
		f.Fields["amount"] = msg
	}
	if msg := checkText(f.Note, apiclient.MaxNoteLength); msg != "" {
		f.Fields["note"] = msg
	}
	if f.Fields.Any() {
		h.render(w, r, t, http.StatusUnprocessableEntity, func(v *views.TreasuryView) { v.Send = f })
		return
	}
	p, err := h.API.Send(ctx, t.user.ServiceUserID, apiclient.SendRequest{ToUserID: f.ToUserID, Amount: amount,
		Currency: apiclient.Stablecoin(wallet.Currency), Note: f.Note})
	if err != nil {
		h.createFailed(w, r, t, err, f.Fields, func(v *views.TreasuryView) { v.Send = f })
		return
	}
	h.created(w, r, t, p, wallet.ID, "send of "+amount.String()+" "+wallet.Currency+" to "+f.ToUserID)
}

// checkRecipient says what is wrong with the chosen recipient, "" when
// nothing: value goes only to a linked employee who is not deleted (those the
// picker offers), checked before anything is sent upstream.
func (h *Handler) checkRecipient(ctx context.Context, serviceUserID string) (string, error) {
	if serviceUserID == "" {
		return "Choose the employee who receives it.", nil
	}
	_, ok, err := h.Store.TreasuryRecipient(ctx, serviceUserID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "This person cannot receive value: they are not a linked employee, or their account was deleted. Search and choose again.", nil
	}
	return "", nil
}

// createFailed shows the API's refusal of a new proposal: next to the field
// it names (422) or above the form (502), with everything typed kept.
func (h *Handler) createFailed(w http.ResponseWriter, r *http.Request, t treasury, err error, fields views.FieldErrors, keep func(*views.TreasuryView)) {
	field, msg, aerr := h.upstreamFailed(r.Context(), "proposal.create", err)
	if aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	status := http.StatusBadGateway
	if field != "" {
		fields[field], status = msg, http.StatusUnprocessableEntity
	}
	h.render(w, r, t, status, func(v *views.TreasuryView) {
		keep(v)
		if field == "" {
			v.Error = msg
		}
	})
}
