package peopletest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/web/webtest"
)

// Upstream card read routes, as the sandbox counts them.
const (
	routeCardLive       = "/v1/users/{userId}/cards/{cardId}"
	routeCardDetail     = "/v1/users/{userId}/smart-wallets/{smartWalletId}/cards/{cardId}"
	routeCardLimitsRead = "/v1/users/{userId}/cards/{cardId}/limits"
	routeCardTxns       = "/v1/users/{userId}/cards/{cardId}/transactions"
)

// loadPanels does what htmx does with the detail page's lazy panels: it
// fetches every element's hx-get that triggers on load, as a fragment, and
// swaps the answer in place of the element. It returns how many it loaded.
func loadPanels(t *testing.T, env *webtest.Env, c *http.Client, doc *goquery.Document) int {
	t.Helper()
	n := 0
	doc.Find(`[hx-trigger="load"][hx-get]`).Each(func(_ int, s *goquery.Selection) {
		u, _ := s.Attr("hx-get")
		resp := env.Do(c, http.MethodGet, u, nil, http.Header{"Hx-Request": {"true"}})
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("lazy %s: %d %v", u, resp.StatusCode, err)
		}
		if strings.Contains(string(body), "<html") {
			t.Fatalf("lazy %s answered a whole page to htmx", u)
		}
		s.ReplaceWithHtml(string(body))
		n++
	})
	return n
}

// TestCardDetailReadsTheLiveStatusFirst counts the sandbox's requests per
// route for one view of a card: the page's own request reads the live
// status only (GET /cards/{cardId}, DESIGN.md 7); the balance and ledger,
// limits and transactions come in the one request the page makes once
// shown, each read once, and never the status again. Without htmx the
// same panels are a page of their own.
func TestCardDetailReadsTheLiveStatusFirst(t *testing.T) {
	t.Parallel()
	env, c, _ := webtest.NewCardsEnv(t)
	card := webtest.DemoCard(t, env, "Everyday")
	webtest.SetIssuerStatus(t, env, card.ID, "active")
	counts := func() map[string]int {
		return map[string]int{
			"live":         env.Sandbox.RequestCount("GET", routeCardLive),
			"detail":       env.Sandbox.RequestCount("GET", routeCardDetail),
			"limits":       env.Sandbox.RequestCount("GET", routeCardLimitsRead),
			"transactions": env.Sandbox.RequestCount("GET", routeCardTxns),
		}
	}
	env.Sandbox.ResetRequestCounts()
	resp := env.Get(c, "/cards/"+card.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("detail: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	page := counts()
	t.Logf("the page's own request: %v", page)
	if page["live"] != 1 || page["detail"] != 0 || page["limits"] != 0 || page["transactions"] != 0 {
		t.Fatalf("the page's own request read %v, want the live status once and nothing else", page)
	}
	if st := cardStatus(doc); st != "active" || !strings.Contains(webtest.TestID(doc, "card-status-age"), "live") {
		t.Fatalf("first paint status %q %q", st, webtest.TestID(doc, "card-status-age"))
	}
	if doc.Find(`[data-testid="card-panels-loading"]`).Length() != 1 || doc.Find(`[data-testid="card-panels-link"]`).Length() != 1 {
		t.Fatal("no lazy panels, or no link to them without scripts")
	}
	link, _ := doc.Find(`[data-testid="card-panels-link"]`).Attr("href")
	if n := loadPanels(t, env, c, doc); n != 1 {
		t.Fatalf("%d lazy loads, want 1", n)
	}
	view := counts()
	t.Logf("one whole view: %v", view)
	for route, want := range map[string]int{"live": 1, "detail": 1, "limits": 1, "transactions": 1} {
		if view[route] != want {
			t.Errorf("one view read %s %d times, want %d", route, view[route], want)
		}
	}
	for _, id := range []string{"card-balance-amount", "limit-daily-cap"} {
		if webtest.TestID(doc, id) == "" {
			t.Errorf("panels loaded without %s", id)
		}
	}
	if doc.Find(`[data-testid="limits-form"]`).Length() != 1 || doc.Find(`[data-testid="card-txns"]`).Length() != 1 {
		t.Error("panels loaded without the limits form or the transactions")
	}

	// Without htmx, the panels are a page with a way back.
	resp = env.Get(c, link)
	pdoc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || pdoc.Find(`[data-testid="card-balance-amount"]`).Length() != 1 ||
		pdoc.Find(`a[href="/cards/`+card.ID+`"]`).Length() == 0 || pdoc.Find("html").Length() != 1 {
		t.Fatalf("panels without htmx (%s): %d", link, resp.StatusCode)
	}

	// A canceled card's panels offer no limits form: the status the page
	// just read live decides.
	webtest.SetIssuerStatus(t, env, card.ID, "canceled")
	doc = webtest.Doc(t, env.Get(c, "/cards/"+card.ID))
	loadPanels(t, env, c, doc)
	if doc.Find(`[data-testid="card-limits"]`).Length() != 1 || doc.Find(`[data-testid="limits-form"]`).Length() != 0 {
		t.Error("a canceled card's panels offer the limits form, or have no limits panel")
	}
}
