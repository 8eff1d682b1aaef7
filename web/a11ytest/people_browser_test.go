package a11ytest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserPeopleFormsAccessibility: the people areas' pages and their
// forms and filter bars, as sent with mistakes, pass axe-core with no
// serious or critical violation at 1366 and 375 px, do not scroll
// sideways, write nothing to the console, and a page with a mistake opens
// with the focus on its error summary.
func TestBrowserPeopleFormsAccessibility(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	owner := env.CreateStaff(store.RoleOwner)
	e, err := env.Store.EmployeeByEmail(context.Background(), env.Demo.Employees[0].Email)
	if err != nil {
		t.Fatal(err)
	}
	ctx := webtest.BrowserFor(t, 8*time.Minute)
	console := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900)); err != nil {
		t.Fatal(err)
	}
	signInByKeyboard(t, ctx, env, owner, "/login")

	long := strings.Repeat("a", 101)
	withErrors := []string{
		"/employees?state=invited&q=" + long,
		"/employees/readiness?q=" + long,
		"/activity?currency=12&from=2026-02-31",
		"/audit?from=not-a-day&q=" + long + long,
		"/approvals/history?to=31/12/2026&who=" + long,
		"/events?from=yesterday",
		"/cards?q=" + long,
	}
	pages := append([]string{fmt.Sprintf("/employees/%d", e.ID), "/approvals/history", "/cards/issue", "/account/security",
		"/account/notifications", "/settings/security", "/settings/sign-in", "/settings/webhooks", "/staff"}, withErrors...)
	for _, width := range []int64{1366, 375} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			name := fmt.Sprintf("%.60s at %dpx", p, width)
			if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(p)), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkPage(t, ctx, name)
			if contains(withErrors, p) {
				focused, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.matches("[data-error-summary]")`))
				if err != nil || !focused {
					t.Errorf("%s: the error summary does not have the focus (%v)", name, err)
				}
				// A refused filter answers 400 by design; the browser logs
				// that status, which is no fault of the page.
				dropStatus(console, "status of 400")
			}
			console.check(t, name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dropStatus forgets the console's network lines for a status answered
// by design.
func dropStatus(w *consoleWatch, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.faults[:0]
	for _, f := range w.faults {
		if !strings.Contains(f, text) {
			kept = append(kept, f)
		}
	}
	w.faults = kept
}
