package railstest

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/apiclient/ethsig"
	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserRailsFromTheFundingPage: in a browser, a finance approver
// starts on the funding page and, from the screens alone, takes the
// treasury to a completed SEPA payout and a completed Mexican offramp;
// cmd/device signs every QR code (the new wallets' owner proofs, the EUR
// provider's authorization, the payout, and the offramp's two signatures).
// The money that arrives from outside (the deposits) and the provider's
// decision (the sandbox's clock) are the sandbox's.
func TestBrowserRailsFromTheFundingPage(t *testing.T) {
	env := webtest.New(t, webtest.Options{SandboxOptions: sandbox.Options{SettleDelay: time.Millisecond}})
	ctx := webtest.BrowserFor(t, 3*time.Minute)
	device := buildDevice(t)
	keystore := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: keystore}); err != nil {
		t.Fatal(err)
	}
	owner := ethsig.KeyAddress(webtest.OwnerKey(t, env, "treasury")).Hex()
	approver := env.CreateStaff(store.RoleFinanceApprover)
	if err := chromedp.Do(ctx, webtest.BrowserSignIn(env.URL("/login"), approver), chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`))); err != nil {
		t.Fatalf("login: %v", err)
	}
	do := func(t *testing.T, name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		t.Log(name)
		if err := chromedp.Do(ctx, actions...); err != nil {
			webtest.Screenshot(t, ctx, name+"-failed")
			t.Fatalf("%s: %v", name, err)
		}
	}
	sign := func(t *testing.T, what string) {
		t.Helper()
		link, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("sign-link").value`))
		if err != nil || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") {
			t.Fatalf("%s: link %q: %v", what, link, err)
		}
		out, err := exec.Command(device, "sign", "--keystore", keystore, "--yes", link).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "signed:") {
			t.Fatalf("%s: device: %v\n%s", what, err, out)
		}
	}
	// newWallet follows the rail page's wallet step to the treasury page,
	// asks for the wallet, and has the device prove the key.
	newWallet := func(t *testing.T, rail, coin string) {
		t.Helper()
		do(t, rail+"-wallet",
			chromedp.Navigate(env.URL("/treasury/rails/"+rail)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="step-wallet"][data-state="next"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="step-wallet-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="wallet-form"]`)),
			chromedp.SetValue(chromedp.ID("wallet-currency"), coin),
			chromedp.SendKeys(chromedp.ID("wallet-owner"), owner),
			chromedp.Click(chromedp.CSS(`[data-testid="wallet-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
		)
		sign(t, coin+" owner proof")
		do(t, rail+"-wallet-created", chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-state"][data-state="completed"]`)))
	}
	// fund credits the new wallet from outside, then reads the balances
	// from the treasury page.
	fund := func(t *testing.T, coin, amount string) {
		t.Helper()
		w := webtest.TreasuryWallet(t, env, coin)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]any{"smartWalletId": w.ID, "amount": amount})
		do(t, coin+"-refresh",
			chromedp.Navigate(env.URL("/treasury")),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="balances-refresh"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="balances-refresh"]`)),
		)
		webtest.WaitFor(t, coin+" balance read", 20*time.Second, func() bool {
			w := webtest.TreasuryWallet(t, env, coin)
			return w.Balance.Valid && w.Balance.Decimal.IsPositive()
		})
	}
	level := `document.querySelector('#f-identity_level').value = "id-only"`

	t.Run("SEPA", func(t *testing.T) {
		do(t, "start-page",
			chromedp.Navigate(env.URL("/treasury/funding")),
			chromedp.Click(chromedp.CSS(`[data-testid="funding-rails-link"] a`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rail-eur"][data-state="next"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="rail-eur-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="step-wallet"]`)),
		)
		newWallet(t, "eur", "EURe")
		fund(t, "EURe", "500.00")
		do(t, "eur-start",
			chromedp.Navigate(env.URL("/treasury/rails/eur")),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="eur-start-form"]`)),
		)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](level)); err != nil {
			t.Fatal(err)
		}
		do(t, "eur-started",
			chromedp.Click(chromedp.CSS(`[data-testid="eur-start-form-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="step-authorize"][data-state="next"]`)),
		)
		// The code to type is one the page lists for the sandbox.
		code, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="eur-sandbox-codes"] code`)))
		if err != nil || code == "" {
			t.Fatalf("sandbox code %q: %v", code, err)
		}
		do(t, "eur-authorize",
			chromedp.SendKeys(chromedp.ID("f-code"), code),
			chromedp.Click(chromedp.CSS(`[data-testid="eur-authorize-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
		)
		sign(t, "EUR provider authorization")
		// The money controls send only to trusted destinations: the
		// payee's IBAN is in the book, added and confirmed beforehand.
		webtest.TrustDestination(t, env, store.DestIBAN, webtest.SEPAIBANElectronic, "")
		do(t, "eur-authorized",
			// The page re-reads itself once the device has signed.
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="step-authorize"][data-state="done"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="eur-send"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sepa-form"]`)),
			chromedp.SendKeys(chromedp.ID("f-amount"), "120.25"),
			chromedp.SendKeys(chromedp.ID("f-iban"), "DE89 3704 0044 0532 0130 00"),
			chromedp.SendKeys(chromedp.ID("f-beneficiary"), "Lena Schmidt"),
			chromedp.Click(chromedp.CSS(`[data-testid="sepa-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sepa-confirm"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="sepa-confirm"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
		)
		sign(t, "SEPA payout")
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
		do(t, "sepa-completed", chromedp.WaitVisible(chromedp.CSS(`[data-testid="sepa-order-state"][data-state="completed"]`)))
		webtest.Screenshot(t, ctx, "rails-sepa-completed")
	})

	t.Run("MexicanOfframp", func(t *testing.T) {
		do(t, "overview",
			chromedp.Navigate(env.URL("/treasury/rails")),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rail-eur"][data-state="ready"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="rail-mxn-go"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="step-wallet"]`)),
		)
		newWallet(t, "mxn", "MEXe")
		fund(t, "MEXe", "5000.00")
		do(t, "mxn-start", chromedp.Navigate(env.URL("/treasury/rails/mxn")), chromedp.WaitVisible(chromedp.CSS(`[data-testid="mxn-start-form"]`)))
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](level)); err != nil {
			t.Fatal(err)
		}
		do(t, "mxn-kyc",
			chromedp.Click(chromedp.CSS(`[data-testid="mxn-start-form-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="mxn-kyc-submit"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="mxn-kyc-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="step-verify"][data-state="next"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="mxn-launch-open"]`)),
		)
		// The button opens the provider's page in a new tab; here the
		// same page is opened in this tab (the sandbox's provider address
		// does not exist: fetching the link is the verification).
		do(t, "mxn-launch",
			chromedp.Navigate(env.URL("/treasury/rails/mxn/launch")),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rail-launch-continue"]`)),
		)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"duration": "10m"})
		do(t, "mxn-ready",
			chromedp.Navigate(env.URL("/treasury/rails/mxn")),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="mxn-clabe"][data-active="true"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="mxn-send"]`)),
			chromedp.WaitVisible(chromedp.ID("f-amount")),
			chromedp.SendKeys(chromedp.ID("f-amount"), "300"),
			chromedp.Click(chromedp.CSS(`[data-testid="mx-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
		)
		sign(t, "offramp allowance")
		do(t, "mxn-burn",
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-link-submit"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="mx-link-submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-step-burn"][data-state="waiting"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-qr"]`)),
		)
		sign(t, "offramp burn")
		// The burn funds the order; the sandbox settles it (funded, then
		// completed: with this test's settle delay the page may never
		// show funded).
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
		do(t, "mxn-completed", chromedp.WaitVisible(chromedp.CSS(`[data-testid="mx-order-status"][data-state="completed"]`)))
		webtest.Screenshot(t, ctx, "rails-mxn-completed")
	})

	// On a phone the task pages fit the screen: nothing scrolls sideways.
	t.Run("Phone", func(t *testing.T) {
		do(t, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		for _, p := range []string{"/treasury/rails", "/treasury/rails/eur", "/treasury/rails/mxn", "/treasury/rails/usd"} {
			do(t, p, chromedp.Navigate(env.URL(p)), chromedp.WaitVisible(chromedp.CSS(`h1`)))
			over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if over > 0 {
				webtest.Screenshot(t, ctx, "phone"+strings.ReplaceAll(p, "/", "-"))
				t.Errorf("%s at 390 px scrolls sideways by %d px", p, over)
			}
		}
		webtest.Screenshot(t, ctx, "rails-usd-phone")
	})

	var completed int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM sepa_mxn_orders WHERE status = 'completed'`).Scan(&completed); err != nil || completed != 2 {
		t.Fatalf("%d completed orders, want a SEPA payout and an offramp: %v", completed, err)
	}
}

// buildDevice builds cmd/device, the device stand-in the journey runs.
func buildDevice(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "device")
	if out, err := exec.Command("go", "build", "-o", bin, "partneradmin/cmd/device").CombinedOutput(); err != nil {
		t.Fatalf("build cmd/device: %v\n%s", err, out)
	}
	return bin
}
