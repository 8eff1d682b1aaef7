package sandbox

import (
	"net/http"
	"strings"

	"github.com/shopspring/decimal"
)

// exchangeSpread is taken from every exchange (0.3%): the sandbox rate is
// the fixed USD prices of the tokens less this spread.
var exchangeSpread = decimal.RequireFromString("0.003")

// exchangeRate is units of to per unit of from, deterministic.
func exchangeRate(from, to string) decimal.Decimal {
	return usdValue[from].Div(usdValue[to]).Mul(decimal.NewFromInt(1).Sub(exchangeSpread)).RoundDown(8)
}

type exchangeInput struct {
	FromCurrency string `json:"fromCurrency"`
	ToCurrency   string `json:"toCurrency"`
	Amount       string `json:"amount"`
	QuoteID      string `json:"quoteId"`
	Preview      bool   `json:"preview"`
}

func (in exchangeInput) check() (decimal.Decimal, []string) {
	var msgs []string
	if !supported(in.FromCurrency) {
		msgs = append(msgs, "fromCurrency must be one of "+stablecoinList())
	}
	if !supported(in.ToCurrency) {
		msgs = append(msgs, "toCurrency must be one of "+stablecoinList())
	} else if in.ToCurrency == in.FromCurrency {
		msgs = append(msgs, "toCurrency must differ from fromCurrency")
	}
	amount := positiveAmount("amount", in.Amount, &msgs)
	return amount, msgs
}

// exchangeQuoteCall implements POST .../exchange/quote: a firm quote, valid
// for 30 seconds of sandbox time.
func (c *call) exchangeQuoteCall() (any, error) {
	var in exchangeInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	amount, msgs := in.check()
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	rate := exchangeRate(in.FromCurrency, in.ToCurrency)
	q := &exchangeQuote{ID: c.s.newID(), UserID: c.user.ID, From: in.FromCurrency, To: in.ToCurrency, Amount: amount,
		ToAmount: amount.Mul(rate).RoundDown(6), Rate: rate, ExpiresAt: c.s.now().Add(exchangeQuoteTTL)}
	c.s.rails().Quotes[q.ID] = q
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{
		"quoteId": q.ID, "fromCurrency": q.From, "toCurrency": q.To, "fromAmount": q.Amount.String(),
		"toAmount": q.ToAmount.String(), "exchangeRate": q.Rate.String(), "expiresAt": iso(q.ExpiresAt),
	}}, nil
}

// convertCall implements POST .../exchange/convert: a preview, or a
// conversion between two of the user's wallets that the owner key signs
// (signatureRequest) and that completes on submit-signature.
func (c *call) convertCall() (any, error) {
	var in exchangeInput
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	amount, msgs := in.check()
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	rate := exchangeRate(in.FromCurrency, in.ToCurrency)
	if id := strings.TrimSpace(in.QuoteID); id != "" {
		q := c.s.rails().Quotes[id]
		switch {
		case q == nil || q.UserID != c.user.ID:
			return nil, notFound("Quote not found")
		case q.Used:
			return nil, badRequest("Quote has already been used")
		case c.s.now().After(q.ExpiresAt):
			return nil, badRequest("Quote has expired: request a new quote")
		case q.From != in.FromCurrency || q.To != in.ToCurrency || !q.Amount.Equal(amount):
			return nil, validation([]string{"quoteId does not match fromCurrency, toCurrency and amount"})
		}
		rate = q.Rate
		if !in.Preview {
			q.Used = true
		}
	}
	toAmount := amount.Mul(rate).RoundDown(6)
	out := map[string]any{
		"fromCurrency": in.FromCurrency, "toCurrency": in.ToCurrency, "fromAmount": amount.String(),
		"toAmount": toAmount.String(), "exchangeRate": rate.String(), "preview": in.Preview,
	}
	if in.Preview {
		return map[string]any{"data": out}, nil
	}
	from := c.s.userWallet(c.user.ID, in.FromCurrency)
	to := c.s.userWallet(c.user.ID, in.ToCurrency)
	switch {
	case from == nil:
		return nil, badRequest("User has no " + in.FromCurrency + " smart wallet")
	case to == nil:
		return nil, badRequest("User has no active account in " + in.ToCurrency)
	case from.Balance.LessThan(amount):
		return nil, badRequest("Insufficient balance: " + from.Balance.String() + " " + from.Currency + " available, " + amount.String() + " needed")
	}
	cv := &conversion{ID: c.s.newID(), UserID: c.user.ID, From: in.FromCurrency, To: in.ToCurrency, Amount: amount, ToAmount: toAmount,
		Rate: rate, Status: "awaiting_signature"}
	wf := c.s.newWorkflow(from, wfConvert, cv.ID, amount, in.ToCurrency)
	cv.WorkflowID = wf.ID
	c.s.rails().Conversions[cv.ID] = cv
	out["id"] = cv.ID
	out["status"] = cv.Status
	out["signatureRequest"] = signatureRequestJSON(wf)
	c.status = http.StatusCreated
	return map[string]any{"data": out}, nil
}

func (s *Server) convertSigned(wf *workflow, from *wallet) error {
	cv := s.rails().Conversions[wf.RefID]
	if cv == nil {
		return notFound(msgItemNotFound)
	}
	to := s.userWallet(cv.UserID, cv.To)
	if to == nil {
		return badRequest("User has no active account in " + cv.To)
	}
	if err := debit(from, cv.Amount); err != nil {
		return err
	}
	to.Balance = to.Balance.Add(cv.ToAmount)
	cv.Status, wf.Status = "completed", wfCompleted
	return nil
}
