package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

const offrampRoute = "/v1/users/{userId}/wallets/crypto-offramp"

// The crypto offramp, the API's alternative crypto rail, goes the
// withdrawal's way: its own routes, the review with the address retyped,
// one request per form, and the owner's signature from a QR code.
func TestCryptoOfframpIsReviewedAndSentOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID

	doc := webtest.Doc(t, env.Get(c, "/treasury/withdrawal/routes?wallet_id="+url.QueryEscape(usd)+"&rail=offramp"))
	var routes []string
	doc.Find(`#f-route option`).Each(func(_ int, s *goquery.Selection) { routes = append(routes, s.AttrOr("value", "")) })
	if len(routes) == 0 || routes[0] == "" {
		t.Fatalf("offramp routes: %v", routes)
	}
	form, _ := webtest.WithdrawalForm(t, env, c, usd)
	form.Set("rail", "offramp")
	form.Set("route", routes[0])
	form.Set("address", webtest.WithdrawalDestination)
	resp := env.PostForm(c, "/treasury/withdrawal", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || webtest.TestID(doc, "review-rail") != "crypto offramp" {
		t.Fatalf("review: %d %q", resp.StatusCode, webtest.TestID(doc, "review-rail"))
	}
	if n := env.Sandbox.RequestCount("POST", offrampRoute) + env.Sandbox.RequestCount("POST", webtest.WithdrawalRoute); n != 0 {
		t.Fatalf("the review sent %d requests", n)
	}
	form.Set("confirm_tail", webtest.WithdrawalAddressTail(webtest.WithdrawalDestination))
	for range 2 { // a double click sends once
		resp = env.PostForm(c, "/treasury/withdrawal", form)
		resp.Body.Close()
	}
	if n, w := env.Sandbox.RequestCount("POST", offrampRoute), env.Sandbox.RequestCount("POST", webtest.WithdrawalRoute); n != 1 || w != 0 {
		t.Fatalf("offramp calls %d, withdrawal calls %d", n, w)
	}
	var id int64
	var rail string
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT id, rail FROM crypto_withdrawals`).Scan(&id, &rail); err != nil || rail != "offramp" {
		t.Fatalf("record: %s %v", rail, err)
	}
	doc = webtest.Doc(t, env.Get(c, "/treasury/withdrawal/"+strconv.FormatInt(id, 10)))
	if h1 := doc.Find("h1").Text(); !strings.HasPrefix(h1, "Crypto offramp ") {
		t.Fatalf("record page title %q", h1)
	}
	if doc.Find(`[data-testid="sign-state"]`).Length() == 0 && doc.Find(`[data-testid="sign-link"]`).Length() == 0 {
		t.Fatal("the record page shows no signing panel")
	}
}
