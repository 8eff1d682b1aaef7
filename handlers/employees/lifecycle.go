package employees

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// DeleteCheck is the pre-deletion check: balances per wallet, active cards
// and open proposals, read from the API now.
func (h *Handler) DeleteCheck(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted {
		msg := e.Name() + " has not accepted the invite yet, so there is no account to delete."
		if e.InviteState == store.InviteDeleted {
			msg = e.Name() + "'s account is already deleted."
		}
		h.Render(w, r, http.StatusConflict, "Nothing to delete", views.ErrorPage(views.ErrorView{Status: http.StatusConflict,
			Title: "Nothing to delete", Message: msg, Back: fmt.Sprintf("/employees/%d", e.ID), BackLabel: "Back to " + e.Name()}), nil)
		return
	}
	v := h.deleteCheck(r.Context(), e)
	h.Render(w, r, http.StatusOK, "Delete "+e.Name(), views.DeleteCheckPage(v), nil)
}

func (h *Handler) deleteCheck(ctx context.Context, e store.Employee) views.DeleteCheckView {
	v := views.DeleteCheckView{ID: e.ID, Name: e.Name(), Email: e.Email, ReadAt: h.Clock(), CanDelete: true, FormToken: handlers.NewFormToken()}
	balances, err := h.API.ListBalances(ctx, e.ServiceUserID)
	if err != nil {
		v.BalancesErr = "Balances could not be read. " + apiclient.ReadWords(err)
	}
	for _, b := range balances {
		fiat := string(b.DisplayCurrency)
		if fiat == "" {
			if f, ok := b.Currency.Fiat(); ok {
				fiat = string(f)
			}
		}
		v.Balances = append(v.Balances, views.WalletView{Currency: fiat, Token: string(b.Currency),
			Balance: &views.Amount{Value: b.Balance, Currency: fiat, Token: string(b.Currency)}})
		if b.Balance.IsPositive() {
			v.HasBalance = true
		}
	}
	wallets, err := h.API.ListWallets(ctx, e.ServiceUserID)
	if err != nil {
		v.CardsErr = "Wallets could not be read. " + apiclient.ReadWords(err)
		v.ProposalErr = v.CardsErr
		return v
	}
	for _, wl := range wallets {
		cards, err := h.API.ListCards(ctx, e.ServiceUserID, wl.ID)
		if err != nil {
			v.CardsErr = "Cards could not be read. " + apiclient.ReadWords(err)
		}
		for _, c := range cards {
			st := strings.ToLower(string(c.Status))
			if st == "cancelled" || st == "canceled" || st == "deactivated" || st == "terminated" {
				continue
			}
			name := c.CardName
			if name == "" {
				name = "card"
			}
			if c.Last4 != "" {
				name += " ending " + c.Last4
			}
			v.Cards = append(v.Cards, fmt.Sprintf("%s, %s %s card, %s", name, c.Currency, strings.ToLower(string(c.Type)), views.StatusLabel(views.StatusCard, string(c.Status))))
		}
		proposals, err := h.API.ListProposals(ctx, e.ServiceUserID, wl.ID)
		if err != nil {
			v.ProposalErr = "Proposals could not be read. " + apiclient.ReadWords(err)
		}
		for _, p := range proposals {
			if !p.Status.IsOpen() {
				continue
			}
			desc := fmt.Sprintf("%s, %s, created %s", views.Capitalize(views.StatusLabel(views.StatusProposalType, string(p.Type))),
				views.StatusLabel(views.StatusProposal, string(p.Status)), p.CreatedAt.UTC().Format("2 Jan 2006"))
			if p.Amount.IsPositive() {
				amt := views.Amount{Value: p.Amount, Currency: string(p.Currency)}
				if f, ok := p.Currency.Fiat(); ok {
					amt = views.Amount{Value: p.Amount, Currency: string(f), Token: string(p.Currency)}
				}
				desc += ", " + amt.String()
			}
			v.Proposals = append(v.Proposals, desc)
		}
	}
	return v
}

