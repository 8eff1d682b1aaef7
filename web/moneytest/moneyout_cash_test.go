package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// LATAM cash: the price-currency rule refused before any call; a pay-in
// shows the provider's page and, once paid, credits the wallet; a pay-out
// is created once for five posts of one form, its signature goes to the
// device, and the pick-up debits the wallet. Other roles get 403.
func TestMoneyOutCashFundAndSend(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	treasury := env.Demo.TreasuryUserID
	before := webtest.CoinBalance(t, env, treasury, "USDB")

	// A fresh form prices in the first wallet's currency, and a price
	// currency left empty is the chosen wallet's.
	page := webtest.Doc(t, env.Get(c, "/money-out/cash"))
	first, _, _ := strings.Cut(strings.TrimSpace(page.Find(`#cash-fund-wallet option`).First().Text()), " ")
	if got := page.Find(`#cash-fund-currency option[selected]`).AttrOr("value", ""); first == "" || got != first {
		t.Errorf("fresh form: price currency %q, first wallet %q", got, first)
	}
	resp := env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"},
		"price": {"0"}, "price_currency": {""}, "description": {"Field office float"}}))
	doc := webtest.Doc(t, resp)
	if got := webtest.TestID(doc, "cash-fund-currency-error"); got != "" || doc.Find(`#cash-fund-currency option[value="USD"][selected]`).Length() != 1 {
		t.Errorf("empty price currency with the USDB wallet: error %q, USD selected %d", got, doc.Find(`#cash-fund-currency option[value="USD"][selected]`).Length())
	}

	// The price must be in the wallet's own currency.
	bad := webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"}, "price": {"250.00"}, "price_currency": {"MXN"},
		"description": {"Field office float"}})

	resp = env.PostForm(c, "/money-out/cash/fund", bad)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "cash-fund-currency-error"), "USD for a USDB wallet") ||
		doc.Find("#cash-fund-price").AttrOr("value", "") != "250.00" {
		t.Fatalf("mismatch: %d %q", resp.StatusCode, webtest.TestID(doc, "cash-fund-currency-error"))
	}
	webtest.FieldProblem(t, doc, "cash-fund-currency", "USD for a USDB wallet")
	noMinorUnits(t, doc, "the cash page")
	// An invalid price: at the price field and in the summary, everything typed kept.
	resp = env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"},
		"price": {"1,50"}, "price_currency": {"USD"}, "description": {"Field office float"}}))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad price: %d", resp.StatusCode)
	}
	webtest.FieldProblem(t, doc, "cash-fund-price", "")
	if doc.Find("#cash-fund-price").AttrOr("value", "") != "1,50" || doc.Find("#cash-fund-description").AttrOr("value", "") != "Field office float" ||
		doc.Find(`#cash-fund-country option[value="MX"][selected]`).Length() != 1 || doc.Find(`#cash-fund-wallet option[value="`+usd+`"][selected]`).Length() != 1 {
		t.Fatal("the typed pay-in was not kept")
	}
	for _, tc := range []url.Values{
		{"country": {"US"}}, {"price": {"1,50"}}, {"price": {"0"}}, {"description": {""}}, {"wallet_id": {"nope"}},
	} {
		f := url.Values{"wallet_id": {usd}, "country": {"MX"}, "price": {"10"}, "price_currency": {"USD"}, "description": {"x"}}
		for k, v := range tc {
			f[k] = v
		}
		resp := env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", f))
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%v: %d", tc, resp.StatusCode)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.CashFundRoute); n != 0 {
		t.Fatalf("%d pay-ins sent for bad forms", n)
	}

	// A pay-in: the provider's https page, opened in a new tab.
	resp = env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"},
		"price": {"250.00"}, "price_currency": {"USD"}, "description": {"Field office float"}}))
	doc = webtest.Doc(t, resp)
	link := doc.Find(`[data-testid="cash-redirect"]`)
	if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(link.AttrOr("href", ""), "https://") || link.AttrOr("rel", "") != "noopener noreferrer" {
		t.Fatalf("pay-in: %d %q", resp.StatusCode, link.AttrOr("href", ""))
	}
	order := doc.Find(`[data-testid="cash-order-link"]`).AttrOr("title", "")
	if doc := webtest.Doc(t, env.Get(c, "/money-out/cash")); doc.Find(`[data-testid="cash-order"][data-type="FUND"]`).Length() != 1 {
		t.Fatal("the pay-in is not among the active orders")
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/cash/orders/"+order+"/pay", nil)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", nil)
	orderDoc := webtest.Doc(t, env.Get(c, "/money-out/cash/"+order))
	if got, words := orderDoc.Find(`[data-testid="cash-order-status"]`).AttrOr("data-state", ""), webtest.TestID(orderDoc, "cash-order-status"); got != "COMPLETED" || words != "completed" {
		t.Fatalf("pay-in status %q shown as %q", got, words)
	}
	if got := webtest.CoinBalance(t, env, treasury, "USDB"); !got.Equal(before.Add(decimal.RequireFromString("250"))) {
		t.Fatalf("after the pay-in: %s, want %s + 250", got, before)
	}

	// A pay-out: five posts of one form make one order.
	form := webtest.CashForm(t, env, c, "send", url.Values{"wallet_id": {usd}, "country": {"CO"}, "price": {"75.50"}, "price_currency": {"USD"},
		"description": {"Courier pay"}})

	got := env.PostFormAtOnce(c, "/money-out/cash/send", form, 5)
	if n := env.Sandbox.RequestCount("POST", webtest.CashSendRoute); n != 1 {
		t.Fatalf("%d pay-outs sent for one form", n)
	}
	if n := len(webtest.AuditRows(t, env, "cash_order.send")); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
	if got[http.StatusCreated] == 0 {
		t.Fatal("no post of the form answered with the created order")
	}
	resp = env.PostForm(c, "/money-out/cash/send", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusConflict {
		t.Fatalf("the form again: %d", resp.StatusCode)
	}

	// The owner's device signs the pay-out; the pick-up debits the wallet.
	a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token"))
	if err != nil || a.State != store.ActionDone {
		t.Fatalf("action %+v %v", a, err)
	}
	resp = env.PostForm(c, "/money-out/cash/send", webtest.CashForm(t, env, c, "send", url.Values{"wallet_id": {usd}, "country": {"CO"},
		"price": {"10"}, "price_currency": {"USD"}, "description": {"Second"}}))
	doc = webtest.Doc(t, resp)
	linkValue := doc.Find(`[data-testid="sign-link"]`).AttrOr("value", "")
	u, err := url.Parse(linkValue)
	if resp.StatusCode != http.StatusCreated || err != nil || !strings.HasPrefix(u.Path, "/sign/") {
		t.Fatalf("pay-out page: %d link %q", resp.StatusCode, linkValue)
	}
	afterFund := webtest.CoinBalance(t, env, treasury, "USDB")
	code, req := webtest.DeviceGet(t, env, u.Path)
	if code != http.StatusOK || req["kind"] != "workflow" {
		t.Fatalf("device GET: %d %v", code, req)
	}
	code, ans := webtest.DevicePost(t, env, u.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex())
	if code != http.StatusOK {
		t.Fatalf("device POST: %d %v", code, ans)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", nil)
	if got := webtest.CoinBalance(t, env, treasury, "USDB"); !got.Equal(afterFund.Sub(decimal.RequireFromString("10"))) {
		t.Fatalf("after the pick-up: %s, want %s - 10", got, afterFund)
	}

	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		o, _ := env.SignedIn(role)
		for _, p := range []string{"/money-out/cash/fund", "/money-out/cash/send"} {
			resp := env.PostForm(o, p, url.Values{"wallet_id": {usd}, "country": {"MX"}, "price": {"1"}, "price_currency": {"USD"}, "description": {"x"}})
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: %d", role, p, resp.StatusCode)
			}
		}
	}
}
