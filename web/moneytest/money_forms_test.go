package moneytest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// noMinorUnits checks a money page never speaks of minor units.
func noMinorUnits(t *testing.T, doc *goquery.Document, page string) {
	t.Helper()
	if strings.Contains(strings.ToLower(doc.Text()), "minor unit") {
		t.Fatalf("%s speaks of minor units", page)
	}
}

// TestMoneyPagesSpeakPeoplesWords: no money page speaks of minor units,
// and every amount field names its currency.
func TestMoneyPagesSpeakPeoplesWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	for _, page := range []string{"/money-out", "/money-out/payout", "/money-out/sepa", "/money-out/mexico", "/money-out/nigeria",
		"/money-out/cash", "/treasury", "/treasury/withdrawal", "/treasury/funding", "/payroll", "/payroll/new", "/actions?all=1"} {
		resp := env.Get(c, page)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", page, resp.StatusCode)
		}
		noMinorUnits(t, doc, page)
		doc.Find(`input[name="amount"], input[name="price"]`).Each(func(_ int, s *goquery.Selection) {
			id := s.AttrOr("id", "")
			label := strings.TrimSpace(doc.Find(`label[for="` + id + `"]`).Text())
			if label == "" || !strings.Contains(label, "(") && !strings.Contains(label, "currency") {
				t.Errorf("%s: amount #%s's label %q does not say its currency", page, id, label)
			}
		})
	}
}

// TestMoneyDetailPagesLeadBackToTheirListAsLeft: a detail page's way back
// keeps the list's filter when the person came from it, and is the plain
// list otherwise (another page, another site).
func TestMoneyDetailPagesLeadBackToTheirListAsLeft(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	id := webtest.CreatePayroll(t, env, c, "employee,amount,currency,description\n"+env.DemoEmployee("Emily").Email+",100,USD,a\n")
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	resp := env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"},
		"price": {"25.00"}, "price_currency": {"USD"}, "description": {"Float"}}))
	order := webtest.Doc(t, resp).Find(`[data-testid="cash-order-link"]`).AttrOr("title", "")
	if resp.StatusCode != http.StatusCreated || order == "" {
		t.Fatalf("pay-in: %d", resp.StatusCode)
	}
	// The list and the request ledger say where a run came from and what a
	// request was in words, not the stored codes.
	doc := webtest.Doc(t, env.Get(c, "/payroll"))
	if got := strings.TrimSpace(doc.Find(`[data-testid="payroll-run"] td`).Eq(2).Text()); got != "CSV file" {
		t.Errorf("payroll run source %q", got)
	}
	doc = webtest.Doc(t, env.Get(c, "/actions?all=1"))
	if got := strings.TrimSpace(doc.Find(`td[data-kind="cash_order.fund"]`).Text()); got != "cash pay-in" {
		t.Errorf("the pay-in's request reads %q", got)
	}
	for _, tc := range []struct{ page, list string }{
		{fmt.Sprintf("/payroll/%d", id), "/payroll"},
		{"/money-out/cash/" + order, "/money-out/cash"},
	} {
		for _, ref := range []struct{ referer, want string }{
			{env.URL(tc.list + "?state=sent&before=9"), tc.list + "?state=sent&before=9"},
			{env.URL(tc.list), tc.list},
			{env.URL("/approvals?state=open"), tc.list},
			{"https://elsewhere.example" + tc.list + "?state=sent", tc.list},
			{"", tc.list},
		} {
			h := http.Header{}
			if ref.referer != "" {
				h.Set("Referer", ref.referer)
			}
			resp := env.Do(c, http.MethodGet, tc.page, nil, h)
			doc := webtest.Doc(t, resp)
			if got := doc.Find(`[data-testid="back-link"]`).AttrOr("href", ""); resp.StatusCode != http.StatusOK || got != ref.want {
				t.Errorf("%s from %q: %d back to %q, want %q", tc.page, ref.referer, resp.StatusCode, got, ref.want)
			}
		}
	}
}
