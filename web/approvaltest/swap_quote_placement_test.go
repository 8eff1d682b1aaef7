package approvaltest

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The swap quote arrives where the person is looking: htmx gets the swap
// panel alone, with the quote under the form, to put in place of the
// panel; without JavaScript the page opens at the quote.
func TestSwapQuoteArrivesNextToTheSwapForm(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	doc := webtest.Doc(t, env.Get(c, "/treasury"))
	button := doc.Find(`#swap [data-testid="swap-quote-submit"]`)
	if a, _ := button.Attr("formaction"); a != "/treasury/swap/quote#swap-quote" {
		t.Errorf("without JavaScript the quote opens at %q", a)
	}
	if hx, _ := button.Attr("hx-target"); hx != "#swap" {
		t.Errorf("htmx puts the quote in %q", hx)
	}

	form := webtest.WithTreasuryFormToken(t, env, c, "swap", url.Values{"wallet_id": {usd}, "to_stablecoin": {"CNGN"}, "amount": {"100"}})
	resp := env.Do(c, http.MethodPost, "/treasury/swap/quote", strings.NewReader(form.Encode()), http.Header{
		"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}, "Hx-Target": {"swap"}})
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("quote: %d %v", resp.StatusCode, err)
	}
	page := strings.TrimSpace(string(body))
	if !strings.HasPrefix(page, `<section class="panel" id="swap">`) || strings.Contains(page, "<h1") {
		t.Fatalf("htmx got more than the swap panel:\n%.300s", page)
	}
	if !strings.Contains(page, `data-testid="quote-from"`) || !strings.Contains(page, `data-testid="swap-submit"`) {
		t.Errorf("the panel has no quote or no proposal button:\n%s", page)
	}
}