// Delete asks the API to delete (deactivate) the account, once per form.
// spec: 400 E101 when a wallet holds a balance; 503 when balances could not
// be verified (nothing deleted, retry). An unknown outcome is read back:
// a deleted user's endpoints answer 404.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	page := fmt.Sprintf("/employees/%d", e.ID)
	if h.seen(w, r, key, kindDelete, page) {
		return
	}
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted {
		if h.refuse(w, r, key, kindDelete, employeeTarget(e.ID), "not a linked, active account", page) {
			return
		}
		h.ErrorPage(w, r, http.StatusConflict, "Nothing to delete", "Only a linked, active account can be deleted.")
		return
	}
	req := onUser{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindDelete, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			res, err := h.API.DeleteUser(ctx, req.ServiceUserID)
			if err != nil {
				return handlers.Effect{}, err
			}
			return deleteEffect(req, "the Partner API answered: "+answered(res, "deleted"), h.Clock()), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	if d.State() == store.ActionDone {
		h.Flash(r, "ok", e.Name()+"'s account is deleted. It can be reactivated within 90 days.")
		h.Redirect(w, r, page)
		return
	}
	v := h.deleteCheck(r.Context(), e)
	v.Problem = "Not deleted: " + d.Problem.Summary
	if d.State() != store.ActionRefused {
		v.Problem = "The Partner API did not confirm the deletion, so it is not known whether the account is deleted; the app keeps " +
			"checking and the employee's page shows the outcome. Do not delete it again meanwhile."
	}
	// spec: "503 | balances could not be verified | account deletion; retry,
	// nothing deleted".
	v.Retryable = d.Problem.Status == http.StatusServiceUnavailable
	h.Render(w, r, problemStatus(d), "Delete "+e.Name(), views.DeleteCheckPage(v), nil)
}

// answered is the API's message, or what to say when it gave none.
func answered(res *apiclient.StatusMessage, otherwise string) string {
	if res != nil && res.Message != "" {
		return res.Message
	}
	return otherwise
}

// Reactivate restores a deleted account within 90 days, once per form.
// spec: over 90 days is a 400 "with a support-handoff message; not
// retryable".
func (h *Handler) Reactivate(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	page := fmt.Sprintf("/employees/%d", e.ID)
	if h.seen(w, r, key, kindReactivate, page) {
		return
	}
	if e.InviteState != store.InviteDeleted || e.ServiceUserID == "" {
		if h.refuse(w, r, key, kindReactivate, employeeTarget(e.ID), "the account is not deleted", page) {
			return
		}
		h.ErrorPage(w, r, http.StatusConflict, "Not deleted", "This account is not deleted: there is nothing to reactivate.")
		return
	}
	req := onUser{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindReactivate, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			res, err := h.API.ReactivateUser(ctx, req.ServiceUserID)
			if err != nil {
				return handlers.Effect{}, err
			}
			return reactivateEffect(req, "the Partner API answered: "+answered(res, "reactivated")), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	if d.State() == store.ActionDone {
		h.Flash(r, "ok", e.Name()+"'s account is active again.")
		h.Redirect(w, r, page)
		return
	}
	v := views.ReactivateView{ID: e.ID, Name: e.Name(), Problem: d.Problem.Summary, FormToken: handlers.NewFormToken()}
	switch {
	case d.State() != store.ActionRefused:
		v.Problem = "The Partner API did not confirm the reactivation, so it is not known whether the account is active again; " +
			"the app keeps checking and the employee's page shows the outcome."
	case d.Problem.Status == http.StatusBadRequest:
		// spec: "over 90 days | 400 with a support-handoff message; not retryable".
		v.SupportNeeded = true
	}
	h.Render(w, r, problemStatus(d), "Reactivate "+e.Name(), views.ReactivateResultPage(v), nil)
}
