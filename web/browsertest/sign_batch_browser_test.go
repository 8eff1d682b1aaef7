package browsertest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserBatchSelectionSurvivesPollsAndSigns: proposals ticked on the
// queue stay ticked while the table re-reads itself, "Sign selected" shows
// one QR code for all of them, the device signs it, and the batch's page
// follows every item to relayed by itself.
func TestBrowserBatchSelectionSurvivesPollsAndSigns(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := webtest.Browser(t)
	device := buildDevice(t)
	keystore := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: keystore}); err != nil {
		t.Fatal(err)
	}
	ids := env.ProposalsAwaitingSignature(3, "8.00")
	s := env.CreateStaff(store.RoleFinanceApprover)
	box := func(id string) string { return `[data-testid="proposal-select"][value="` + id + `"]` }
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/approvals?status=PENDING_SIGNATURES"), s),
		chromedp.WaitVisible(chromedp.CSS(box(ids[0]))),
		chromedp.Click(chromedp.CSS(box(ids[0]))),
		chromedp.Click(chromedp.CSS(box(ids[2]))),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the table's next swap (a new #queue element), then the
	// ticks must still be there.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("queue").dataset.before = "1"; true`)); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.Poll[chromedp.Void](`document.getElementById("queue") && document.getElementById("queue").dataset.before === undefined`)); err != nil {
		t.Fatalf("the table never re-read itself: %v", err)
	}
	ticked, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid="proposal-select"]:checked')).map(b => b.value)`))
	if err != nil || len(ticked) != 2 || ticked[0] == ids[1] || ticked[1] == ids[1] {
		t.Fatalf("ticked after a poll: %v %v", ticked, err)
	}
	link, _ := webtest.ClickForSignQR(t, ctx, `[data-testid="sign-batch-submit"]`, "sign-batch")
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="sign-batch-item"]').length`))
	if err != nil || n != 2 || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") {
		t.Fatalf("batch page: %d items, link %q, %v", n, link, err)
	}
	out, err := exec.Command(device, "sign", "--keystore", keystore, "--yes", link).CombinedOutput()
	if err != nil || strings.Count(string(out), "signed ") != 2 {
		t.Fatalf("device: %v\n%s", err, out)
	}
	rctx, cancel2 := context.WithTimeout(ctx, 20*time.Second)
	defer cancel2()
	if err := chromedp.Do(rctx, chromedp.Poll[chromedp.Void](
		`document.querySelectorAll('[data-testid="sign-batch-item"][data-state="submitted"]').length === 2`)); err != nil {
		t.Fatalf("the batch page never showed both relayed: %v", err)
	}
	if got := env.Sandbox.RequestCount("POST", webtest.SignRoute); got != 2 {
		t.Fatalf("%d sign calls upstream", got)
	}
}
