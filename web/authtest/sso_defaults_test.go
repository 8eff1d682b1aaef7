package authtest

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Single sign-on never makes an owner at a first sign-in: the role list
// starts with the least powerful role and has no owner, and an owner
// posted anyway is refused with a word why.
func TestOIDCFirstSignInNeverMakesAnOwner(t *testing.T) {
	t.Parallel()
	p := newTestIdP(t)
	env := newOIDCEnv(t, p, newTestClock().Now)
	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/settings/sign-in"))
	var values []string
	doc.Find(`#jit_role option`).Each(func(_ int, o *goquery.Selection) {
		v, _ := o.Attr("value")
		values = append(values, v)
	})
	if len(values) < 2 || values[0] != "" || values[1] != string(store.RoleSupport) || slices.Contains(values, string(store.RoleOwner)) {
		t.Fatalf("first sign-in roles offered: %q", values)
	}
	resp := postSignInSettings(t, env, owner, url.Values{"jit_role": {"owner"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "jit_role-error"), "never by signing in") {
		t.Fatalf("owner as first sign-in role: %d %q", resp.StatusCode, webtest.TestID(doc, "jit_role-error"))
	}
	if st, _ := env.Store.SignInSettings(context.Background()); st.JITRole != "" {
		t.Fatalf("owner saved as the first sign-in role: %+v", st)
	}
}
