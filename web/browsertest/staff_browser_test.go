package browsertest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserStaffRoleRefusalIsShownInTheRow: a change the server refuses
// (an owner changing their own role) answers 422 with the row and the
// words; htmx swaps 4xx answers only when told to, so without app.js's
// rule the click did nothing the person could see.
func TestBrowserStaffRoleRefusalIsShownInTheRow(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	o := env.CreateStaff(store.RoleOwner)
	ctx := webtest.Browser(t)
	id := strconv.FormatInt(o.ID, 10)
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/login")),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), o.Email),
		chromedp.SendKeys(chromedp.ID("password"), o.Password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
		chromedp.Navigate(env.URL("/staff")),
		chromedp.WaitVisible(chromedp.ID("role-"+id)),
		chromedp.SetValue(chromedp.ID("role-"+id), string(store.RoleSupport)),
		chromedp.Click(chromedp.CSS(`#staff-`+id+` button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.ID("role-"+id+"-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("role-"+id+"-error")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "own role") {
		t.Fatalf("row error %q", msg)
	}
	if s, err := env.Store.StaffByID(t.Context(), o.ID); err != nil || s.Role != store.RoleOwner {
		t.Fatalf("role after the refusal: %v %v", s.Role, err)
	}
}
