package moneytest

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A cash order form sent again while its first post is still with the API
// (a double click: the browser shows the second answer) says so and
// offers the same form, under the same token: sending it again opens the
// one order once it is made, never a second order.
func TestMoneyOutCashFormSentAgainWhileInFlightNeverMakesASecondOrder(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	form := webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"}, "price": {"10"},
		"price_currency": {"USD"}, "description": {"Field office float"}})
	tok := form.Get("form_token")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.CashFundRoute,
		"latencyMs": 1500, "times": 1})

	first := make(chan int, 1)
	go func() {
		resp := env.PostForm(c, "/money-out/cash/fund", form)
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	webtest.WaitFor(t, "the first post to begin its action", 10*time.Second, func() bool {
		a, err := env.Store.ActionByKey(context.Background(), "form:"+tok)
		return err == nil && a.State == store.ActionBegun
	})
	resp := env.PostForm(c, "/money-out/cash/fund", form)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "error-summary")+doc.Text(), "already sent") {
		t.Fatalf("the second post: %d", resp.StatusCode)
	}
	again := doc.Find(`[data-testid="cash-fund-form"] input[name="form_token"]`).AttrOr("value", "")
	if again != tok {
		t.Fatalf("the form shown while the first post is in flight carries token %q, not the one sent (%q): sending it would open a second order", again, tok)
	}
	if code := <-first; code != http.StatusCreated {
		t.Fatalf("the first post: %d", code)
	}

	// The form as shown, sent again: the order already made, not a new one.
	form.Set("form_token", again)
	resp = env.PostForm(c, "/money-out/cash/fund", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/money-out/cash/") {
		t.Fatalf("the form sent again: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.CashFundRoute); n != 1 {
		t.Fatalf("%d cash orders asked for one form", n)
	}
}

// The cash orders' export writes a price as a plain decimal, as every
// export writes amounts, not as the page groups it ("1,000.50").
func TestMoneyOutCashCSVWritesPlainDecimals(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	resp := env.PostForm(c, "/money-out/cash/fund", webtest.CashForm(t, env, c, "fund", url.Values{"wallet_id": {usd}, "country": {"MX"},
		"price": {"1,000.5"}, "price_currency": {"USD"}, "description": {"Field office float"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("fund: %d", resp.StatusCode)
	}
	recs, err := csv.NewReader(strings.NewReader(webtest.ReadBody(t, env.Get(c, "/money-out/cash.csv")))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("csv: %v %v", recs, err)
	}
	if price := recs[1][slices.Index(recs[0], "price")]; price != "1000.50" {
		t.Fatalf("price %q, want 1000.50", price)
	}
}
