package sandbox

import (
	"strings"
	"testing"
)

// spec: LATAM cash: "priceCurrency (required, fiat code mapped to the
// wallet stablecoin ...; must match the wallet's currency)"; fund "response
// is the provider order including redirect_url"; send "response has
// signatureRequest"; "The list endpoint excludes completed, cancelled and
// expired orders".
func TestCash_OrdersRulesAndList(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "MEXe")
	e.deposit(w.id, "300")
	body := func(price, cur string) map[string]any {
		return map[string]any{"smartWalletId": w.id, "country": "MX", "price": price, "priceCurrency": cur, "description": "Groceries"}
	}
	r := e.want(e.call("POST", "/v1/users/"+id+"/latam/cash/orders/fund", keyA, map[string]any{"country": "MEX", "price": "1.5.0", "priceCurrency": "XYZ"}), 400)
	for _, f := range []string{"smartWalletId", "country", "price", "priceCurrency", "description"} {
		if !strings.Contains(r.msg(), f) {
			t.Errorf("no message about %s: %s", f, r.raw)
		}
	}
	if r := e.want(e.call("POST", "/v1/users/"+id+"/latam/cash/orders/fund", keyA, body("100", "USD")), 400); !strings.Contains(r.msg(), "must match the wallet's currency") {
		t.Fatalf("currency mismatch: %s", r.raw)
	}
	fund := e.want(e.call("POST", "/v1/users/"+id+"/latam/cash/orders/fund", keyA, body("100", "MXN")), 201).data()
	if fund["redirect_url"] == "" || fund["price_currency"] != "MXN" || fund["status"] != "CREATED" || fund["merchant_order_id"] == "" {
		t.Fatalf("fund order %v", fund)
	}
	send := e.want(e.call("POST", "/v1/users/"+id+"/latam/cash/orders/send", keyA, body("50", "MXN")), 201).data()
	if send["signatureRequest"] == nil {
		t.Fatalf("send order %v", send)
	}
	list := func(typ string) []any {
		return e.want(e.call("GET", "/v1/users/"+id+"/latam/cash/orders?type="+typ, keyA, nil), 200).list()
	}
	if len(list("FUND")) != 1 || len(list("SEND")) != 1 {
		t.Fatalf("lists %v %v", list("FUND"), list("SEND"))
	}
	e.want(e.call("GET", "/v1/users/"+id+"/latam/cash/orders?type=OTHER", keyA, nil), 400)
	// Fetch by record id or provider id.
	if got := e.want(e.call("GET", "/v1/users/"+id+"/latam/cash/orders/"+fund["id"].(string), keyA, nil), 200).data(); got["id"] != fund["id"] {
		t.Fatalf("fetch %v", got)
	}
	paid := e.want(e.call("POST", "/_sandbox/cash/orders/"+fund["id"].(string)+"/pay", "", nil), 200).data()
	if paid["status"] != "PAYMENT_STARTED" || len(list("FUND")) != 1 {
		t.Fatalf("paid order %v", paid)
	}
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if b := e.balance(keyA, id, w.id); b != "400" {
		t.Fatalf("after paid fund order %s", b)
	}
	e.want(e.submitWorkflow(keyA, id, send["signatureRequest"].(map[string]any), w.key), 200)
	if b := e.balance(keyA, id, w.id); b != "350" {
		t.Fatalf("after signed send order %s", b)
	}
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if len(list("FUND")) != 0 || len(list("SEND")) != 0 {
		t.Fatalf("completed orders listed: %v %v", list("FUND"), list("SEND"))
	}
	// Expired orders leave the list.
	e.want(e.call("POST", "/v1/users/"+id+"/latam/cash/orders/fund", keyA, body("10", "MXN")), 201)
	e.advance(25 * 60 * 60 * 1e9)
	if l := list("FUND"); len(l) != 0 {
		t.Fatalf("expired order listed: %v", l)
	}
}
