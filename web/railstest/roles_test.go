package railstest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestRailsRefusedRoles: HR admins and support may neither see the rail
// setup nor start anything; their posts, with a valid form token, send
// nothing and are audited as denied. A finance approver may.
func TestRailsRefusedRoles(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	webtest.FundedTreasuryWallet(t, env, "EURe", "10.00")
	webtest.FundedTreasuryWallet(t, env, "MEXe", "10.00")
	gets := []string{"/treasury/rails", "/treasury/rails/eur", "/treasury/rails/mxn", "/treasury/rails/usd", "/treasury/rails/mxn/launch"}
	posts := []string{"/treasury/rails/eur/start", "/treasury/rails/mxn/start", "/treasury/rails/usd/start",
		"/treasury/rails/mxn/kyc", "/treasury/rails/eur/authorize"}
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		for _, p := range gets {
			if resp := env.Get(c, p); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s GET %s: %d, want 403", role, p, resp.StatusCode)
			}
		}
		for _, p := range posts {
			form := url.Values{"form_token": {handlers.NewFormToken()}, "identity_level": {apiclient.IdentityLevelIDOnly}, "code": {"SANDBOX-EUR-1"}}
			if resp := env.PostForm(c, p, form); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s: %d, want 403", role, p, resp.StatusCode)
			}
		}
	}
	st := onboarding(t, env)
	if st.EURProviderStatus == "pending" || st.EURProviderStatus == "active" || signRequests(t, env, store.SignKindEURAuthorization) != 0 {
		t.Fatalf("a refused role changed something: provider %q", st.EURProviderStatus)
	}
	for _, kind := range []string{"treasury.rail.start", "treasury.rail.mx_kyc_activate", "treasury.rail.eur_authorize"} {
		if n := len(audits(t, env, kind)); n != 0 {
			t.Errorf("%s: %d audit rows after refused posts", kind, n)
		}
	}
	// Each refused post is audited as denied (web: every refused
	// state-changing request).
	denied := 0
	for _, r := range webtest.AuditRows(t, env, "access.denied") {
		if strings.HasPrefix(r.Target, "POST /treasury/rails/") {
			denied++
		}
	}
	if denied != 2*len(posts) {
		t.Errorf("%d denied posts audited, want %d", denied, 2*len(posts))
	}

	// The allowed role: the overview and each page open.
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	for _, p := range gets[:4] {
		page(t, env, c, p)
	}
}
