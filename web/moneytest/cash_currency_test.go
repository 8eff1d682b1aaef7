package moneytest

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The API's list of cash orders has no currency: an order the app created
// shows the wallet's, recorded then; one created elsewhere says so.
func TestCashOrdersShowTheirCurrency(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	resp := env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"},
		"price": {"120"}, "price_currency": {"USD"}, "description": {"Field office float"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("fund: %d", resp.StatusCode)
	}
	// An order another client of the API made.
	if _, err := env.API.CreateCashFundOrder(context.Background(), env.Demo.TreasuryUserID, apiclient.CashOrderRequest{
		SmartWalletID: usd, Country: "CO", Price: decimal.RequireFromString("80"), PriceCurrency: apiclient.Fiat("USD"), Description: "made elsewhere"}); err != nil {
		t.Fatal(err)
	}

	doc := webtest.Doc(t, env.Get(c, "/money-out/cash"))
	var got []string
	doc.Find(`[data-testid="cash-order"] [data-testid="cash-order-currency"]`).Each(func(_ int, cell *goquery.Selection) {
		got = append(got, strings.TrimSpace(cell.Text()))
	})
	slices.Sort(got)
	if want := []string{"USD", "not known: created outside the app"}; !slices.Equal(got, want) {
		t.Fatalf("currencies on the page: %q, want %q", got, want)
	}

	recs, err := csv.NewReader(strings.NewReader(webtest.ReadBody(t, env.Get(c, "/money-out/cash.csv")))).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("csv: %v %v", recs, err)
	}
	col := slices.Index(recs[0], "currency")
	if col < 0 {
		t.Fatalf("csv header %v has no currency", recs[0])
	}
	got = []string{recs[1][col], recs[2][col]}
	slices.Sort(got)
	if want := []string{"", "USD"}; !slices.Equal(got, want) {
		t.Fatalf("csv currencies %q, want %q", got, want)
	}
}
