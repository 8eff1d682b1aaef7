package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// buildDevice builds cmd/device, the device stand-in the journey runs.
func buildDevice(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "device")
	cmd := exec.Command("go", "build", "-o", bin, "partneradmin/cmd/device")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build cmd/device: %v\n%s", err, out)
	}
	return bin
}

// TestBrowserApproveAndSignThroughTheQRCode is the headline journey: a
// finance approver approves a transfer, sends it to the owner's device as a
// QR code, the device signs what the code says, and the page reaches
// completed while the balances move.
func TestBrowserApproveAndSignThroughTheQRCode(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SandboxOptions: sandbox.Options{SettleDelay: time.Millisecond}})
	ctx := webtest.Browser(t)
	device := buildDevice(t)
	keystore := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: keystore}); err != nil {
		t.Fatal(err)
	}
	admins := webtest.TreasuryAdmins(t, env)
	// Emily (admins[0]) approved the travel reimbursement in the demo; this
	// approver acts as Oliver, the second admin.
	c, s := webtest.Approver(t, env, admins[1])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Travel reimbursement")
	oliver := env.DemoEmployee("Oliver").ServiceUserID
	before := webtest.CoinBalance(t, env, oliver, "USDB")

	row := `[data-testid="proposal-row"][data-id="` + id + `"]`
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/approvals"), s),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	if err != nil {
		t.Fatal(err)
	}
	approvals, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row+` [data-testid="proposal-approvals"]`)))
	if err != nil || approvals != "1 of 2" {
		t.Fatalf("queue approvals %q %v", approvals, err)
	}
	webtest.Screenshot(t, ctx, "approval-queue")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(row+` [data-testid="proposal-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="approve-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="approve-form"] input[name="confirm"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="create-sign-request"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`[data-testid="detail-status"]`), "data-status"))
	if err != nil || status.Value != "PENDING_SIGNATURES" {
		t.Fatalf("after approving: %q %v", status.Value, err)
	}
	link, png := webtest.ClickForSignQR(t, ctx, `[data-testid="create-sign-request"]`, "sign-request")
	if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "sign-qr.png"), png, 0o644)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("sign-link").value`))
	if err != nil || shown != link || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") {
		t.Fatalf("QR says %q, page shows %q (%v)", link, shown, err)
	}

	// The device: fetch, show, sign raw, post.
	cmd := exec.Command(device, "sign", "--keystore", keystore, "--yes", link)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("device: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "350.5 USD") || !strings.Contains(string(out), "signed:") {
		t.Fatalf("device output:\n%s", out)
	}

	// The page follows the request to completed by itself (htmx polling).
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="sign-state"][data-state="completed"]`))); err != nil {
		t.Fatalf("sign state never completed: %v", err)
	}
	webtest.Screenshot(t, ctx, "sign-completed")
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if p.Status != store.ProposalCompleted {
		t.Fatalf("mirror status %s", p.Status)
	}
	if got := webtest.CoinBalance(t, env, oliver, "USDB"); !got.Sub(before).Equal(decimal.RequireFromString("350.50")) {
		t.Fatalf("Oliver's balance %s → %s", before, got)
	}
}
