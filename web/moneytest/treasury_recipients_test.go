package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// recipientSearch asks the recipient picker's search and returns the
// fragment.
func recipientSearch(t *testing.T, env *webtest.Env, c *http.Client, q url.Values) *goquery.Document {
	t.Helper()
	resp := env.Get(c, "/treasury/recipients?"+q.Encode())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("recipient search %v: %d", q, resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

// recipientOptions are the people a picker offers: serviceUserId → label.
func recipientOptions(s *goquery.Selection) map[string]string {
	out := map[string]string{}
	s.Find(`input[type=radio][name=to_user_id]`).Each(func(_ int, in *goquery.Selection) {
		v, _ := in.Attr("value")
		out[v] = strings.Join(strings.Fields(in.Parent().Text()), " ")
	})
	return out
}

func serviceUserIDOf(t *testing.T, env *webtest.Env, email string) string {
	t.Helper()
	var id string
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT service_user_id FROM employees WHERE email = $1`, email).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestTreasuryRecipientIsFoundBySearchNotListed(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	webtest.SeedLoadEmployees(t, env, 400)
	if _, err := env.Store.Pool().Exec(context.Background(), `INSERT INTO employees (kind, email, first_name, last_name, country, invite_state, service_user_id)
		VALUES ('employee', 'half@load.example', 'Fifty', 'Fifty%Off', 'GBR', 'linked', 'svc-percent')`); err != nil {
		t.Fatal(err)
	}
	c, _ := env.SignedIn(store.RoleFinanceApprover)

	// The page lists nobody: a search box per form and an empty result list.
	resp := env.Get(c, "/treasury")
	body := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	if n := body.Find(`[name=to_user_id]`).Length(); n != 0 {
		t.Fatalf("the page offers %d recipients", n)
	}
	if html, _ := body.Html(); strings.Contains(html, "@load.example") || strings.Contains(html, "Person00") {
		t.Fatal("the page names seeded employees")
	}
	for _, id := range []string{"transfer-to", "send-to"} {
		in := body.Find("#" + id)
		if typ, _ := in.Attr("type"); typ != "search" || in.AttrOr("hx-get", "") != "/treasury/recipients" ||
			in.AttrOr("hx-target", "") != "#"+id+"-results" || body.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Fatalf("%s is not a labelled search box: %v", id, in.Nodes)
		}
		if body.Find("fieldset#"+id+"-results legend").Length() != 1 || webtest.TestID(body, id+"-prompt") == "" {
			t.Fatalf("%s: no result fieldset with a legend and a prompt", id)
		}
	}

	// Fewer than two characters: a hint, no search.
	doc := recipientSearch(t, env, c, url.Values{"picker": {"transfer-to"}, "to_search": {" p "}})
	if len(recipientOptions(doc.Selection)) != 0 || !strings.Contains(webtest.TestID(doc, "transfer-to-prompt"), "at least 2") {
		t.Fatalf("short search: %v", recipientOptions(doc.Selection))
	}

	// By the start of a word of the name (the 5th of each five is not
	// linked, so not offered); the middle of a word finds no one.
	doc = recipientSearch(t, env, c, url.Values{"picker": {"transfer-to"}, "to_search": {"person0012"}})
	got := recipientOptions(doc.Find("#transfer-to-results"))
	if len(got) != 8 {
		t.Fatalf("person0012: %v", got)
	}
	if got := recipientOptions(recipientSearch(t, env, c, url.Values{"to_search": {"son0012"}}).Selection); len(got) != 0 {
		t.Fatalf("son0012 (inside a word): %v", got)
	}
	id123 := serviceUserIDOf(t, env, "person00123@load.example")
	if got[id123] != "First123 Person00123 person00123@load.example" {
		t.Fatalf("person 123: %q in %v", got[id123], got)
	}
	if _, ok := got[serviceUserIDOf(t, env, "person00121@load.example")]; !ok {
		t.Fatalf("no person 121 in %v", got)
	}
	// By email, in the send form's picker.
	doc = recipientSearch(t, env, c, url.Values{"picker": {"send-to"}, "to_search": {"PERSON00124@load"}})
	got = recipientOptions(doc.Find("#send-to-results"))
	if id := serviceUserIDOf(t, env, "person00124@load.example"); len(got) != 1 || got[id] == "" {
		t.Fatalf("by email: %v", got)
	}
	// Linked people only, and a clear message when nobody matches.
	doc = recipientSearch(t, env, c, url.Values{"picker": {"transfer-to"}, "to_search": {"Person00125"}})
	if len(recipientOptions(doc.Selection)) != 0 || !strings.Contains(webtest.TestID(doc, "transfer-to-none"), "Person00125") {
		t.Fatalf("not linked: %v %q", recipientOptions(doc.Selection), webtest.TestID(doc, "transfer-to-none"))
	}
	// % separates words; it is not a wildcard.
	doc = recipientSearch(t, env, c, url.Values{"to_search": {"fifty%off"}})
	if got := recipientOptions(doc.Selection); len(got) != 1 || got["svc-percent"] == "" {
		t.Fatalf("fifty%%off: %v", got)
	}
	doc = recipientSearch(t, env, c, url.Values{"to_search": {"n%1"}})
	if got := recipientOptions(doc.Selection); len(got) != 0 || webtest.TestID(doc, "transfer-to-none") == "" {
		t.Fatalf("%% matched as a wildcard: %d", len(got))
	}
	// A broad search shows the first 20 and says so.
	doc = recipientSearch(t, env, c, url.Values{"to_search": {"person"}})
	if got := recipientOptions(doc.Selection); len(got) != store.RecipientSearchLimit || webtest.TestID(doc, "transfer-to-more") == "" {
		t.Fatalf("broad search: %d", len(got))
	}
	// The person already chosen stays first and checked whatever is searched.
	emily := env.DemoEmployee("Emily").ServiceUserID
	doc = recipientSearch(t, env, c, url.Values{"to_search": {"Person00123"}, "to_user_id": {emily}})
	radios := doc.Find(`input[name=to_user_id]`)
	if radios.Length() != 2 || radios.First().AttrOr("value", "") != emily || radios.First().AttrOr("checked", "no") == "no" ||
		!strings.Contains(radios.First().Parent().Text(), "Emily Carter") || radios.Eq(1).AttrOr("checked", "no") != "no" {
		t.Fatalf("chosen lost: %v", recipientOptions(doc.Selection))
	}

	// Not for roles without the treasury permission.
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		other, _ := env.SignedIn(role)
		resp := env.Get(other, "/treasury/recipients?to_search=person")
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %d", role, resp.StatusCode)
		}
	}
}

// TestTreasuryRecipientSearchTooLongIsSaid: a search the picker cannot run
// (longer than any name or email) says so, instead of asking for at least
// 2 characters as if nothing had been typed.
func TestTreasuryRecipientSearchTooLongIsSaid(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	for _, typed := range []string{strings.Repeat("ada ", 60), strings.Repeat("a", 5000)} {
		doc := recipientSearch(t, env, c, url.Values{"picker": {"transfer-to"}, "to_search": {typed}})
		if doc.Find(`[data-testid="transfer-to-prompt"]`).Length() != 0 {
			t.Errorf("%q: asked for at least 2 characters", typed)
		}
		if words := webtest.TestID(doc, "transfer-to-problem"); words == "" {
			t.Errorf("%q: no words about the search", typed)
		}
	}
}
