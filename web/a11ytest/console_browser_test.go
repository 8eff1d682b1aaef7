package a11ytest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// axeSource is axe-core, vendored under testdata/axe-core (see its README).
//
//go:embed testdata/axe-core/axe.min.js
var axeSource string

// consoleWatch collects what pages write to the console that is a fault:
// errors, uncaught exceptions, and Content-Security-Policy reports.
type consoleWatch struct {
	mu     sync.Mutex
	faults []string
}

// watchConsole subscribes to the tab's console for the rest of the test.
func watchConsole(ctx context.Context) *consoleWatch {
	w := &consoleWatch{}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			// A form sent with errors answers 422 by design; the browser
			// logs that status, which is no fault of the page.
			if m.Source == "network" && strings.Contains(m.Text, "status of 422") {
				continue
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				w.mu.Lock()
				w.faults = append(w.faults, fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line))
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// check fails the test with every fault seen so far, and forgets them.
func (w *consoleWatch) check(t *testing.T, where string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.faults {
		t.Errorf("%s: console: %s", where, f)
	}
	w.faults = nil
}

// axeViolation is one serious or critical finding of axe-core.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeScript runs axe-core on the page (WCAG 2.1 A and AA and best
// practice) and keeps the serious and critical violations.
const axeScript = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}, resultTypes: ["violations"]})
	.then(r => JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " — " + n.failureSummary)}))))`

// checkPage runs axe-core on the page shown and checks that it does not
// scroll sideways at the width shown; it fails the test on each finding.
func checkPage(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe !== "undefined"`))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !loaded {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](axeSource+"\n;true")); err != nil {
			t.Fatalf("%s: inject axe-core: %v", name, err)
		}
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](axeScript, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: axe-core: %v", name, err)
	}
	var found []axeViolation
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		t.Fatalf("%s: axe-core answer %q: %v", name, out, err)
	}
	for _, v := range found {
		t.Errorf("%s: %s %s (%s):\n\t%s", name, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
	over, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if over > 0 {
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
			const w = document.documentElement.clientWidth;
			const clipped = e => { for (let p = e.parentElement; p; p = p.parentElement) { if (getComputedStyle(p).overflowX !== "visible") return true; } return false; };
			return [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > w && !clipped(e))
				.slice(0, 6).map(e => e.tagName.toLowerCase() + "." + e.className + "[" + (e.getAttribute("data-testid") || "") + "]").join(", ");
		})()`))
		t.Errorf("%s: the page scrolls sideways by %dpx: %s", name, over, wide)
	}
}

// signInByKeyboard signs in with the keyboard alone: the email field has
// the focus, Tab moves to the password, Enter sends.
func signInByKeyboard(t *testing.T, ctx context.Context, env *webtest.Env, s webtest.Staff, path string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL(path)),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.KeyEvent(s.Email),
		chromedp.KeyEvent(kb.Tab),
		chromedp.KeyEvent(s.Password),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
	)
	if err != nil {
		t.Fatalf("sign in by keyboard: %v", err)
	}
}

// tabTo presses Tab until the element matching sel has the focus, and
// checks that the focus is visible there.
func tabTo(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	match := fmt.Sprintf(`document.activeElement !== null && document.activeElement.matches(%q)`, sel)
	for range 250 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](match))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			style, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineStyle`))
			if err != nil || style == "none" {
				t.Errorf("%s has the focus but no visible outline (%q, %v)", sel, style, err)
			}
			return
		}
	}
	t.Fatalf("Tab never reached %s", sel)
}

// firstHref is the address of the first link on the page that matches
// the selector.
func firstHref(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`(document.querySelector(%q) || {getAttribute: () => ""}).getAttribute("href") || ""`, "main a"+sel)))
	if err != nil {
		t.Fatal(err)
	}
	return href
}

