package browsertest

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserMoneyOutMexicoOnePageToTheEnd: in a browser, the owner asks
// for a quote (its countdown ticks), the device signs the allowance from
// the QR code's link, the page's own polling brings the burn request's
// button, the second QR code is signed, and the page follows the order to
// completed without a reload.
func TestBrowserMoneyOutMexicoOnePageToTheEnd(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := webtest.Browser(t)
	owner := env.CreateStaff(store.RoleOwner)
	webtest.MexicoReady(t, env)
	browserLogin(t, env, ctx, owner)

	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/money-out/mexico")),
		chromedp.WaitVisible(chromedp.ID("f-amount")),
		chromedp.SendKeys(chromedp.ID("f-amount"), "300"),
		chromedp.Click(chromedp.CSS(`[data-testid="mx-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "mexico-quote-failed")
		t.Fatal(err)
	}
	// The countdown is counted down by the page's script: "in 9 min 41 s".
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`/^in ([0-9]+ min )?[0-9]+ s$/.test(document.querySelector('[data-testid="mx-quote-countdown"]').textContent)`)); err != nil {
		t.Fatalf("countdown: %v", err)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("sign-link").value`))
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := webtest.SignOnDevice(t, env, first, "treasury"); code != http.StatusOK {
		t.Fatalf("first signature: %d", code)
	}
	// The steps poll the order: the burn request's button appears.
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-link-submit"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="mx-link-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-step-burn"][data-state="waiting"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "mexico-burn-failed")
		t.Fatal(err)
	}
	burn, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("sign-link").value`))
	if err != nil || burn == first {
		t.Fatalf("burn link %q: %v", burn, err)
	}
	if code, _ := webtest.SignOnDevice(t, env, burn, "treasury"); code != http.StatusOK {
		t.Fatalf("burn signature: %d", code)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-order-status"][data-state="funded"]`))); err != nil {
		webtest.Screenshot(t, ctx, "mexico-funded-failed")
		t.Fatal(err)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-order-status"][data-state="completed"]`))); err != nil {
		webtest.Screenshot(t, ctx, "mexico-completed-failed")
		t.Fatal(err)
	}
	var orders int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM sepa_mxn_orders WHERE status = 'completed'`).Scan(&orders); err != nil || orders != 1 {
		t.Fatalf("%d completed orders: %v", orders, err)
	}
}
