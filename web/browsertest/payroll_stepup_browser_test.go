package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// stepClock is the app's clock, moved by the test.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// A payroll file upload and the step-up check: the upload page asks for
// the second factor before the file is chosen, and an upload sent after
// the check ran out returns, once confirmed, to the upload page (not to a
// 404 at /payroll/csv), where the file is chosen again and checked.
func TestBrowserPayrollUploadStepUp(t *testing.T) {
	t.Parallel()
	clock := &stepClock{t: time.Now()}
	env := webtest.New(t, webtest.Options{Now: clock.Now})
	s := env.CreateStaff(store.RoleFinanceApprover)
	ctx := webtest.Browser(t)

	var email string
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT e.email FROM employees e
		JOIN wallets w ON w.employee_id = e.id AND w.currency = 'USDB'
		WHERE e.kind = 'employee' AND e.service_user_id IS NOT NULL AND e.deleted_at IS NULL ORDER BY e.id LIMIT 1`).Scan(&email); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "november.csv")
	if err := os.WriteFile(file, []byte("employee,amount,currency,description\n"+email+",12.50,USDB,November\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Sign in and set up an authenticator app.
	var secret string
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/account/security"), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="totp-start"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="totp-start"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="totp-secret"]`)),
	)
	if err != nil {
		t.Fatalf("totp start: %v", err)
	}
	if secret, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="totp-secret"]`))); err != nil {
		t.Fatal(err)
	}
	codeAt := func() string {
		t.Helper()
		c, err := totp.GenerateCode(strings.TrimSpace(secret), clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("totp-code"), codeAt()),
		chromedp.Click(chromedp.CSS(`[data-testid="totp-confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="recovery-codes"]`)),
	)
	if err != nil {
		t.Fatalf("totp confirm: %v", err)
	}
	body := func() string {
		text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
		return text
	}
	confirm := func(step string) {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="second-factor-page"]`)),
			chromedp.SendKeys(chromedp.ID("code"), codeAt()),
			chromedp.Click(chromedp.CSS(`[data-testid="totp-submit"]`)),
			chromedp.WaitVisible(chromedp.ID("payroll-file")),
		); err != nil {
			webtest.Screenshot(t, ctx, "payroll-stepup-"+step)
			t.Fatalf("%s: %v\n%s", step, err, body())
		}
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil || !strings.HasSuffix(loc, "/payroll/new") {
			t.Fatalf("%s: back at %q %v", step, loc, err)
		}
	}

	// Ten minutes on, the upload page asks for the factor before the file
	// is chosen.
	clock.Add(11 * time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL("/payroll/new"))); err != nil {
		t.Fatal(err)
	}
	if text := body(); !strings.Contains(text, "before you choose the file") {
		t.Fatalf("the upload page did not ask for the factor first:\n%s", text)
	}
	confirm("before the upload")
	err = chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("payroll-file"), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="payroll-csv-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="payroll-send"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "payroll-stepup-upload")
		t.Fatalf("upload after the check: %v\n%s", err, body())
	}

	// An upload sent after the check ran out comes back to its page.
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL("/payroll/new")), chromedp.WaitVisible(chromedp.ID("payroll-file"))); err != nil {
		t.Fatal(err)
	}
	clock.Add(16 * time.Minute)
	if err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("payroll-file"), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="payroll-csv-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="second-factor-page"]`)),
	); err != nil {
		t.Fatalf("late upload: %v\n%s", err, body())
	}
	if text := body(); !strings.Contains(text, "choose the file again") {
		t.Fatalf("the step-up page does not say the file is to be chosen again:\n%s", text)
	}
	confirm("after a late upload")
}
