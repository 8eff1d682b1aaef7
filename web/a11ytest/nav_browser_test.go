package a11ytest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// navRow is where the navigation bar's parts lie on the screen.
type navRow struct {
	Header float64 `json:"header"` // height of the page's header
	Entry  float64 `json:"entry"`  // height of the bar's first entry
	Items  int     `json:"items"`  // places in the bar: links and menus
	// Rows counts the lines the bar's places and the header's other
	// parts (brand, viewer) take.
	Rows int `json:"rows"`
}

const navRowScript = `(() => {
	const box = e => e.getBoundingClientRect();
	const places = [...document.querySelectorAll('[data-testid="nav"] > ul > li')];
	const parts = [document.querySelector(".top .brand"), ...places, document.querySelector(".top .who")].map(box);
	let rows = 0, bottom = -Infinity;
	for (const r of parts.sort((a, b) => a.top - b.top)) { if (r.top >= bottom) { rows++; } bottom = Math.max(bottom, r.bottom); }
	return {header: box(document.querySelector("header.top")).height,
		entry: box(document.querySelector('[data-testid="nav"] > ul > li > a')).height, items: places.length, rows};
})()`

// navFocus is what has the keyboard's focus, seen from the navigation.
type navFocus struct {
	InNav    bool   `json:"inNav"`
	Summary  bool   `json:"summary"` // a menu's name
	Open     bool   `json:"open"`    // its menu is open
	Href     string `json:"href"`
	Shown    bool   `json:"shown"`   // inside the window, not hidden
	Outline  string `json:"outline"` // outline style: the focus is visible
	OpenMenu int    `json:"openMenus"`
}

const navFocusScript = `(() => {
	const e = document.activeElement;
	const r = e ? e.getBoundingClientRect() : {width: 0, height: 0, left: -1, right: 0, top: -1, bottom: 0};
	return {inNav: !!(e && e.closest('[data-testid="nav"]')), summary: !!(e && e.matches("summary")),
		open: !!(e && e.matches("summary") && e.parentElement.open), href: (e && e.getAttribute("href")) || "",
		shown: r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight,
		outline: e ? getComputedStyle(e).outlineStyle : "none",
		openMenus: document.querySelectorAll("details[data-nav-menu][open]").length};
})()`

// doThen runs the steps, then reads a value.
func doThen[T any](ctx context.Context, read chromedp.Action[T], steps ...chromedp.Action[chromedp.Void]) (T, error) {
	if err := chromedp.Do(ctx, steps...); err != nil {
		var zero T
		return zero, err
	}
	return chromedp.Run(ctx, read)
}

// ownerAreas are the areas an owner reaches from the navigation.
var ownerAreas = []string{"/", "/employees", "/staff", "/approvals", "/treasury", "/money-out", "/payroll", "/activity",
	"/cards", "/audit", "/actions", "/events", "/settings/webhooks", "/settings/security", "/settings/sign-in", "/account/notifications"}

// navHrefs lists the links of the navigation, shown or in a closed menu.
func navHrefs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	hrefs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="nav"] a')].map(a => a.getAttribute("href"))`))
	if err != nil {
		t.Fatal(err)
	}
	return hrefs
}

