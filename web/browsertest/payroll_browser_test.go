package browsertest

import (
	"context"
	"fmt"
	"net/url"
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

// TestBrowserPayrollRunSignedFromOneQRCode is finance's journey: a 10-row
// run uploaded as a CSV file, previewed, sent, approved by two approvers,
// signed by the owner's device from ONE QR code, and every row completed,
// with the employees credited and the treasury debited by the run's total.
func TestBrowserPayrollRunSignedFromOneQRCode(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true, SandboxOptions: sandbox.Options{SettleDelay: time.Millisecond}})
	ctx := webtest.Browser(t)
	device := buildDevice(t)
	keystore := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: keystore}); err != nil {
		t.Fatal(err)
	}
	admins := webtest.TreasuryAdmins(t, env)
	// The sender may not approve what they send: two other approvers do.
	s1 := env.CreateStaff(store.RoleFinanceApprover)
	a1, _ := webtest.Approver(t, env, admins[0])
	a2, _ := webtest.Approver(t, env, admins[1])

	// The demo's linked employees hold nine USDB and CNGN wallets between
	// them; a tenth, opened upstream for someone without a USDB wallet.
	addUSDBWallet(t, env)
	// Ten rows: linked employees' USDB and CNGN wallets (the treasury holds
	// both), no employee twice in one currency.
	rows, err := env.Store.Pool().Query(context.Background(), `SELECT e.email, e.service_user_id, w.currency FROM employees e
		JOIN wallets w ON w.employee_id = e.id AND w.currency IN ('USDB', 'CNGN')
		WHERE e.kind = 'employee' AND e.service_user_id IS NOT NULL AND e.deleted_at IS NULL
		ORDER BY w.currency DESC, e.id LIMIT 10`)
	if err != nil {
		t.Fatal(err)
	}
	type pay struct{ email, user, coin string }
	var pays []pay
	for rows.Next() {
		var p pay
		if err := rows.Scan(&p.email, &p.user, &p.coin); err != nil {
			t.Fatal(err)
		}
		pays = append(pays, p)
	}
	if rows.Err() != nil || len(pays) != 10 {
		t.Fatalf("%d employee wallets to pay (%v)", len(pays), rows.Err())
	}
	amountOf := func(i int) decimal.Decimal {
		return decimal.New(int64(100+i), 0).Add(decimal.RequireFromString("0.25"))
	}
	csv := "employee,amount,currency,description\n"
	total := map[string]decimal.Decimal{}
	before := map[int]decimal.Decimal{}
	for i, p := range pays {
		total[p.coin] = total[p.coin].Add(amountOf(i))
		csv += fmt.Sprintf("%s,%s,%s,November salary\n", p.email, amountOf(i), p.coin)
		before[i] = webtest.CoinBalance(t, env, p.user, p.coin)
	}
	treasuryBefore := map[string]decimal.Decimal{}
	for coin := range total {
		treasuryBefore[coin] = webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, coin)
	}
	file := filepath.Join(t.TempDir(), "november.csv")
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}

	// Upload, preview, send.
	err = chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/payroll/new"), s1),
		chromedp.WaitVisible(chromedp.ID("payroll-file")),
		chromedp.SendKeys(chromedp.ID("payroll-csv-name"), "November"),
		chromedp.SetUploadFiles(chromedp.ID("payroll-file"), []string{file}),
		chromedp.Click(chromedp.CSS(`[data-testid="payroll-csv-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="payroll-send"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "payroll-upload-failed")
		t.Fatal(err)
	}
	webtest.Screenshot(t, ctx, "payroll-preview")
	// wait evaluates js until it is true; a page being replaced meanwhile
	// (a form's redirect) is just looked at again.
	wait := func(what, js string) {
		t.Helper()
		var err error
		if !webtest.Eventually(60*time.Second, func() bool {
			var ok bool
			ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool](js))
			return err == nil && ok
		}) {
			webtest.Screenshot(t, ctx, "payroll-"+strings.ReplaceAll(what, " ", "-"))
			t.Fatalf("%s: %v", what, err)
		}
	}
	rowsIn := func(state string) string {
		return `document.querySelectorAll('[data-testid="payroll-row"][data-state="` + state + `"]').length === 10`
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="payroll-send"]`))); err != nil {
		t.Fatal(err)
	}
	wait("sent", rowsIn("pending_approvals"))
	webtest.Screenshot(t, ctx, "payroll-sent")
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if _, err := fmt.Sscanf(loc[strings.LastIndex(loc, "/payroll/"):], "/payroll/%d", &id); err != nil {
		t.Fatalf("run page %q: %v", loc, err)
	}

	// The sender is offered no approval; two approvers each approve the
	// whole run in one action.
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="payroll-approve"]').length`)); err != nil || n != 0 {
		t.Fatalf("the sender is offered to approve: %d %v", n, err)
	}
	webtest.ApprovePayrollRun(t, env, a1, id)
	webtest.ApprovePayrollRun(t, env, a2, id)

	// One QR code for the ten proposals; the device signs them all.
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL(fmt.Sprintf("/payroll/%d", id))),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="payroll-sign"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	label, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="payroll-sign"]`)))
	if err != nil || label != "Sign all 10 from one QR code" {
		t.Fatalf("sign button %q %v", label, err)
	}
	link, _ := webtest.ClickForSignQR(t, ctx, `[data-testid="payroll-sign"]`, "payroll-sign-batch")
	out, err := exec.Command(device, "sign", "--keystore", keystore, "--yes", link).CombinedOutput()
	if err != nil || strings.Count(string(out), "signed ") != 10 {
		t.Fatalf("device: %v\n%s", err, out)
	}

	// The run page follows every row to completed (the mirror re-reads the
	// proposals; the page polls).
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL(fmt.Sprintf("/payroll/%d", id)))); err != nil {
		t.Fatal(err)
	}
	// The page is looked at on every poll, the mirror refreshed at most
	// twice a second (each refresh re-reads every proposal).
	var refreshed time.Time
	if !webtest.Eventually(60*time.Second, func() bool {
		if time.Since(refreshed) >= 500*time.Millisecond {
			resp := env.PostForm(a2, "/approvals/refresh", url.Values{})
			resp.Body.Close()
			refreshed = time.Now()
		}
		done, err := chromedp.Run(ctx, chromedp.Evaluate[bool](rowsIn("completed")))
		return err == nil && done
	}) {
		webtest.Screenshot(t, ctx, "payroll-not-completed")
		t.Fatal("the run's rows never all completed")
	}
	webtest.Screenshot(t, ctx, "payroll-completed")
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="payroll-cancel-form"]').length`)); err != nil || n != 0 {
		t.Errorf("a completed run offers to cancel it: %d %v", n, err)
	}

	// Balances as decimals: each employee credited, the treasury debited.
	for i, p := range pays {
		if got, want := webtest.CoinBalance(t, env, p.user, p.coin), before[i].Add(amountOf(i)); !got.Equal(want) {
			t.Errorf("employee %s %s: %s, want %s", p.user, p.coin, got, want)
		}
	}
	for coin, sum := range total {
		if got := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, coin); !got.Equal(treasuryBefore[coin].Sub(sum)) {
			t.Errorf("treasury %s %s → %s, want a debit of %s", coin, treasuryBefore[coin], got, sum)
		}
	}
}

