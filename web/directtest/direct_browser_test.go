package directtest

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// At 390 px the "add as a user" form and the KYC walk do not scroll
// sideways, and the first step's action is reachable: a person on a phone
// can use them. Screenshots are saved (SCREENSHOT_DIR) to look at.
func TestBrowserDirectPagesFitAPhone(t *testing.T) {
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr := env.CreateStaff(store.RoleHRAdmin)
	c, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, c, "phone@acme.example", "Pat", "Phone")
	ctx := webtest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, webtest.BrowserSignIn(env.URL("/employees/direct"), hr),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="direct-create-form"]`))); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ path, wait, name string }{
		{"/employees/direct", `[data-testid="direct-create"]`, "direct-create-390"},
		{kycPath(e, ""), `[data-testid="upload-identification"]`, "direct-kyc-390"},
	}
	for _, p := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(p.path)), chromedp.WaitVisible(chromedp.CSS(p.wait))); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if over > 0 || os.Getenv("SCREENSHOT_DIR") != "" {
			webtest.Screenshot(t, ctx, p.name)
		}
		if over > 0 {
			t.Errorf("%s at 390 px scrolls sideways by %d px", p.path, over)
		}
	}
}
