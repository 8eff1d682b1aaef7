package browsertest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserDashboardPollKeepsTablesOpen: a chart's table of numbers the
// reader opened stays open when the live part is reloaded (as the 10-second
// poll does), and one left closed stays closed.
func TestBrowserDashboardPollKeepsTablesOpen(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	s := env.CreateStaff(store.RoleOwner)
	ctx := webtest.Browser(t)
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/login"), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
		chromedp.Click(chromedp.CSS(`#chart-data-webhook-hours > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="chart-table-webhook-hours"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Reload the live part as the poll does (the same request and swap),
	// and wait for the new part to be in place.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("dashboard-live").dataset.old = "1";
		htmx.ajax("GET", "/", {target: "#dashboard-live", swap: "outerHTML"}); true`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(function () {
		var live = document.getElementById("dashboard-live");
		return live !== null && live.dataset.old === undefined && document.querySelector(".htmx-request, .htmx-settling") === null;
	})()`)); err != nil {
		t.Fatal(err)
	}
	state, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](`[document.getElementById("chart-data-webhook-hours").open,
		document.getElementById("chart-data-invite-funnel").open]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(state) != 2 || !state[0] || state[1] {
		t.Fatalf("after the reload, webhook table open, funnel table open: %v (want true, false)", state)
	}
}
