package browsertest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserFundingCopyButton opens the funding page: the copy buttons,
// hidden in the HTML, are shown by app.js, and one click copies the wallet's
// address (or, where the browser keeps the clipboard from the page, selects
// it for the person to copy). The USDB wallet, which receives crypto, comes
// first.
func TestBrowserFundingCopyButton(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := webtest.Browser(t)
	owner := env.CreateStaff(store.RoleOwner)
	browserLogin(t, env, ctx, owner)

	address := webtest.TreasuryWallet(t, env, "USDB").Address
	btn := `[data-testid="funding-wallet"] button[data-copy]`
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL(webtest.FundingPath)),
		chromedp.WaitVisible(chromedp.CSS(btn)),
		chromedp.Click(chromedp.CSS(btn)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "funding-copy-failed")
		t.Fatal(err)
	}
	copied := `(() => {
		const b = document.querySelector('` + btn + `');
		const el = document.querySelector(b.getAttribute("data-copy"));
		return b.textContent === "Copied" || window.getSelection().toString().trim() === el.textContent.trim();
	})()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](copied)); err != nil {
		webtest.Screenshot(t, ctx, "funding-copy-failed")
		t.Fatalf("the copy button did nothing: %v", err)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="funding-wallet-address"]').textContent.trim()`))
	if err != nil || first != address {
		t.Fatalf("the first address shown is %q (%v), want the USDB wallet's %q: the wallet that receives crypto comes first", first, err, address)
	}
	webtest.Screenshot(t, ctx, "funding")
}
