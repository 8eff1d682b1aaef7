package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// cardsEnv starts the app and fills the card index through the real
// refresh route, as support would.
func cardsEnv(t *testing.T) (*webtest.Env, *http.Client, webtest.Staff) {
	t.Helper()
	env := webtest.New(t, webtest.Options{})
	c, s := env.SignedIn(store.RoleSupport)
	resp := env.PostForm(c, "/cards/refresh", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("refresh: %d", resp.StatusCode)
	}
	return env, c, s
}

// demoCard finds one of the demo company's cards by name in the index.
func demoCard(t *testing.T, env *webtest.Env, name string) store.CardHit {
	t.Helper()
	hits, _, err := env.Store.SearchCards(context.Background(), store.CardSearch{Query: name, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.CardName == name {
			return h
		}
	}
	t.Fatalf("card %q not in the index (%d hits)", name, len(hits))
	return store.CardHit{}
}

// sandboxControl calls the sandbox's control API.
func sandboxControl(t *testing.T, env *webtest.Env, method, path string, body any) []byte {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, env.SandboxURL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("sandbox %s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return out
}

func setIssuerStatus(t *testing.T, env *webtest.Env, cardID, status string) {
	t.Helper()
	sandboxControl(t, env, http.MethodPut, "/_sandbox/cards/"+cardID+"/issuer-status", map[string]string{"status": status})
}

// htmxPost posts a form as htmx does.
func htmxPost(t *testing.T, env *webtest.Env, c *http.Client, path string, form url.Values) *goquery.Document {
	t.Helper()
	resp := env.Do(c, http.MethodPost, path, strings.NewReader(form.Encode()), http.Header{
		"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"},
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("htmx POST %s: %d", path, resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

func cardStatus(doc *goquery.Document) string {
	s, _ := doc.Find(`[data-testid="card-status"]`).First().Attr("data-status")
	return s
}

func lastAudit(t *testing.T, env *webtest.Env, action string) store.AuditEntry {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: action, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("no audit row %s", action)
	}
	return rows[0]
}

func TestCardSearchFindsByNameEmailCardAndLastFour(t *testing.T) {
	env, c, _ := cardsEnv(t)
	everyday := demoCard(t, env, "Everyday")
	for _, q := range []string{"adaeze", "ADAEZE.OKAFOR@", "everyday", everyday.Last4, everyday.ID[:8]} {
		resp := env.Get(c, "/cards?q="+url.QueryEscape(q))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("search %q: %d", q, resp.StatusCode)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q", cc)
		}
		doc := webtest.Doc(t, resp)
		found := false
		doc.Find(`[data-testid="card-row"]`).Each(func(_ int, s *goquery.Selection) {
			if id, _ := s.Attr("data-card-id"); id == everyday.ID {
				found = true
				if st, _ := s.Find(`[data-testid="card-status"]`).Attr("data-status"); st != "active" {
					t.Errorf("row status %q", st)
				}
				if s.Find(`[data-testid="card-swatch"] rect`).AttrOr("fill", "") != "#1E88E5" {
					t.Errorf("swatch %q", s.Find(`[data-testid="card-swatch"] rect`).AttrOr("fill", ""))
				}
				if got := webtest.TestID(goquery.NewDocumentFromNode(s.Nodes[0]), "card-funded"); got != "yes" {
					t.Errorf("funded %q", got)
				}
				if s.Find(`[data-testid="card-freeze"]`).Length() != 1 {
					t.Error("no freeze button one click from the search")
				}
			}
		})
		if !found {
			t.Errorf("search %q did not find Everyday", q)
		}
	}
	// Reserved entries show their proposal state and link to the approval.
	doc := webtest.Doc(t, env.Get(c, "/cards?q=subscriptions"))
	row := doc.Find(`[data-testid="card-row"]`).First()
	if st, _ := row.Find(`[data-testid="card-status"]`).Attr("data-status"); st != "reserved" {
		t.Fatalf("reserved row status %q", st)
	}
	href, _ := row.Find(`[data-testid="card-approval-link"]`).Attr("href")
	if !strings.HasPrefix(href, "/approvals/") || !strings.Contains(row.Text(), "PENDING_SIGNATURES") {
		t.Fatalf("reserved row: link %q text %q", href, row.Text())
	}
	// CSV export of the search.
	resp := env.Get(c, "/cards.csv?q=adaeze")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.Contains(string(body), "Everyday") || strings.Count(string(body), "\n") != 7 {
		t.Fatalf("csv %q: %s", resp.Header.Get("Content-Type"), body)
	}
}

func TestCardFreezeAndUnfreezeInPlace(t *testing.T) {
	env, c, support := cardsEnv(t)
	card := demoCard(t, env, "Everyday")
	doc := htmxPost(t, env, c, "/cards/"+card.ID+"/freeze", url.Values{"reason": {"customer lost wallet"}})
	if got := cardStatus(doc); got != "frozen" {
		t.Fatalf("badge after freeze %q: %s", got, webtest.TestID(doc, "card-control-message"))
	}
	if doc.Find(`[data-testid="card-unfreeze"]`).Length() != 1 {
		t.Fatal("no unfreeze button after freezing")
	}
	live, err := env.API.GetCard(context.Background(), card.ServiceUserID, card.ID)
	if err != nil || !strings.EqualFold(string(live.Status), "frozen") {
		t.Fatalf("issuer status %v %v", live, err)
	}
	a := lastAudit(t, env, "card.freeze")
	if a.Outcome != store.OutcomeOK || a.Actor.StaffID != support.ID || a.Target != "card:"+card.ID || !strings.Contains(a.Detail, "customer lost wallet") || !strings.Contains(a.Detail, "BLOCKED") {
		t.Fatalf("audit %+v", a)
	}
	doc = htmxPost(t, env, c, "/cards/"+card.ID+"/unfreeze", url.Values{"view": {"row"}})
	if got := cardStatus(doc); got != "active" {
		t.Fatalf("badge after unfreeze %q", got)
	}
	if a := lastAudit(t, env, "card.unfreeze"); a.Outcome != store.OutcomeOK || !strings.Contains(a.Detail, "ACTIVE") {
		t.Fatalf("audit %+v", a)
	}
}
