package a11ytest

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// fitsThePhone fails the test when the page scrolls sideways, naming the
// first elements that stick out.
func fitsThePhone(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if over > 0 {
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('main *')]
			.filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 6)
			.map(e => e.tagName + "." + e.className + "#" + e.id + " " + Math.round(e.getBoundingClientRect().width)).join(", ")`))
		webtest.Screenshot(t, ctx, "phone-"+what)
		t.Errorf("%s at 390 px scrolls sideways by %d px: %s", what, over, wide)
	}
}

// An approver on a phone (390 px) reads the queue, opens a proposal and
// approves it without scrolling sideways.
func TestBrowserApprovingFitsAPhone(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	ps, err := env.Store.ListQueue(t.Context(), store.QueueFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var travel store.Proposal
	for _, p := range ps {
		if p.Description == "Travel reimbursement" {
			travel = p
		}
	}
	if len(travel.Approvals) != 1 {
		t.Fatalf("demo's Travel reimbursement has approvals %v, want one", travel.Approvals)
	}
	var other string
	for _, a := range admins {
		if a != travel.Approvals[0] {
			other = a
			break
		}
	}
	_, approver := webtest.Approver(t, env, other)
	ctx := webtest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	signInByKeyboard(t, ctx, env, approver, "/login")
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL("/approvals")), chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-table"] tbody tr`))); err != nil {
		t.Fatal(err)
	}
	fitsThePhone(t, ctx, "the queue")
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL("/approvals/"+url.PathEscape(travel.ID))),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="approve-form"]`))); err != nil {
		t.Fatal(err)
	}
	fitsThePhone(t, ctx, "the proposal page")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#approve-confirm`)), chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="approve-form"]`))); err != nil {
		t.Fatal(err)
	}
	fitsThePhone(t, ctx, "the approved proposal")
}
