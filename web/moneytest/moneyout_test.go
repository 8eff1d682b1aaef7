package moneytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Finance and the owner find every rail value leaves by from the
// navigation; HR and support do not.
func TestMoneyOutListsTheRails(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleOwner} {
		c, _ := env.SignedIn(role)
		doc := webtest.Doc(t, env.Get(c, "/money-out"))
		if doc.Find(`nav[aria-label="Main"] a[href="/money-out"]`).Length() != 1 {
			t.Errorf("%s: no Money out in the navigation", role)
		}
		rails := doc.Find(`[data-testid="rail"] a`)
		if rails.Length() < 2 {
			t.Fatalf("%s: %d rails", role, rails.Length())
		}
		rails.Each(func(_ int, a *goquery.Selection) {
			href := a.AttrOr("href", "")
			resp := env.Get(c, strings.SplitN(href, "#", 2)[0])
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: rail %s answers %d", role, href, resp.StatusCode)
			}
		})
		if got := webtest.TestID(doc, "moneyout-balances"); !strings.Contains(got, "249,500.00 USD (USDB)") {
			t.Errorf("%s: balances %q", role, got)
		}
	}
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		resp := env.Get(c, "/money-out")
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d", role, resp.StatusCode)
		}
	}
}
