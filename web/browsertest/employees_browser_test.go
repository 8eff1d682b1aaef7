package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// newEmployeesEnv is webtest.New with workers started and the demo webhook
// secret adopted, so employee.linked deliveries reach the employees area.
func newEmployeesEnv(t *testing.T) *webtest.Env {
	t.Helper()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	return env
}

// browserLogin signs in through the real form.
func browserLogin(t *testing.T, env *webtest.Env, ctx context.Context, s webtest.Staff) {
	t.Helper()
	if err := chromedp.Do(ctx, webtest.BrowserSignIn(env.URL("/login"), s), chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`))); err != nil {
		t.Fatalf("login: %v", err)
	}
}

func TestBrowserInviteWithOccupationQRAndLinkUpdatesList(t *testing.T) {
	t.Parallel()
	env := newEmployeesEnv(t)
	ctx := webtest.Browser(t)
	hr := env.CreateStaff(store.RoleHRAdmin)
	browserLogin(t, env, ctx, hr)

	fill := func(testid, v string) chromedp.Action[chromedp.Void] {
		return chromedp.SendKeys(chromedp.CSS(`[data-testid="field-`+testid+`"]`), v)
	}
	pick := func(testid, v string) chromedp.Action[chromedp.Void] {
		return chromedp.SetValue(chromedp.CSS(`[data-testid="field-`+testid+`"]`), v)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/employees/invite")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="invite-form"]`)),
		fill("name", "Nkechi Obi"), fill("email", "nkechi@acme.example"), fill("first_name", "Nkechi"), fill("last_name", "Obi"),
		pick("date_of_birth", "1991-05-20"), pick("nationality", "NG"), fill("phone_number", "08031234567"),
		pick("country_code", "NGA"), fill("street_line1", "12 Marina Road"), fill("city", "Lagos"), fill("state", "Lagos"),
		fill("postal_code", "101001"), pick("employment_status", "employed"), pick("source_of_funds", "salary"),
		fill("estimated_monthly_volume", "1500"), fill("bvn", "22222222222"),
		// The occupation autocomplete: type, wait for the lookup's answers, choose one.
		chromedp.SendKeys(chromedp.CSS(`[data-testid="occupation-search"]`), "software"),
		// Answers to the first letters may arrive first: wait for the one
		// the whole word finds.
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="occupation-option"][value="15-1252"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="occupation-option"][value="15-1252"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="send-invite"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="invite-qr"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "invite-failed")
		t.Fatalf("invite: %v", err)
	}
	link, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="invite-url"]`)))
	if err != nil || !strings.Contains(link, "/invite/") {
		t.Fatalf("invite link %q %v", link, err)
	}
	// The QR image decodes to the link.
	src, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`[data-testid="invite-qr"]`), "src"))
	if err != nil {
		t.Fatal(err)
	}
	if got := webtest.DecodeQRDataURL(t, src.Value); got != link {
		t.Fatalf("QR says %q, link is %q", got, link)
	}
	shot := webtest.Screenshot(t, ctx, "employees-invite-qr")
	if _, err := os.Stat(shot); err != nil {
		t.Fatal(err)
	}
	inv, ok := webtest.SandboxInviteOf(t, env, "nkechi@acme.example")
	if !ok || !inv.KYCHeld {
		t.Fatalf("sandbox invite %+v", inv)
	}

	// The list shows the invite; the employee links in the app (sandbox
	// control API); the webhook arrives and the list (polled) updates.
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/employees?q=nkechi")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="employee-row"] [data-state="invited"]`)),
	)
	if err != nil {
		t.Fatalf("list before linking: %v", err)
	}
	webtest.LinkThroughSandbox(t, env, "nkechi@acme.example")
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// Linked with the employer-held KYC submitted; the sandbox then asks for
	// a selfie (kyc.action_required), so either state may show first.
	linkedSel := `[data-testid="employee-row"] [data-state="kyc_submitted"], [data-testid="employee-row"] [data-state="action_required"]`
	if err := chromedp.Do(lctx, chromedp.WaitVisible(chromedp.CSS(linkedSel))); err != nil {
		webtest.Screenshot(t, ctx, "link-not-shown")
		var events []string
		rows, _ := env.Store.Pool().Query(context.Background(), `SELECT event_type || ' ' || state || ' ' || coalesce(outcome, '') || ' ' || coalesce(error, '') FROM webhook_events ORDER BY id`)
		for rows.Next() {
			var s string
			_ = rows.Scan(&s)
			events = append(events, s)
		}
		rows.Close()
		t.Fatalf("list did not update after linking: %v\nevents: %v", err, events)
	}
	e, _ := env.Store.EmployeeByEmail(context.Background(), "nkechi@acme.example")
	if e.ServiceUserID == "" {
		t.Fatal("not linked in the store")
	}
	x, _ := env.Store.InviteExtrasOf(context.Background(), e.ID)
	if x.OccupationCode != "15-1252" {
		t.Fatalf("occupation code %q", x.OccupationCode)
	}
	// The employee page shows the profile the API now holds, with the
	// occupation code that was sent (not silently dropped).
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL(fmt.Sprintf("/employees/%d", e.ID))),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="occupation-code"]`)),
	)
	if err != nil {
		t.Fatalf("employee page: %v", err)
	}
	code, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="occupation-code"]`)))
	if code != "15-1252" {
		t.Fatalf("occupation code on the page %q", code)
	}
	webtest.Screenshot(t, ctx, "employees-detail")
	if strings.Contains(env.Logs.String(), "22222222222") {
		t.Fatal("the BVN reached the logs")
	}
}

