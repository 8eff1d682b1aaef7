package treasury

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/userstate"
	"partneradmin/views"
)

// balances builds the treasury overview from the mirror: each wallet's last
// balance read, when, whether value moved since, and what open proposals
// will take out of it.
func (h *Handler) balances(t treasury, readErr string) views.TreasuryBalances {
	v := views.TreasuryBalances{TreasuryUserID: t.user.ServiceUserID, Now: h.clock(), Error: readErr}
	for _, w := range t.wallets {
		m := money(w)
		leaving := t.outflows[w.ID]
		row := views.TreasuryBalanceRow{
			WalletID: w.ID, Token: w.Currency, DisplayCurrency: m.Currency, ReadAt: w.BalanceReadAt, StaleSince: w.BalanceStaleSince,
			Leaving: views.Amount{Value: leaving.Amount, Currency: m.Currency, Token: m.Token}, LeavingN: leaving.Count,
			LegacyToken: apiclient.Stablecoin(w.Currency).IsLegacy(), LegacyWallet: w.Legacy,
		}
		if w.Balance.Valid {
			bal := m
			avail := views.Amount{Value: w.Balance.Decimal.Sub(leaving.Amount), Currency: m.Currency, Token: m.Token}
			row.Balance, row.Available = &bal, &avail
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// readBalances reads the treasury's balances from the API into the mirror
// now and loads the treasury again. On failure it returns the treasury as
// the mirror has it and the failure in words.
func (h *Handler) readBalances(ctx context.Context, t treasury) (treasury, string, error) {
	if h.api == nil {
		return t, "No Partner API is connected, so the balances cannot be read.", nil
	}
	if _, _, err := userstate.RefreshBalances(ctx, h.store, h.api, t.user.ServiceUserID, h.clock()); err != nil {
		h.Logger.WarnContext(ctx, "treasury balances not read", "err", err)
		return t, "The balances could not be read just now: " + apiclient.Words(err) + " The figures below are the last ones read.", nil
	}
	fresh, err := h.load(ctx)
	return fresh, "", err
}

// BalancesPanel is the overview alone (its live poll).
func (h *Handler) BalancesPanel(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := h.balances(t, "")
	h.RenderFragment(w, r, http.StatusOK, views.TreasuryBalancesPanel(v))
}

// RefreshBalances reads the treasury's balances from the API now. It
// changes only the mirror (no upstream write, nothing to audit).
func (h *Handler) RefreshBalances(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	t, msg, err := h.readBalances(r.Context(), t)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if h.Fragment(w, r, http.StatusOK, views.TreasuryBalancesPanel(h.balances(t, msg))) {
		return
	}
	if msg != "" {
		h.Flash(r, "error", msg)
	} else {
		h.Flash(r, "ok", "Balances read from the Partner API just now.")
	}
	h.Redirect(w, r, "/treasury")
}

// BalancesCSV exports the overview.
func (h *Handler) BalancesCSV(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := h.balances(t, "")
	cw := handlers.NewCSV(w, r, "treasury-balances.csv", "wallet_id", "token", "currency", "balance", "leaving_in_open_proposals",
		"open_proposals", "available", "read_at", "changed_since_read")
	for _, row := range v.Rows {
		bal, avail, readAt := "", "", ""
		if row.Balance != nil {
			bal, avail = csvAmount(row.Balance.Value, row.Token), csvAmount(row.Available.Value, row.Token)
		}
		if row.ReadAt != nil {
			readAt = row.ReadAt.UTC().Format("2006-01-02T15:04:05Z")
		}
		cw.Row(row.WalletID, row.Token, row.DisplayCurrency, bal, csvAmount(row.Leaving.Value, row.Token), strconv.Itoa(row.LeavingN), avail, readAt,
			strconv.FormatBool(row.StaleSince != nil))
	}
	cw.Close(h.Logger, r)
}

// csvAmount is an amount for a CSV cell: at least the token's places, as
// the payroll exports write them ("249500.00"), and every decimal it has.
func csvAmount(d decimal.Decimal, token string) string {
	places := handlers.TokenDecimals(apiclient.Stablecoin(token))
	if e := -d.Exponent(); e > places {
		places = e
	}
	return d.StringFixed(places)
}

// submitReadBudget bounds the balance read of a submitted form.
const submitReadBudget = 4 * time.Second

// liveBalance reads a wallet's balance at submit time: amounts are checked
// against what the API holds now, not the last figure read. ok is false
// when it could not be read; the form then says so and sends nothing.
func (h *Handler) liveBalance(ctx context.Context, t treasury, walletID string) (bal decimal.Decimal, ok bool, err error) {
	rctx := apiclient.WithReadDeadline(ctx, time.Now().Add(submitReadBudget))
	fresh, msg, err := h.readBalances(rctx, t)
	if err != nil || msg != "" {
		return decimal.Decimal{}, false, err
	}
	w, found := fresh.wallet(walletID)
	if !found || !w.Balance.Valid {
		return decimal.Decimal{}, false, nil
	}
	return w.Balance.Decimal, true, nil
}
