package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The audit log fits a 1366 px window with long ids and details: no
// horizontal scrolling, and a long id takes one line, not ten.
func TestBrowserAuditTableFitsTheWindow(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleOwner)
	ctx := context.Background()
	long := "0x" + strings.Repeat("9f3ac7e1", 5)
	for _, e := range []store.AuditEntry{
		{Actor: s.Actor(), Action: "proposal.approve", Target: "proposal:7d1e2f3a-4b5c-6d7e-8f90-a1b2c3d4e5f6", Outcome: store.OutcomeOK,
			Detail: "as wallet admin " + strings.Repeat("svc_0123456789abcdef", 3) + "; 2 of 2 approvals; status PENDING_SIGNATURES"},
		{Actor: s.Actor(), Action: "sign_request.create", Target: "owner_proof:" + long, Outcome: store.OutcomeOK,
			Detail: "sign request 12 for owner " + long + ", expires 2026-11-22T12:00:00Z"},
		{Action: "webhooks.event.replay", Target: "webhook_event:" + strings.Repeat("evt", 20), Outcome: store.OutcomeFailed,
			Detail: strings.Repeat("a-very-long-word-without-spaces", 8)},
	} {
		if err := env.Store.Audit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	b := webtest.Browser(t)
	err := chromedp.Do(b,
		chromedp.EmulateViewport(1366, 900),
		webtest.BrowserSignIn(env.URL("/login"), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
		chromedp.Navigate(env.URL("/audit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-table"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	over, err := chromedp.Run(b, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if over > 0 {
		webtest.Screenshot(t, b, "audit-overflow")
		t.Fatalf("the audit page is %d px wider than the window", over)
	}
	// The tallest shortened id: one line, not ten.
	tallest, err := chromedp.Run(b, chromedp.Evaluate[float64](`Math.max(...Array.from(document.querySelectorAll('[data-testid="audit-target-id"]')).map(e => e.getBoundingClientRect().height))`))
	if err != nil {
		t.Fatal(err)
	}
	if tallest > 30 {
		webtest.Screenshot(t, b, "audit-tall")
		t.Fatalf("a target id is %.0f px tall", tallest)
	}
	shown, err := chromedp.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="audit-copy"]:not([hidden])').length`))
	if err != nil || shown < 3 {
		t.Fatalf("copy buttons shown: %d %v", shown, err)
	}
	webtest.Screenshot(t, b, "audit")
}
