package treasury

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/views"
)

// sessionSwapQuote is the session key of the viewer's last exchange quote:
// the swap form is proposed only at a quote this person asked for, for the
// same currencies and amount, before it expires.
const sessionSwapQuote = "treasury_swap_quote"

// swapQuote is a firm quote and the conversion it previews.
type swapQuote struct {
	QuoteID    string          `json:"quoteId"`
	WalletID   string          `json:"walletId"`
	From       string          `json:"from"`
	To         string          `json:"to"`
	FromAmount decimal.Decimal `json:"fromAmount"`
	ToAmount   decimal.Decimal `json:"toAmount"`
	Rate       decimal.Decimal `json:"rate"`
	ExpiresAt  time.Time       `json:"expiresAt"`
	// Preview is what a conversion at the quote gives now (the API's
	// convert preview).
	Preview decimal.Decimal `json:"preview"`
}

func (q swapQuote) view(now time.Time) *views.SwapQuote {
	to := views.Amount{Value: q.ToAmount, Currency: q.To}
	if fiat, ok := apiclient.Stablecoin(q.To).Fiat(); ok {
		to.Currency, to.Token = string(fiat), q.To
	}
	preview := to
	preview.Value = q.Preview
	from := views.Amount{Value: q.FromAmount, Currency: q.From}
	if fiat, ok := apiclient.Stablecoin(q.From).Fiat(); ok {
		from.Currency, from.Token = string(fiat), q.From
	}
	return &views.SwapQuote{ID: q.QuoteID, From: from, To: to, Preview: preview, Rate: q.Rate.String(),
		ExpiresAt: q.ExpiresAt, Expired: !now.Before(q.ExpiresAt)}
}

// SwapQuote asks the API for a firm quote and a convert preview for the
// swap form as typed, and shows them in the form; the proposal is then
// made at that quote.
func (h *Handler) SwapQuote(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.load(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f, req, _, err := h.readProposal(r, t, swapForm)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !f.Fields.Any() {
		q, err := h.quote(ctx, t, req)
		if err != nil {
			f.Fields["quote"] = "No quote: " + apiclient.Words(err)
		} else {
			h.keepQuote(r, q)
			f.Quote = q.view(h.clock())
		}
	}
	status := http.StatusOK
	if f.Fields.Any() {
		status = http.StatusUnprocessableEntity
	}
	v, err := h.view(ctx, t, func(v *views.TreasuryView) { v.Swap = f })
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, status, "Treasury", views.TreasuryPage(v), views.TreasurySwapPanel(v))
}

// quote reads a firm quote and previews the conversion at it (two POSTs
// that move nothing: a quote binds no value until a conversion uses it).
func (h *Handler) quote(ctx context.Context, t treasury, req proposalRequest) (swapQuote, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*submitReadBudget)
	defer cancel()
	eq, err := h.api.CreateExchangeQuote(ctx, t.user.ServiceUserID, apiclient.ExchangeQuoteRequest{
		FromCurrency: req.Currency, ToCurrency: req.ToStablecoin, Amount: req.Amount})
	if err != nil {
		return swapQuote{}, err
	}
	pv, err := h.api.Convert(ctx, t.user.ServiceUserID, apiclient.ConvertRequest{FromCurrency: req.Currency,
		ToCurrency: req.ToStablecoin, Amount: req.Amount, QuoteID: eq.QuoteID, Preview: true})
	if err != nil {
		return swapQuote{}, err
	}
	return swapQuote{QuoteID: eq.QuoteID, WalletID: req.WalletID, From: string(req.Currency), To: string(req.ToStablecoin),
		FromAmount: req.Amount, ToAmount: eq.ToAmount, Rate: eq.ExchangeRate, ExpiresAt: eq.ExpiresAt, Preview: pv.ToAmount}, nil
}

func (h *Handler) keepQuote(r *http.Request, q swapQuote) {
	if h.Sessions == nil {
		return
	}
	b, err := json.Marshal(q)
	if err != nil {
		return
	}
	h.Sessions.Put(r.Context(), sessionSwapQuote, string(b))
}

// quoteFor returns the viewer's quote for this swap, or says in words why
// the swap cannot be proposed at it: none asked for, another swap's, or
// expired.
func (h *Handler) quoteFor(r *http.Request, req proposalRequest) (swapQuote, string) {
	id := r.PostFormValue("quote_id")
	var q swapQuote
	if h.Sessions != nil && id != "" {
		if s := h.Sessions.GetString(r.Context(), sessionSwapQuote); s != "" {
			_ = json.Unmarshal([]byte(s), &q)
		}
	}
	switch {
	case id == "" || q.QuoteID == "":
		return q, "Get a quote first: it shows what the swap will deliver before it is proposed."
	case q.QuoteID != id:
		return q, "This quote was replaced by a newer one you asked for; get a quote again."
	case q.WalletID != req.WalletID || q.From != string(req.Currency) || q.To != string(req.ToStablecoin) || !q.FromAmount.Equal(req.Amount):
		return q, "The quote was for another swap (wallet, currencies or amount changed since); get a quote for this one."
	case !h.clock().Before(q.ExpiresAt):
		return q, "The quote expired at " + views.DateTime(r.Context(), q.ExpiresAt) + "; get a new quote. Nothing was sent."
	}
	return q, ""
}
