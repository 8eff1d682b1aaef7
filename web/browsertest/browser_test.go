package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserLogin signs in through the real form in headless chromium and
// sees the dashboard.
func TestBrowserLogin(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleOwner)
	ctx := webtest.Browser(t)
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/"), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="dashboard-title"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, s.Name) {
		t.Fatalf("dashboard title %q", title)
	}
	// TextContent, not Text: the links of closed menus are not rendered.
	nav, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`[data-testid="nav"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(nav, "Staff") || !strings.Contains(nav, "Audit log") {
		t.Fatalf("owner navigation %q", nav)
	}
	webtest.Screenshot(t, ctx, "dashboard")
}
