package a11ytest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

var (
	screenshots      = flag.Bool("screenshots", false, "write the docs' screenshots to -screenshots-dir")
	screenshotsDir   = flag.String("screenshots-dir", filepath.Join("..", "..", "static", "screenshots"), "where -screenshots writes")
	screenshotsPhone = flag.Bool("screenshots-phone", false, "also write each page 390 px wide, whole (NAME-phone.png)")
)

// TestScreenshots writes PNGs of the main pages at 1366×900 to
// static/screenshots, for the README. It runs only with -screenshots:
//
//	go test ./web/a11ytest -run TestScreenshots -screenshots -count=1
func TestScreenshots(t *testing.T) {
	if !*screenshots {
		t.Skip("run with -screenshots to write static/screenshots")
	}
	env := webtest.New(t, webtest.Options{})
	owner := env.CreateStaff(store.RoleOwner)
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	ctx := webtest.BrowserFor(t, 5*time.Minute)
	dir := *screenshotsDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(env.URL("/login")), chromedp.WaitVisible(chromedp.ID("email"))); err != nil {
		t.Fatal(err)
	}
	shoot("login")
	signInByKeyboard(t, ctx, env, owner, "/login")
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/cards")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-refresh"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="cards-refresh"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-table"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, path, detail string }{
		{"dashboard", "/", ""},
		{"employees", "/employees", `[data-testid="employee-name"]`},
		{"employee-invite", "/employees/invite", ""},
		{"readiness", "/employees/readiness", ""},
		{"approvals", "/approvals", `[data-testid="proposal-link"]`},
		{"cards", "/cards", `[data-testid="card-link"]`},
		{"treasury", "/treasury", ""},
		{"money-out", "/money-out", ""},
		{"payroll", "/payroll", ""},
		{"activity", "/activity", ""},
		{"audit", "/audit", ""},
		{"staff", "/staff", ""},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(p.path)), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		shoot(p.name)
		if *screenshotsPhone {
			phone(t, ctx, dir, p.name)
		}
		if p.detail == "" {
			continue
		}
		href := firstHref(t, ctx, p.detail)
		if href == "" {
			t.Fatalf("%s: no detail link", p.path)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(href)), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
			t.Fatalf("%s: %v", href, err)
		}
		shoot(p.name + "-detail")
		if *screenshotsPhone {
			phone(t, ctx, dir, p.name+"-detail")
		}
	}
}

// phone writes the page as a phone shows it, 390 px wide, whole, then sets
// the laptop's viewport back.
func phone(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("main")))
	if err != nil {
		t.Fatalf("%s at 390 px: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("%s at 390 px: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-phone.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
		t.Fatal(err)
	}
}
