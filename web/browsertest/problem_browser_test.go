package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserRefusedRefreshSaysWhyAndKeepsTheRows: a finance approver
// watches the queue, which refreshes every 2 s. An owner makes them an HR
// admin meanwhile: the next refresh is refused (403). The page says so in
// the error page's words, above the queue, and keeps the rows it showed;
// once the role is given back, the next refresh clears the message.
func TestBrowserRefusedRefreshSaysWhyAndKeepsTheRows(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, s := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	ctx := webtest.Browser(t)
	rows := `[data-testid="queue"] [data-testid="proposal-row"]`
	if err := chromedp.Do(ctx, webtest.BrowserSignIn(env.URL("/login?next=%2Fapprovals"), s), chromedp.WaitVisible(chromedp.CSS(rows))); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+rows+`').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	problem, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("request-problem").hidden`))
	if err != nil || !problem {
		t.Fatalf("the problem box shows before any problem: hidden=%v %v", problem, err)
	}

	owner := env.CreateStaff(store.RoleOwner)
	if _, err := env.Store.UpdateStaffAccess(t.Context(), s.ID, store.RoleHRAdmin, false, owner.Actor()); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="request-problem"]`))); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="request-problem"]`)))
	if err != nil || !strings.Contains(text, "Not allowed") || !strings.Contains(text, "Your role does not allow this") {
		t.Fatalf("problem shown: %q %v", text, err)
	}
	if after := count(); after != before || before == 0 {
		t.Fatalf("the refused refresh left %d rows of %d", after, before)
	}
	webtest.Screenshot(t, ctx, "refused-refresh")

	if _, err := env.Store.UpdateStaffAccess(t.Context(), s.ID, store.RoleFinanceApprover, false, owner.Actor()); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitNotVisible(chromedp.CSS(`[data-testid="request-problem"]`))); err != nil {
		t.Fatalf("the message stays after a refresh that worked: %v", err)
	}
}
