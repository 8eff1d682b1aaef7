package sandbox

import (
	"testing"
	"time"
)

// spec: "POST /exchange/quote | firm time-boxed quote"; "POST
// /exchange/convert | convert or preview between wallet currencies outside
// the proposal flow".
func TestExchange_QuoteIsFirmAndTimeBoxed(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	usd := e.wallet(keyA, id, "USDB")
	eur := e.wallet(keyA, id, "EURe")
	e.deposit(usd.id, "100")
	q := e.want(e.call("POST", "/v1/users/"+id+"/exchange/quote", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50"}), 201).data()
	again := e.want(e.call("POST", "/v1/users/"+id+"/exchange/quote", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50"}), 201).data()
	if q["exchangeRate"] != again["exchangeRate"] || q["toAmount"] != "46.157407" {
		t.Fatalf("rates are not deterministic: %v %v", q, again)
	}
	e.want(e.call("POST", "/v1/users/"+id+"/exchange/quote", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "USDB", "amount": "50"}), 400)
	// A preview moves nothing.
	p := e.want(e.call("POST", "/v1/users/"+id+"/exchange/convert", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50", "preview": true}), 200).data()
	if p["preview"] != true || p["signatureRequest"] != nil || e.balance(keyA, id, usd.id) != "100" {
		t.Fatalf("preview %v", p)
	}
	// The quote is time-boxed.
	e.advance(31 * time.Second)
	e.want(e.call("POST", "/v1/users/"+id+"/exchange/convert", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50", "quoteId": q["quoteId"]}), 400)
	fresh := e.want(e.call("POST", "/v1/users/"+id+"/exchange/quote", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50"}), 201).data()
	c := e.want(e.call("POST", "/v1/users/"+id+"/exchange/convert", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50", "quoteId": fresh["quoteId"]}), 201).data()
	e.want(e.submitWorkflow(keyA, id, c["signatureRequest"].(map[string]any), usd.key), 200)
	if e.balance(keyA, id, usd.id) != "50" || e.balance(keyA, id, eur.id) != "46.157407" {
		t.Fatalf("balances %s %s", e.balance(keyA, id, usd.id), e.balance(keyA, id, eur.id))
	}
	// A used quote cannot be used again.
	e.want(e.call("POST", "/v1/users/"+id+"/exchange/convert", keyA, map[string]any{"fromCurrency": "USDB", "toCurrency": "EURe", "amount": "50", "quoteId": fresh["quoteId"]}), 400)
}
