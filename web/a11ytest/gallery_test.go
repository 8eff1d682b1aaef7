package a11ytest

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

var (
	gallery    = flag.Bool("gallery", false, "write every main page per role at 1366 and 390 px to -gallery-dir (docs/gallery.md)")
	galleryDir = flag.String("gallery-dir", filepath.Join("..", "..", "docs", "gallery"), "where -gallery writes")
)

// galleryPages are the main pages (the ten, the staff page, and
// the funding, rail set-up, controls and add-as-user pages):
// each role gets those it may open.
var galleryPages = []struct{ name, path string }{
	{"start", "/"}, {"employees", "/employees"}, {"invite", "/employees/invite"}, {"approvals", "/approvals"},
	{"treasury", "/treasury"}, {"payroll", "/payroll"}, {"money-out", "/money-out"}, {"cards", "/cards"},
	{"events", "/events"}, {"audit", "/audit"}, {"staff", "/staff"},
	{"funding", "/treasury/funding"}, {"rails", "/treasury/rails"}, {"rails-eur", "/treasury/rails/eur"},
	{"rails-mxn", "/treasury/rails/mxn"}, {"rails-usd", "/treasury/rails/usd"}, {"controls", "/controls"},
	{"add-as-user", "/employees/direct"},
}

// TestGallery writes a PNG of every main page each role may open, whole,
// at 1366 and at 390 px wide, named ROLE-PAGE-WIDTH.png, so anyone can look
// at the whole product in a minute. It runs only with -gallery:
//
//	go test ./web/a11ytest -run TestGallery -gallery -count=1
//
// It reports the pages that scroll sideways at 390 px.
func TestGallery(t *testing.T) {
	if !*gallery {
		t.Skip("run with -gallery to write docs/gallery")
	}
	env := webtest.New(t, webtest.Options{})
	first, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, first)
	dir := *galleryDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	wrote := 0
	for _, role := range store.Roles() {
		s := env.CreateStaff(role)
		c := env.Client()
		env.Login(c, s.Email, s.Password)
		ctx := webtest.BrowserFor(t, 5*time.Minute)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), webtest.BrowserSignIn(env.URL("/login"), s),
			chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
			t.Fatalf("%s: sign in: %v", role, err)
		}
		for _, p := range galleryPages {
			if webtest.Status(t, env, c, p.path) != http.StatusOK {
				continue // not this role's page
			}
			for _, width := range []int64{1366, 390} {
				opts := []chromedp.EmulateViewportOption{}
				if width == 390 {
					opts = append(opts, chromedp.EmulateMobile)
				}
				err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate(env.URL(p.path)),
					chromedp.WaitVisible(chromedp.CSS("main")))
				if err != nil {
					t.Fatalf("%s %s at %d px: %v", role, p.path, width, err)
				}
				wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.scrollingElement.scrollWidth > window.innerWidth`))
				if err != nil {
					t.Fatalf("%s %s at %d px: %v", role, p.path, width, err)
				}
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("%s %s at %d px: %v", role, p.path, width, err)
				}
				name := fmt.Sprintf("%s-%s-%d.png", strings.ReplaceAll(string(role), "_", "-"), p.name, width)
				if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
					t.Fatal(err)
				}
				wrote++
				if wide && width == 390 {
					t.Logf("%s scrolls sideways at 390 px", name)
				}
			}
		}
	}
	if wrote == 0 {
		t.Fatal("no page written")
	}
	t.Logf("%d PNGs in %s", wrote, dir)
}
