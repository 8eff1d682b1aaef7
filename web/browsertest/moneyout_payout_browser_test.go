package browsertest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestMoneyOutPayoutBrowserSignedThroughTheQRCode: a finance approver
// walks the bank payout wizard in a browser (a bank without branches), the
// review shows the USD decimal and what leaves the USDB wallet, the QR code on the
// page is decoded and cmd/device signs what it says, and the page follows
// the payout to completed by itself while the USDB balance falls by the
// amount.
func TestMoneyOutPayoutBrowserSignedThroughTheQRCode(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	ctx := webtest.Browser(t)
	device := buildDevice(t)
	keystore := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: keystore}); err != nil {
		t.Fatal(err)
	}
	_, s := env.SignedIn(store.RoleFinanceApprover)
	webtest.SettleInFlight(t, env)
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB")
	// The money controls pay only trusted destinations.
	webtest.TrustDestination(t, env, store.DestBankAccount, "12345678", "gbr-barclays")

	next := chromedp.Click(chromedp.CSS(`[data-testid="payout-next"]`))
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/money-out/payout"), s),
		chromedp.WaitVisible(chromedp.ID("f-country")),
		chromedp.SetValue(chromedp.ID("f-country"), "GBR"),
		next,
		chromedp.WaitVisible(chromedp.ID("f-bank_id")),
		chromedp.SetValue(chromedp.ID("f-bank_id"), "gbr-barclays"),
		next,
		chromedp.WaitVisible(chromedp.ID("f-account_number")),
		chromedp.SendKeys(chromedp.ID("f-account_number"), "12345678"),
		next,
		chromedp.WaitVisible(chromedp.ID("f-amount")),
		chromedp.SendKeys(chromedp.ID("f-amount"), "250.75"),
		next,
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="payout-review"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	review, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="payout-review-amount"]`)))
	if err != nil || review != "250.75 USD (USDB)" {
		t.Fatalf("review %q %v", review, err)
	}
	webtest.Screenshot(t, ctx, "payout-review")
	link, _ := webtest.ClickForSignQR(t, ctx, `[data-testid="payout-confirm"]`, "payout-sign-request")
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("sign-link").value`))
	if err != nil || shown != link || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") {
		t.Fatalf("QR says %q, page shows %q (%v)", link, shown, err)
	}

	// The device signs what the code says.
	out, err := exec.Command(device, "sign", "--keystore", keystore, "--yes", link).CombinedOutput()
	if err != nil {
		t.Fatalf("device: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "signed:") {
		t.Fatalf("device output:\n%s", out)
	}
	if got := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB"); !before.Sub(got).Equal(decimal.RequireFromString("250.75")) {
		t.Fatalf("USDB %s → %s, want a fall of 250.75", before, got)
	}
	webtest.SandboxControl(t, env, "POST", "/_sandbox/rails/settle", nil)

	// The page follows the payout to completed (htmx polling).
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="payout-state"][data-state="completed"]`))); err != nil {
		t.Fatalf("payout never completed on the page: %v", err)
	}
	// The sign panel, polling its own state, says completed too.
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-state"][data-state="completed"]`))); err != nil {
		t.Fatalf("sign panel never completed: %v", err)
	}
	webtest.Screenshot(t, ctx, "payout-completed")
}