// addUSDBWallet opens a USDB wallet upstream (in the sandbox's state) for a
// linked employee who has none, and mirrors it, as the employee page's read
// would.
func addUSDBWallet(t *testing.T, env *webtest.Env) {
	t.Helper()
	ctx := context.Background()
	var employeeID int64
	var user string
	err := env.Store.Pool().QueryRow(ctx, `SELECT e.id, e.service_user_id FROM employees e
		WHERE e.kind = 'employee' AND e.service_user_id IS NOT NULL AND e.deleted_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.employee_id = e.id AND w.currency = 'USDB')
		ORDER BY e.id LIMIT 1`).Scan(&employeeID, &user)
	if err != nil {
		t.Fatal(err)
	}
	const id, address = "payroll-extra-usdb", "0x00000000000000000000000000000000000000aa"
	webtest.EditSandboxState(t, env, func(st map[string]any) {
		wallets := webtest.SandboxObject(st, "wallets")
		var model map[string]any
		for _, w := range wallets {
			if m, ok := w.(map[string]any); ok && m["currency"] == "USDB" {
				model = m
				break
			}
		}
		w := map[string]any{}
		for k, v := range model {
			w[k] = v
		}
		w["id"], w["userId"], w["address"], w["balance"], w["seq"] = id, user, address, "0", 1_000_000
		wallets[id] = w
	})

	if err := env.Store.UpsertWallet(ctx, store.Wallet{ID: id, EmployeeID: employeeID, Currency: "USDB", DisplayCurrency: "USD",
		Address: address, Status: "active"}); err != nil {
		t.Fatal(err)
	}
}
