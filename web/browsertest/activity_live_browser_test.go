package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserActivityShowsNewMoneyWithoutReload: a finance approver keeps
// the activity feed open; an employee's deposit arrives by webhook; its
// line shows on the open page by itself (the first page refreshes its
// lines every 5 s), and the filter the person set stays.
func TestBrowserActivityShowsNewMoneyWithoutReload(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	_, s := env.SignedIn(store.RoleFinanceApprover)
	emily := env.DemoEmployee("Emily").ServiceUserID
	ctx := webtest.Browser(t)
	path := "/activity?kind=deposit&employee=" + emily
	if err := chromedp.Do(ctx, webtest.BrowserSignIn(env.URL("/login?next="+url.QueryEscape(path)), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="activity-results"]`))); err != nil {
		t.Fatal(err)
	}
	count := `document.querySelectorAll('[data-testid="activity-row"][data-kind="deposit"]').length`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](count))
	if err != nil {
		t.Fatal(err)
	}
	wallets, err := env.API.ListWallets(context.Background(), emily)
	if err != nil || len(wallets) == 0 {
		t.Fatalf("wallets: %v %v", wallets, err)
	}
	body, _ := json.Marshal(map[string]string{"smartWalletId": wallets[0].ID, "amount": "31.40"})
	resp, err := http.Post(env.SandboxURL+"/_sandbox/deposits", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("deposit: %v %v", resp, err)
	}
	resp.Body.Close()
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](count+` > `+strconv.Itoa(before)+
		` && document.querySelector('[data-testid="activity-rows"]').textContent.includes("31.40")`)); err != nil {
		t.Fatalf("the deposit never showed on the open page: %v", err)
	}
	kind, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-kind").value`))
	if err != nil || kind != "deposit" {
		t.Fatalf("the filter after the refresh: %q %v", kind, err)
	}
}