func TestBrowserBulkInviteFiftyRowsProgressReaches100(t *testing.T) {
	t.Parallel()
	env := newEmployeesEnv(t)
	ctx := webtest.Browser(t)
	hr := env.CreateStaff(store.RoleHRAdmin)
	browserLogin(t, env, ctx, hr)
	file := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(file, webtest.BulkInviteCSV(50), 0o600); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/employees/invite/bulk")),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="bulk-file"]`), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="bulk-upload"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-rows"]`)),
	)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	summary, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="bulk-summary"]`)))
	if !strings.Contains(summary, "50 rows: 47 ready to send, 3 with problems") {
		t.Fatalf("summary %q", summary)
	}
	bad, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="bulk-problems"]').length`))
	if bad != 3 {
		t.Fatalf("%d rows flagged, want 3", bad)
	}
	webtest.Screenshot(t, ctx, "employees-bulk-preview")
	pctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err = chromedp.Do(pctx,
		chromedp.Click(chromedp.CSS(`[data-testid="bulk-send"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-progress"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-finished"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "bulk-not-finished")
		t.Fatalf("progress: %v", err)
	}
	// The finished run shows every row's outcome.
	rctx, rcancel := context.WithTimeout(ctx, 20*time.Second)
	defer rcancel()
	if err := chromedp.Do(rctx, chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid="bulk-row"][data-state="sent"]').length === 47`)); err != nil {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="bulk-row"][data-state="sent"]').length`))
		t.Fatalf("rows shown as sent: %d, want 47 (%v)", n, err)
	}
	pct, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="bulk-percent"]`)))
	if pct != "100%" {
		t.Fatalf("progress %q", pct)
	}
	value, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`#bulk-progress-bar`), "value"))
	if value.Value != "47" {
		t.Fatalf("progress bar value %q", value.Value)
	}
	webtest.Screenshot(t, ctx, "employees-bulk-done")
	var list []webtest.SandboxInvite
	webtest.SandboxControlData(t, env, "GET", "/_sandbox/invites", nil, &list)
	n := 0
	for _, inv := range list {
		if strings.HasPrefix(inv.Email, "bulk") {
			n++
		}
	}
	if n != 47 {
		t.Fatalf("sandbox got %d invites, want 47", n)
	}
}
