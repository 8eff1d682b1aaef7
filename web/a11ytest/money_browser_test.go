package a11ytest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserMoneyPagesAccessibility: every money page and form, at 1366
// and 375 px, passes axe-core with no serious or critical violation, does
// not scroll sideways and logs nothing to the console; forms sent with
// problems show the summary, which takes the focus, and pass too.
func TestBrowserMoneyPagesAccessibility(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	owner := env.CreateStaff(store.RoleOwner)
	c, _ := env.SignedIn(store.RoleOwner)
	run := webtest.CreatePayroll(t, env, c, "employee,amount,currency,description\n"+env.DemoEmployee("Emily").Email+",100,USD,November\n"+
		"nobody@example.com,1.234,USD,x\n")

	ctx := webtest.BrowserFor(t, 8*time.Minute)
	console := watchConsole(ctx)
	signInByKeyboard(t, ctx, env, owner, "/login")

	pages := []string{"/money-out", "/money-out/payout", "/money-out/nigeria", "/money-out/sepa", "/money-out/mexico",
		"/money-out/cash", "/treasury", "/treasury/withdrawal", "/treasury/funding", "/payroll", "/payroll/new",
		fmt.Sprintf("/payroll/%d", run), "/actions?all=1"}
	for _, width := range []int64{1366, 375} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			name := fmt.Sprintf("%s at %dpx", p, width)
			if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(p)), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkPage(t, ctx, name)
			console.check(t, name)
		}
	}

	// Forms sent with problems.
	for _, f := range []struct {
		name, page, ready string
		steps             []chromedp.Action[chromedp.Void]
	}{
		{"payout with no country", "/money-out/payout", `[data-testid="payout-next"]`,
			[]chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS(`[data-testid="payout-next"]`))}},
		{"pay-in with a bad price", "/money-out/cash", `[data-testid="cash-fund-submit"]`, []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.ID("cash-fund-price"), "1,50"),
			chromedp.Click(chromedp.CSS(`[data-testid="cash-fund-submit"]`)),
		}},
		{"transfer with a bad amount", "/treasury", `[data-testid="transfer-submit"]`, []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.ID("transfer-amount"), "1,5"),
			chromedp.Click(chromedp.CSS(`[data-testid="transfer-submit"]`)),
		}},
		{"payroll run with nothing chosen", "/payroll/new", `[data-testid="payroll-employees-submit"]`, []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.ID("f-amount"), "abc"),
			chromedp.Click(chromedp.CSS(`[data-testid="payroll-employees-submit"]`)),
		}},
		{"withdrawal to a bad address", "/treasury/withdrawal", `[data-testid="withdrawal-submit"]`, []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.ID("f-address"), "0x12"),
			chromedp.Click(chromedp.CSS(`[data-testid="withdrawal-submit"]`)),
		}},
	} {
		steps := append([]chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(1366, 900), chromedp.Navigate(env.URL(f.page)),
			chromedp.WaitVisible(chromedp.CSS(f.ready))}, f.steps...)
		steps = append(steps, chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-summary"]`)))
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		focused, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.matches("[data-error-summary]")`))
		if err != nil || !focused {
			t.Errorf("%s: the error summary does not have the focus (%v)", f.name, err)
		}
		checkPage(t, ctx, f.name)
		console.check(t, f.name)
		webtest.Screenshot(t, ctx, "money-form-errors-"+strings.ReplaceAll(f.name, " ", "-"))
	}
}
