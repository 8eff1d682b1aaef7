package moneyout

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// What the EUR SEPA payout and the Mexican offramp share: the treasury
// wallet they leave from, amounts with their currency, and the owner
// signature's panel. Names carry the sepaMXN prefix because every rail
// lives in this package.

// sepaMXNReadBudget bounds the reads a posted step makes (a GET page has
// the app's read budget already).
const sepaMXNReadBudget = 4 * time.Second

// sepaMXNWallet is the treasury's wallet in a stablecoin.
func sepaMXNWallet(wallets []store.Wallet, coin string) (store.Wallet, bool) {
	for _, w := range wallets {
		if w.Currency == coin && !w.Legacy {
			return w, true
		}
	}
	return store.Wallet{}, false
}

// sepaMXNMoney is an amount of a stablecoin on screen: its fiat code, and
// the token beside it.
func sepaMXNMoney(value decimal.Decimal, coin string) views.Amount {
	a := views.Amount{Value: value, Currency: coin}
	if fiat, ok := apiclient.Stablecoin(coin).Fiat(); ok {
		a.Currency, a.Token = string(fiat), coin
	}
	return a
}

// sepaMXNWalletLabel names a treasury wallet: "EUR (EURe) wallet 1b2c…".
func sepaMXNWalletLabel(w store.Wallet) string {
	name := w.Currency
	if fiat, ok := apiclient.Stablecoin(w.Currency).Fiat(); ok {
		name = string(fiat) + " (" + w.Currency + ")"
	}
	return name + " wallet " + w.ID
}

// sepaMXNBalance is the wallet's balance as last read, "" when never read.
func sepaMXNBalance(w store.Wallet) string {
	if !w.Balance.Valid {
		return ""
	}
	return sepaMXNMoney(w.Balance.Decimal, w.Currency).String()
}

// sepaMXNReadFailed says why a read of the API failed: its refusal in
// words, or that it did not answer.
func sepaMXNReadFailed(err error) string {
	if p := apiclient.Explain(err); p.Kind == apiclient.Refused {
		return p.Summary
	}
	return "The API did not answer."
}

// sepaMXNPanel is the stored state of a sign request, without its link
// (which is shown once, when issued).
func (h *Handler) sepaMXNPanel(sr *store.SignRequest) *views.SignPanel {
	if sr == nil {
		return nil
	}
	p := proposal.SignPanelOf(*sr, h.clock())
	return &p
}

// sepaMXNRecentLimit is how many of a rail's orders its page links to.
const sepaMXNRecentLimit = 10

// sepaMXNRecent links a rail's newest orders, so an order whose page was
// left is found again.
func (h *Handler) sepaMXNRecent(ctx context.Context, rail string) ([]views.SepaMXNRecent, error) {
	orders, err := h.store.RecentSepaMXNOrders(ctx, rail, sepaMXNRecentLimit)
	if err != nil {
		return nil, err
	}
	out := make([]views.SepaMXNRecent, 0, len(orders))
	for _, o := range orders {
		r := views.SepaMXNRecent{Status: o.Status, CreatedAt: o.CreatedAt}
		switch rail {
		case store.RailSEPA:
			r.Kind = views.StatusSepa
			r.Href = sepaPage(o.ID)
			r.Label = sepaMXNMoney(o.Amount, o.Currency).String() + " to " + o.Beneficiary + " (" + o.IBANMasked + ")"
		default:
			r.Kind = views.StatusMexico
			r.Href = mexicoPage(o.ID)
			r.Label = sepaMXNMoney(o.Amount, o.Currency).String() + " for " + sepaMXNMoney(o.DestinationAmount.Decimal, "MXN").String()
		}
		out = append(out, r)
	}
	return out, nil
}
