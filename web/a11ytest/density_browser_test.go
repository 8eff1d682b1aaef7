package a11ytest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// wrappedBadges lists the chips, and the times of the lists' activity and
// age columns, drawn on more than one line.
const wrappedBadges = `[...document.querySelectorAll("main .badge, main td[data-label='Last activity'] time, main td[data-label='Age'] time")]
	.filter(b => b.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(b).lineHeight))
	.map(b => b.textContent.trim())`

// The employee list and the approval queue are dense at 1366 px (no chip
// wraps), and at 390 px their rows are cards: the page does not scroll
// sideways and no row needs to.
func TestBrowserListsAreDenseAndFitAPhone(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	owner := env.CreateStaff(store.RoleOwner)
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	ctx := webtest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900)); err != nil {
		t.Fatal(err)
	}
	signInByKeyboard(t, ctx, env, owner, "/login")
	pages := []struct{ path, table string }{{"/employees", "employees-table"}, {"/approvals", "queue-table"}}
	for _, p := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(p.path)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="`+p.table+`"] tbody tr`))); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		wrapped, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](wrappedBadges))
		if err != nil {
			t.Fatal(err)
		}
		if len(wrapped) > 0 {
			webtest.Screenshot(t, ctx, "density"+p.table)
			t.Errorf("%s at 1366 px: chips on two lines: %q", p.path, wrapped)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(p.path)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="`+p.table+`"] tbody tr`))); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		rowOver, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Math.max(0, ...[...document.querySelectorAll('[data-testid="`+p.table+`"], [data-testid="`+p.table+`"] tbody tr')]
			.map(e => e.scrollWidth - e.clientWidth))`))
		if err != nil {
			t.Fatal(err)
		}
		cards, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector('[data-testid="`+p.table+`"] tbody tr')).display === "block"`))
		if err != nil {
			t.Fatal(err)
		}
		if over > 0 || rowOver > 0 || !cards {
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="`+p.table+`"] tbody *')]
				.filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth).slice(0, 5)
				.map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().width)).join(", ")`))
			t.Logf("wide: %s", wide)
			webtest.Screenshot(t, ctx, "phone-"+p.table)
			t.Errorf("%s at 390 px: page scrolls by %d px, a row by %d px, rows as cards %v", p.path, over, rowOver, cards)
		}
	}
}
