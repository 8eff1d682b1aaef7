package webtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store/pgtest"
)

// Browser returns a chromedp context for one test: a tab of its own in a
// browser context of its own (cookies and storage apart from every other
// test's), in the test binary's one chromium when its TestMain is
// BrowserMain, else in a chromium started for the test. Without chromium
// the test skips with an install hint, except under CI=true, where it
// fails.
func Browser(t testing.TB) context.Context {
	t.Helper()
	return BrowserFor(t, 90*time.Second)
}

// BrowserFor is Browser for a journey that may take up to limit (a tour
// of every page).
func BrowserFor(t testing.TB, limit time.Duration) context.Context {
	t.Helper()
	path := chromiumPath(t)
	var ctx context.Context
	var cancelCtx context.CancelFunc
	if sharedBrowser.enabled.Load() {
		browser, err := sharedBrowser.start(path)
		if err != nil {
			t.Fatalf("start chromium: %v", err)
		}
		ctx, cancelCtx = chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	} else {
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(path, filepath.Join(t.TempDir(), "chromium-profile"))...)
		ctx, cancelCtx = chromedp.NewContext(allocCtx)
		t.Cleanup(cancelAlloc)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, limit)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
	})
	// Start the browser (or open the tab) now, so a failure is reported
	// here.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// BrowserMain is pgtest.Main for a package of browser tests: its tests
// share one chromium, started when the first asks for a browser and
// stopped once all have run, instead of starting one each.
func BrowserMain(m *testing.M) {
	sharedBrowser.enabled.Store(true)
	code := pgtest.Run(m)
	sharedBrowser.stop()
	os.Exit(code)
}

// sharedBrowser is the chromium of a test binary whose TestMain is
// BrowserMain. Like pgtest's cluster it belongs to the binary, not to a
// test: TestMain and every test reach it without a value threaded through
// testing.M.
var sharedBrowser browserProcess

type browserProcess struct {
	enabled atomic.Bool
	once    sync.Once
	ctx     context.Context // the browser's first tab; tests open theirs beside it
	cancel  func()
	dir     string
	err     error
}

// start launches chromium on first use and returns its context.
func (b *browserProcess) start(path string) (context.Context, error) {
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "webtest-chromium-")
		if b.err != nil {
			return
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(path, b.dir)...)
		ctx, cancelCtx := chromedp.NewContext(allocCtx)
		b.ctx, b.cancel = ctx, func() { cancelCtx(); cancelAlloc() }
		b.err = chromedp.Do(ctx)
	})
	return b.ctx, b.err
}

// stop ends chromium (cancelling the allocator waits for it to exit) and
// removes its profile.
func (b *browserProcess) stop() {
	if b.cancel != nil {
		b.cancel()
	}
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

// chromiumPath finds chromium, or skips t (fails it under CI=true).
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium not found: install it (Debian: apt-get install chromium) to run browser tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// chromiumOptions are the flags of a headless chromium with its profile
// in userData. Tabs of tests running in parallel are all in the
// background but one: the backgrounding flags keep their timers (htmx
// polls) and rendering at full speed.
func chromiumOptions(path, userData string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(userData),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("window-size", "1280,900"),
	}
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
