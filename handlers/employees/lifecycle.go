package employees

import (
	"context"
	"errors"
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
		h.ErrorPage(w, r, http.StatusConflict, "Nothing to delete", "Only a linked, active account can be deleted.")
		return
	}
	v := h.deleteCheck(r.Context(), e)
	h.Render(w, r, http.StatusOK, "Delete "+e.Name(), views.DeleteCheckPage(v), nil)
}

func (h *Handler) deleteCheck(ctx context.Context, e store.Employee) views.DeleteCheckView {
	v := views.DeleteCheckView{ID: e.ID, Name: e.Name(), Email: e.Email, ReadAt: h.Now(), CanDelete: true}
	balances, err := h.API.ListBalances(ctx, e.ServiceUserID)
	if err != nil {
		v.BalancesErr = "Balances could not be read: " + readError(err) + "."
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
		v.CardsErr = "Wallets could not be read: " + readError(err) + "."
		v.ProposalErr = v.CardsErr
		return v
	}
	for _, wl := range wallets {
		cards, err := h.API.ListCards(ctx, e.ServiceUserID, wl.ID)
		if err != nil {
			v.CardsErr = "Cards could not be read: " + readError(err) + "."
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
			v.Cards = append(v.Cards, fmt.Sprintf("%s, %s %s, %s", name, c.Currency, c.Type, c.Status))
		}
		proposals, err := h.API.ListProposals(ctx, e.ServiceUserID, wl.ID)
		if err != nil {
			v.ProposalErr = "Proposals could not be read: " + readError(err) + "."
		}
		for _, p := range proposals {
			if !p.Status.IsOpen() {
				continue
			}
			desc := fmt.Sprintf("%s %s, %s", p.Type, p.Status, p.CreatedAt.UTC().Format("2 Jan 2006"))
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

// Delete asks the API to delete (deactivate) the account. spec: 400 E101
// when a wallet holds a balance; 503 when balances could not be verified
// (nothing deleted, retry). Each answer gets its own message.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	target := fmt.Sprintf("employee:%d", e.ID)
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted {
		_ = h.Store.Audit(r.Context(), store.AuditEntry{Actor: by, Action: "employee.delete", Target: target, Outcome: store.OutcomeRefused,
			Detail: "not a linked, active account"})
		h.ErrorPage(w, r, http.StatusConflict, "Nothing to delete", "Only a linked, active account can be deleted.")
		return
	}
	res, err := h.API.DeleteUser(r.Context(), e.ServiceUserID)
	if err == nil {
		msg := "deleted"
		if res != nil && res.Message != "" {
			msg = res.Message
		}
		if err := h.Store.MarkDeleted(context.WithoutCancel(r.Context()), e.ID, h.Now(), by, "the Partner API answered: "+msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Flash(r, "ok", e.Name()+"'s account is deleted. It can be reactivated within 90 days.")
		h.Redirect(w, r, fmt.Sprintf("/employees/%d", e.ID))
		return
	}
	v := h.deleteCheck(r.Context(), e)
	status := http.StatusBadGateway
	outcome := store.OutcomeFailed
	var apiErr *apiclient.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest:
		// spec: "400 E101 | balances exist in wallets | account deletion".
		status, outcome = http.StatusConflict, store.OutcomeRefused
		v.Problem = "Not deleted: the Partner API says money is still in this employee's wallets (E101). Move or withdraw every balance, then delete."
	case apiclient.StatusCode(err) == http.StatusServiceUnavailable:
		// spec: "503 | balances could not be verified | account deletion; retry, nothing deleted".
		status, v.Retryable = http.StatusServiceUnavailable, true
		v.Problem = "Not deleted: the Partner API could not verify the balances just now. Nothing was deleted. Try again in a moment."
	case apiclient.IsNotFound(err):
		v.Problem = "The Partner API does not know this account any more (404): it may already be deleted. Refresh the employee's page."
	case apiclient.StatusCode(err) == 0:
		v.Problem = "The Partner API did not answer. The account may or may not be deleted: refresh the employee's page before trying again."
	default:
		v.Problem = "The Partner API failed (" + apiMessage(err) + "). Nothing is recorded as deleted."
		v.Retryable = true
	}
	if aerr := h.Store.Audit(r.Context(), store.AuditEntry{Actor: by, Action: "employee.delete", Target: target, Outcome: outcome, Detail: apiMessage(err)}); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	h.Render(w, r, status, "Delete "+e.Name(), views.DeleteCheckPage(v), nil)
}

// Reactivate restores a deleted account within 90 days. spec: over 90 days
// is a 400 "with a support-handoff message; not retryable".
func (h *Handler) Reactivate(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	target := fmt.Sprintf("employee:%d", e.ID)
	v := views.ReactivateView{ID: e.ID, Name: e.Name()}
	if e.InviteState != store.InviteDeleted || e.ServiceUserID == "" {
		_ = h.Store.Audit(r.Context(), store.AuditEntry{Actor: by, Action: "employee.reactivate", Target: target, Outcome: store.OutcomeRefused,
			Detail: "the account is not deleted"})
		h.ErrorPage(w, r, http.StatusConflict, "Not deleted", "This account is not deleted: there is nothing to reactivate.")
		return
	}
	res, err := h.API.ReactivateUser(r.Context(), e.ServiceUserID)
	if err == nil {
		msg := "reactivated"
		if res != nil && res.Message != "" {
			msg = res.Message
		}
		if err := h.Store.MarkReactivated(context.WithoutCancel(r.Context()), e.ID, by, "the Partner API answered: "+msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Flash(r, "ok", e.Name()+"'s account is active again.")
		h.Redirect(w, r, fmt.Sprintf("/employees/%d", e.ID))
		return
	}
	status, outcome := http.StatusBadGateway, store.OutcomeFailed
	switch {
	case apiclient.StatusCode(err) == http.StatusBadRequest:
		status, outcome, v.SupportNeeded = http.StatusConflict, store.OutcomeRefused, true
		v.Problem = "The Partner API refused: " + apiMessage(err)
	case apiclient.StatusCode(err) == 0:
		v.Problem = "The Partner API did not answer. Reactivating again is safe: an active account answers that it is already active."
	default:
		v.Problem = "The Partner API failed (" + apiMessage(err) + "). Nothing changed; try again."
	}
	if aerr := h.Store.Audit(r.Context(), store.AuditEntry{Actor: by, Action: "employee.reactivate", Target: target, Outcome: outcome, Detail: apiMessage(err)}); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	h.Render(w, r, status, "Reactivate "+e.Name(), views.ReactivateResultPage(v), nil)
}
