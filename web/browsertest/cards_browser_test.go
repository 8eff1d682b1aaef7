package browsertest

import (
	"testing"

	"github.com/chromedp/chromedp"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestBrowserSupportFreezesACard: support signs in, re-reads the card
// lists, searches an employee, freezes a card from the search results, sees
// the badge change in place, and unfreezes it.
func TestBrowserSupportFreezesACard(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleSupport)
	ctx := webtest.Browser(t)
	err := chromedp.Do(ctx,
		webtest.BrowserSignIn(env.URL("/login"), s),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="dashboard-title"]`)),
		chromedp.Navigate(env.URL("/cards")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-refresh"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="cards-refresh"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cards-table"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	card := webtest.DemoCard(t, env, "Everyday")
	row := `tr[data-card-id="` + card.ID + `"] `
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("f-q"), "Adaeze Oka")); err != nil {
		t.Fatal(err)
	}
	// htmx replaces the results as the query is typed; wait for the last
	// search to land before clicking in its results.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`location.search.includes("Oka") && document.querySelector(".htmx-request") === null`)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="card-freeze"]`)),
		chromedp.Click(chromedp.CSS(row+`[data-testid="card-freeze"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="card-status"][data-status="frozen"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="card-unfreeze"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	webtest.Screenshot(t, ctx, "card-frozen")
	if live, err := env.API.GetCard(t.Context(), card.ServiceUserID, card.ID); err != nil || string(live.Status) != "frozen" {
		t.Fatalf("issuer status after the click: %v %v", live, err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(row+`[data-testid="card-unfreeze"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="card-status"][data-status="active"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if live, err := env.API.GetCard(t.Context(), card.ServiceUserID, card.ID); err != nil || string(live.Status) != "active" {
		t.Fatalf("issuer status after unfreeze: %v %v", live, err)
	}
	// The detail page shows the live status and the same button.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(row+`[data-testid="card-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="card-status-panel"] [data-testid="card-freeze"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="card-reason"]`), "reported by phone"),
		chromedp.Click(chromedp.CSS(`[data-testid="card-status-panel"] [data-testid="card-freeze"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="card-status-panel"] [data-testid="card-status"][data-status="frozen"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	webtest.Screenshot(t, ctx, "card-detail-frozen")
	if a := webtest.LastAudit(t, env, "card.freeze"); a.Actor.StaffID != s.ID || a.Outcome != store.OutcomeOK {
		t.Fatalf("audit %+v", a)
	}
}