// TestBrowserAccessibility opens every page of the main journeys as an
// owner, at 1366px and at 375px, runs axe-core on each (no serious or
// critical violation), checks that none scrolls sideways, and that no page
// writes an error (a CSP report included) to the console.
func TestBrowserAccessibility(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	owner := env.CreateStaff(store.RoleOwner)
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	ctx := webtest.BrowserFor(t, 8*time.Minute)
	console := watchConsole(ctx)

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(env.URL("/login")), chromedp.WaitVisible(chromedp.ID("email"))); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, "/login")
	console.check(t, "/login")
	signInByKeyboard(t, ctx, env, owner, "/login")

	// The card and proposal lists are read from the API first.
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/cards")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-refresh"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="cards-refresh"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-table"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"/", "/employees", "/employees/invite", "/employees/readiness", "/approvals", "/cards",
		"/treasury", "/money-out", "/payroll", "/activity", "/audit", "/staff", "/actions", "/events", "/settings/webhooks"}
	details := map[string]string{"/employees": `[data-testid="employee-name"]`, "/approvals": `[data-testid="proposal-link"]`, "/cards": `[data-testid="card-link"]`}
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
			if re, ok := details[p]; ok {
				href := firstHref(t, ctx, re)
				if href == "" {
					t.Errorf("%s: no detail link to open", name)
					continue
				}
				if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(href)), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
					t.Fatalf("%s: %v", href, err)
				}
				checkPage(t, ctx, fmt.Sprintf("%s at %dpx", href, width))
			}
			console.check(t, name)
		}
	}
	// A form with errors: the summary is checked too.
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(1366, 900),
		chromedp.Navigate(env.URL("/employees/invite")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="send-invite"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="send-invite"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-summary"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.matches("[data-error-summary]")`))
	if err != nil || !focused {
		t.Errorf("the error summary does not have the focus (%v)", err)
	}
	checkPage(t, ctx, "/employees/invite with errors")
	console.check(t, "/employees/invite with errors")
}

// TestBrowserKeyboardFreezeCard: support, with the keyboard alone, signs
// in, reads the cards from the API, and freezes a card from the list.
func TestBrowserKeyboardFreezeCard(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleSupport)
	ctx := webtest.Browser(t)
	console := watchConsole(ctx)
	signInByKeyboard(t, ctx, env, s, "/login?next=%2Fcards")
	tabTo(t, ctx, `[data-testid="cards-refresh"]`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-table"]`))); err != nil {
		t.Fatal(err)
	}
	card := webtest.DemoCard(t, env, "Everyday")
	row := `tr[data-card-id="` + card.ID + `"] `
	tabTo(t, ctx, row+`[data-testid="card-freeze"]`)
	err := chromedp.Do(ctx,
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="card-status"][data-status="frozen"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if live, err := env.API.GetCard(t.Context(), card.ServiceUserID, card.ID); err != nil || string(live.Status) != "frozen" {
		t.Fatalf("issuer status after the keyboard freeze: %v %v", live, err)
	}
	console.check(t, "keyboard freeze")
}

// TestBrowserKeyboardApprove: a finance approver, with the keyboard alone,
// opens a proposal from the queue, ticks the confirmation and approves.
func TestBrowserKeyboardApprove(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, s := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Travel reimbursement")
	ctx := webtest.Browser(t)
	console := watchConsole(ctx)
	signInByKeyboard(t, ctx, env, s, "/login?next=%2Fapprovals")
	tabTo(t, ctx, `[data-testid="proposal-row"][data-id="`+id+`"] [data-testid="proposal-link"]`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`[data-testid="approve-form"]`))); err != nil {
		t.Fatal(err)
	}
	tabTo(t, ctx, `[data-testid="approve-form"] input[name="confirm"]`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	tabTo(t, ctx, `[data-testid="approve"]`)
	err := chromedp.Do(ctx,
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="create-sign-request"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`[data-testid="detail-status"]`), "data-status"))
	if err != nil || status.Value != "PENDING_SIGNATURES" {
		t.Fatalf("after approving by keyboard: %q %v", status.Value, err)
	}
	console.check(t, "keyboard approve")
}
