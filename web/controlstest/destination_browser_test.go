package controlstest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// In the browser: a finance approver adds a destination, an owner
// confirms it, the app's clock passes the cooling-off period, and the
// treasury's USDB is withdrawn to it for signing.
func TestBrowserDestinationAddedConfirmedAndPaid(t *testing.T) {
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now})
	ctx := webtest.Browser(t)
	finance := env.CreateStaff(store.RoleFinanceApprover)
	owner := env.CreateStaff(store.RoleOwner)
	const address = "0x52908400098527886E0F7030069857D2E4169EE7"
	state := `[data-testid="book"] [data-testid="destination-state"]`
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			webtest.Screenshot(t, ctx, "controls-failed")
			t.Fatal(err)
		}
		return s
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			webtest.Screenshot(t, ctx, "controls-failed")
			t.Fatalf("%s: %v", what, err)
		}
	}
	nav := chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`))

	do("add", webtest.BrowserSignIn(env.URL("/controls"), finance), chromedp.WaitVisible(chromedp.ID("dest-kind")),
		chromedp.SetValue(chromedp.ID("dest-kind"), "crypto"),
		chromedp.SendKeys(chromedp.ID("dest-name"), "Cold storage"),
		chromedp.SendKeys(chromedp.ID("dest-value"), address),
		chromedp.Click(chromedp.CSS(`[data-testid="destination-add"]`)),
		chromedp.WaitVisible(chromedp.CSS(state)))
	if got := text(state); !strings.Contains(got, "Waiting for another person") {
		t.Fatalf("after adding: %q", got)
	}
	do("sign out", chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)), chromedp.WaitVisible(chromedp.ID("email")))

	do("confirm", webtest.BrowserSignIn(env.URL("/controls"), owner), chromedp.WaitVisible(chromedp.CSS(`[data-testid="destination-confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="destination-confirm"]`)),
		// The page after the post has no confirm button (the owner confirmed).
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="destination-confirm"]`)), chromedp.WaitVisible(chromedp.CSS(state)))
	if got := text(state); !strings.Contains(got, "usable in") {
		t.Fatalf("after confirming: %q", got)
	}
	webtest.Screenshot(t, ctx, "controls")

	// A day on the app's clock: the session has ended, so sign in again.
	clk.Advance(24*time.Hour + time.Minute)
	do("trusted", webtest.BrowserSignIn(env.URL("/controls"), owner), nav, chromedp.WaitVisible(chromedp.CSS(state)))
	if got := text(state); !strings.Contains(got, "Trusted since") {
		t.Fatalf("after the cooling-off: %q", got)
	}
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	do("withdraw", chromedp.Navigate(env.URL("/treasury/withdrawal?wallet_id="+usd)),
		chromedp.WaitVisible(chromedp.ID("f-address")),
		chromedp.SetValue(chromedp.ID("f-route"), "base:USDC"),
		chromedp.SendKeys(chromedp.ID("f-address"), address),
		chromedp.Click(chromedp.CSS(`[data-testid="withdrawal-form"] [data-testid="withdrawal-submit"]`)),
		chromedp.WaitVisible(chromedp.ID("f-confirm_tail")),
		chromedp.SendKeys(chromedp.ID("f-confirm_tail"), webtest.WithdrawalAddressTail(address)),
		chromedp.Click(chromedp.CSS(`[data-testid="withdrawal-confirm-form"] [data-testid="withdrawal-submit"]`)),
		chromedp.WaitVisible(chromedp.ID("sign-qr")))
	if n := webtest.WithdrawalRows(t, env); n != 1 {
		t.Fatalf("withdrawals stored: %d", n)
	}
}
