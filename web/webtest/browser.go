package webtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser starts headless chromium for one test and returns a chromedp
// context bound to it. Without chromium the test skips with an install hint,
// except under CI=true, where it fails.
func Browser(t testing.TB) context.Context {
	t.Helper()
	return BrowserFor(t, 90*time.Second)
}

// BrowserFor is Browser for a journey that may take up to limit (a tour
// of every page).
func BrowserFor(t testing.TB, limit time.Duration) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		msg := "chromium not found: install it (Debian: apt-get install chromium) to run browser tests"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	userData := filepath.Join(t.TempDir(), "chromium-profile")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(userData),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("window-size", "1280,900"),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, limit)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	// Start the browser now, so a launch failure is reported here.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// BrowserSignIn is the steps that open url (a page that asks to sign in
// first, or the login page itself) and sign s in through the login form;
// the caller then waits for the page it lands on.
func BrowserSignIn(url string, s Staff) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), s.Email),
		chromedp.SendKeys(chromedp.ID("password"), s.Password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
	)
}

// ClickForSignQR clicks the button (a CSS selector) that issues a signing
// link, waits for the link's QR code, saves a screenshot of the page as
// name, and returns the link the code carries and the code's PNG.
func ClickForSignQR(t testing.TB, ctx context.Context, button, name string) (link string, png []byte) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))); err != nil {
		t.Fatal(err)
	}
	// The record's page refreshes itself every 2 s and htmx replaces the
	// part holding the code (outerHTML): a node found just before a swap
	// is gone when the browser is asked for it ("No node with given id
	// found"). Each attempt finds the code again.
	var err error
	for range 5 {
		if err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("sign-qr"))); err == nil {
			if png, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("sign-qr"))); err == nil {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	Screenshot(t, ctx, name)
	return DecodeQR(t, png), png
}

// Screenshot saves a full-page PNG under the test's temp dir and returns its
// path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}
