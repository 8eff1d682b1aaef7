package fundingtest

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// uuid finds an id a person should not have to read.
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// With an issued deposit address and a route in force, the funding page at
// 390 px does not scroll sideways, the routes are cards, and no id or ISO
// instant is on screen.
func TestBrowserFundingPageFitsAPhone(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	setup, _ := env.SignedIn(store.RoleOwner)
	usdb := webtest.TreasuryWallet(t, env, "USDB")
	form := formOf(t, assetForm(t, page(t, env, setup), "ethereum", "USDC").Find(`[data-testid="funding-asset-form"]`))
	if status, _ := post(t, env, setup, "/treasury/funding/deposit-address", form); status != http.StatusSeeOther {
		t.Fatalf("address: %d", status)
	}
	route := webtest.WithFormToken(url.Values{"holder": {demoUser(t, env, "Emily")}, "rail": {"USD"}, "wallet_id": {usdb.ID}})
	if status, _ := post(t, env, setup, "/treasury/funding/routes", route); status != http.StatusSeeOther {
		t.Fatalf("route: %d", status)
	}

	owner := env.CreateStaff(store.RoleOwner)
	ctx := webtest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, webtest.BrowserSignIn(env.URL(webtest.FundingPath), owner),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="funding-route"]`))); err != nil {
		t.Fatal(err)
	}
	webtest.Screenshot(t, ctx, "funding-phone")
	over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
	if err != nil {
		t.Fatal(err)
	}
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector('[data-testid="funding-route"]')).display === "block"`))
	if err != nil {
		t.Fatal(err)
	}
	if over > 0 || !cards {
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('main *')]
			.filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth).slice(0, 5)
			.map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().width)).join(", ")`))
		t.Errorf("at 390 px the page scrolls sideways by %d px (%s); routes as cards: %v", over, wide, cards)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('main').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if id := uuid.FindString(text); id != "" {
		t.Errorf("an id on screen: %s", id)
	}
	if at := isoInstant.FindString(text); at != "" {
		t.Errorf("an ISO instant on screen: %s", at)
	}
}
