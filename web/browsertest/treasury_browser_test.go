package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserTreasuryTransferRecipientIsPickedBySearch types part of a name
// into the transfer form's recipient search, reaches the person found with
// the keyboard (Tab, then Space) and proposes the transfer.
func TestBrowserTreasuryTransferRecipientIsPickedBySearch(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := webtest.Browser(t)
	owner := env.CreateStaff(store.RoleOwner)
	browserLogin(t, env, ctx, owner)

	found := `#transfer-to-results input[name="to_user_id"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL("/treasury")), chromedp.WaitVisible(chromedp.CSS(`[data-testid="balances-table"]`))); err != nil {
		t.Fatal(err)
	}
	webtest.Screenshot(t, ctx, "treasury")
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL("/treasury")),
		chromedp.WaitVisible(chromedp.ID("transfer-to")),
		chromedp.SetValue(chromedp.ID("transfer-wallet"), webtest.TreasuryWallet(t, env, "USDB").ID),
		chromedp.SendKeys(chromedp.ID("transfer-to"), "emily car"),
		chromedp.WaitVisible(chromedp.CSS(found)),
		chromedp.KeyEvent(kb.Tab),
		chromedp.KeyEvent(" "),
		chromedp.WaitReady(chromedp.CSS(found+`:checked`)),
		chromedp.SendKeys(chromedp.ID("transfer-amount"), "12.50"),
		chromedp.SendKeys(chromedp.ID("transfer-description"), "Picked by search"),
		chromedp.Click(chromedp.CSS(`[data-testid="transfer-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="detail-status"]`)),
	)
	if err != nil {
		webtest.Screenshot(t, ctx, "treasury-recipient-failed")
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "/approvals/") {
		t.Fatalf("after the transfer: %q %v", loc, err)
	}
	p, err := env.Store.ProposalByID(context.Background(), loc[strings.LastIndex(loc, "/")+1:])
	if err != nil || p.ToUserID != env.DemoEmployee("Emily").ServiceUserID || p.Amount.String() != "12.5" || p.Description != "Picked by search" {
		t.Fatalf("proposal: %+v %v", p, err)
	}
}