// TestBrowserNavigation: the owner's navigation bar, with all its areas,
// takes one line at 1366x768 and at 1024px; with the keyboard alone every
// link in it is reached (Enter or Space opens a menu, Escape closes it and
// gives the focus back to its name), each with a visible focus; the current
// page's menu is marked; an open menu passes axe-core (contrast included)
// and fits a phone's width; support sees no money menu.
func TestBrowserNavigation(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	owner := env.CreateStaff(store.RoleOwner)
	support := env.CreateStaff(store.RoleSupport)
	ctx := webtest.BrowserFor(t, 4*time.Minute)
	console := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 768)); err != nil {
		t.Fatal(err)
	}
	signInByKeyboard(t, ctx, env, owner, "/login?next=%2Ftreasury")

	hrefs := navHrefs(t, ctx)
	for _, h := range ownerAreas {
		if !slices.Contains(hrefs, h) {
			t.Errorf("the owner's navigation has no link to %s: %v", h, hrefs)
		}
	}
	for _, width := range []int64{1366, 1024} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 768)); err != nil {
			t.Fatal(err)
		}
		row, err := chromedp.Run(ctx, chromedp.Evaluate[navRow](navRowScript))
		if err != nil {
			t.Fatal(err)
		}
		// One line: the header is less than two entries high.
		if row.Rows != 1 || row.Header >= 2*row.Entry || row.Items < 5 {
			t.Errorf("at %dpx the navigation takes %d lines (%d places, header %.0fpx, entry %.0fpx)", width, row.Rows, row.Items, row.Header, row.Entry)
		}
		webtest.Screenshot(t, ctx, fmt.Sprintf("nav-owner-%d", width))
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 768)); err != nil {
		t.Fatal(err)
	}

	// The current page (the treasury) is marked, and so is its menu.
	marked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const s = document.querySelector('[data-testid="nav-group-money"] > summary[aria-current="true"]');
		const a = document.querySelector('[data-testid="nav-group-money"] a[aria-current="page"]');
		return !!s && !!a && a.getAttribute("href") === "/treasury" && getComputedStyle(s).borderBottomColor !== getComputedStyle(document.querySelector("header.top")).backgroundColor
			&& document.querySelectorAll('[data-testid="nav"] [aria-current]').length === 2;
	})()`))
	if err != nil || !marked {
		t.Errorf("the treasury's link and its menu are not marked current (%v)", err)
	}

	// Tab through the bar from the top of the page, opening each menu,
	// alternately with Enter and Space.
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL("/treasury")), chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`))); err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	menus, left := 0, false
	for range 120 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		f, err := chromedp.Run(ctx, chromedp.Evaluate[navFocus](navFocusScript))
		if err != nil {
			t.Fatal(err)
		}
		if !f.InNav {
			if len(reached) > 0 {
				left = f.OpenMenu == 0
				if !left {
					t.Errorf("a menu stays open after the focus left the navigation")
				}
				break
			}
			continue
		}
		if !f.Shown || f.Outline == "none" {
			t.Errorf("focus on %q (menu name: %v): shown %v, outline %q", f.Href, f.Summary, f.Shown, f.Outline)
		}
		if f.Summary {
			key := kb.Enter
			if menus%2 == 1 {
				key = " "
			}
			menus++
			open, err := doThen(ctx, chromedp.Evaluate[bool](`document.activeElement.parentElement.open`), chromedp.KeyEvent(key))
			if err != nil || !open {
				t.Fatalf("%q on a menu's name did not open it (%v)", key, err)
			}
			continue
		}
		reached[f.Href] = true
	}
	if !left {
		t.Errorf("Tab never left the navigation")
	}
	for _, h := range hrefs {
		if !reached[h] {
			t.Errorf("Tab never reached the navigation's link to %s", h)
		}
	}
	if menus < 4 {
		t.Errorf("Tab met %d menus, want the owner's 4 or more", menus)
	}

	// Escape closes a menu and gives the focus back to its name.
	tabTo(t, ctx, `[data-testid="nav-group-people"] > summary`)
	esc, err := doThen(ctx,
		chromedp.Evaluate[bool](`!document.querySelector('[data-testid="nav-group-people"]').open && document.activeElement.matches('[data-testid="nav-group-people"] > summary')`),
		chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Escape))
	if err != nil || !esc {
		t.Errorf("Escape did not close the menu and give the focus back to its name (%v)", err)
	}

	// An open menu passes axe-core, at 1366px and on a phone, where it fits
	// the width; a click elsewhere closes it.
	for _, width := range []int64{1366, 390} {
		name := fmt.Sprintf("settings menu open at %dpx", width)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844)); err != nil {
			t.Fatal(err)
		}
		webtest.Screenshot(t, ctx, fmt.Sprintf("nav-owner-closed-%d", width))
		fits, err := doThen(ctx,
			chromedp.Evaluate[bool](`[...document.querySelectorAll('[data-testid="nav-group-settings"] a')].every(a => { const r = a.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth; })`),
			chromedp.EmulateViewport(width, 844),
			chromedp.Click(chromedp.CSS(`[data-testid="nav-group-settings"] > summary`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav-group-settings"] a[href="/settings/sign-in"]`)))
		if err != nil || !fits {
			t.Errorf("%s: its links do not fit the window (%v)", name, err)
		}
		checkPage(t, ctx, name)
		webtest.Screenshot(t, ctx, fmt.Sprintf("nav-owner-menu-%d", width))
		// The page's bottom left corner lies outside the open list.
		closed, err := doThen(ctx, chromedp.Evaluate[bool](`document.querySelectorAll("details[data-nav-menu][open]").length === 0 && location.pathname === "/treasury"`),
			chromedp.MouseClickXY(4, 800))
		if err != nil || !closed {
			t.Errorf("%s: a click elsewhere did not close it (%v)", name, err)
		}
	}
	console.check(t, "navigation")

	// Support: no money menu, no money link; its own areas are there.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 768), chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)), chromedp.WaitVisible(chromedp.ID("email"))); err != nil {
		t.Fatal(err)
	}
	signInByKeyboard(t, ctx, env, support, "/login")
	hrefs = navHrefs(t, ctx)
	money, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="nav-group-money"]').length`))
	if err != nil || money != 0 {
		t.Errorf("support sees the money menu (%d, %v)", money, err)
	}
	for _, h := range []string{"/approvals", "/treasury", "/money-out", "/payroll", "/activity", "/staff", "/audit"} {
		if slices.Contains(hrefs, h) {
			t.Errorf("support's navigation links to %s", h)
		}
	}
	for _, h := range []string{"/", "/employees", "/cards", "/account/notifications"} {
		if !slices.Contains(hrefs, h) {
			t.Errorf("support's navigation has no link to %s: %v", h, hrefs)
		}
	}
	webtest.Screenshot(t, ctx, "nav-support-1366")
	console.check(t, "support navigation")
}
