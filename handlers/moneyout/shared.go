package moneyout

import (
	"context"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/views"
)

// What the rails share besides the address book: the limits of a posted
// step, the treasury wallet a rail leaves from, amounts with their
// currency, reads of the API put into words, and the owner signature's
// panel.

const (
	// ReadBudget bounds the reads a posted step makes (a GET page has the
	// app's read budget already).
	ReadBudget = 4 * time.Second
	// CallTimeout bounds a call that checks something and changes nothing
	// (verifying or validating an account).
	CallTimeout = 8 * time.Second
	// HolderLength bounds a holder name carried between steps.
	HolderLength = 200
	// CodeLength bounds a bank code, bank id, branch id or token.
	CodeLength = 100
)

// WalletIn is the treasury's (current, not legacy) wallet in a stablecoin.
func WalletIn(wallets []store.Wallet, coin string) (store.Wallet, bool) {
	for _, w := range wallets {
		if w.Currency == coin && !w.Legacy {
			return w, true
		}
	}
	return store.Wallet{}, false
}

// Money is an amount of a stablecoin on screen: its fiat code, and the
// token beside it.
func Money(value decimal.Decimal, coin string) views.Amount {
	a := views.Amount{Value: value, Currency: coin}
	if fiat, ok := apiclient.Stablecoin(coin).Fiat(); ok {
		a.Currency, a.Token = string(fiat), coin
	}
	return a
}

// WalletMoney is an amount of a wallet's token on screen.
func WalletMoney(w store.Wallet, value decimal.Decimal) views.Amount { return Money(value, w.Currency) }

// WalletLabel names a treasury wallet: "EUR (EURe) wallet 1b2c…".
func WalletLabel(w store.Wallet) string {
	name := w.Currency
	if fiat, ok := apiclient.Stablecoin(w.Currency).Fiat(); ok {
		name = string(fiat) + " (" + w.Currency + ")"
	}
	return name + " wallet " + w.ID
}

// LastBalance is the wallet's balance as last read, "" when never read.
func LastBalance(w store.Wallet) string {
	if !w.Balance.Valid {
		return ""
	}
	return Money(w.Balance.Decimal, w.Currency).String()
}

// ReadFailed says why a read of the API failed: its refusal in words, or
// that it did not answer.
func ReadFailed(err error) string {
	if p := apiclient.Explain(err); p.Kind == apiclient.Refused {
		return p.Summary
	}
	return "The API did not answer."
}

// Last4 is the end of an account number, the only part kept or shown
// after the step that typed it.
func Last4(s string) string {
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}

// LiveBalance reads the treasury's balances from the API now (within the
// step's read budget) and returns the wallet's. ok is false when it could
// not be read.
func (h *Rail) LiveBalance(ctx context.Context, userID, walletID string) (decimal.Decimal, bool) {
	if h.API == nil {
		return decimal.Decimal{}, false
	}
	rctx := apiclient.WithReadDeadline(ctx, time.Now().Add(ReadBudget))
	if _, _, err := userstate.RefreshBalances(rctx, h.Store, h.API, userID, h.Clock()); err != nil {
		h.Logger.WarnContext(ctx, "moneyout: balances not read", "err", err)
		return decimal.Decimal{}, false
	}
	w, err := h.Store.WalletByID(ctx, walletID)
	if err != nil || !w.Balance.Valid {
		return decimal.Decimal{}, false
	}
	return w.Balance.Decimal, true
}

// SignPanel is the stored state of a sign request, without its link
// (which is shown once, when issued).
func (h *Rail) SignPanel(sr *store.SignRequest) *views.SignPanel {
	if sr == nil {
		return nil
	}
	p := proposal.SignPanelOf(*sr, h.Clock())
	return &p
}

// recentLimit is how many of a rail's orders its page links to.
const recentLimit = 10

// RecentOrders links a rail's newest orders, so an order whose page was
// left is found again; describe fills in the rail's link, kind and label.
func (h *Rail) RecentOrders(ctx context.Context, rail string, describe func(store.SepaMXNOrder, *views.SepaMXNRecent)) ([]views.SepaMXNRecent, error) {
	orders, err := h.Store.RecentSepaMXNOrders(ctx, rail, recentLimit)
	if err != nil {
		return nil, err
	}
	out := make([]views.SepaMXNRecent, 0, len(orders))
	for _, o := range orders {
		r := views.SepaMXNRecent{Status: o.Status, CreatedAt: o.CreatedAt}
		describe(o, &r)
		out = append(out, r)
	}
	return out, nil
}

// ShowRequest renders an order the API has not opened: the request that
// asks for it, as the ledger has it — still being sent, refused, or with
// no known outcome.
func (h *Rail) ShowRequest(w http.ResponseWriter, r *http.Request, target, kind, title, again, unknownWords string) {
	a, ok := h.NotOpened(w, r, h.Store, target, kind, nil)
	if !ok {
		return
	}
	v := views.SepaMXNRequestView{Title: title, State: string(a.State), StateLabel: views.StatusLabel(views.StatusAction, string(a.State)), CreatedBy: a.Actor.Email,
		CreatedAt: a.BegunAt, Again: again, Back: handlers.BackTo(r, again)}
	poll, says := handlers.NotOpenedSays(a, unknownWords)
	if poll {
		v.PollURL = r.URL.Path
	}
	v.Message = says
	h.Render(w, r, http.StatusOK, title, views.SepaMXNRequestPage(v), views.SepaMXNRequestBody(v))
}
