package railstest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The API records a start or the Mexican activation and its answer is
// lost: the app reads the state back (the provider pending, a Mexico KYC
// status), records the action done, and sends nothing twice.
func TestRailsLostAnswersAreReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	webtest.FundedTreasuryWallet(t, env, "EURe", "10.00")
	webtest.FundedTreasuryWallet(t, env, "MEXe", "10.00")

	for _, w := range []struct {
		name, page, form, path, route, kind string
		values                              url.Values
	}{
		{"EUR start", "/treasury/rails/eur", "eur-start-form", "/treasury/rails/eur/start", "/v1/users/{userId}/onboarding/start-eur-provider",
			"treasury.rail.start", url.Values{"identity_level": {apiclient.IdentityLevelIDOnly}}},
		{"MXN start", "/treasury/rails/mxn", "mxn-start-form", "/treasury/rails/mxn/start", "/v1/users/{userId}/onboarding/start-mexico",
			"treasury.rail.start", url.Values{"identity_level": {apiclient.IdentityLevelIDOnly}}},
		{"Mexican identity check", "/treasury/rails/mxn", "mxn-kyc-form", "/treasury/rails/mxn/kyc", "/v1/users/{userId}/latam/mx/kyc/activate",
			"treasury.rail.mx_kyc_activate", url.Values{}},
	} {
		before := env.Sandbox.RequestCount("POST", w.route)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": w.route,
			"drop": true, "after": true, "times": 1})
		doc := page(t, env, c, w.page)
		tok := webtest.FormTokenOf(t, doc, w.form)
		w.values.Set("form_token", tok)
		resp := env.PostForm(c, w.path, w.values)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != w.page {
			t.Fatalf("%s with a lost answer: %d %q", w.name, resp.StatusCode, resp.Header.Get("Location"))
		}
		if n := env.Sandbox.RequestCount("POST", w.route) - before; n != 1 {
			t.Fatalf("%s: %d calls, want 1", w.name, n)
		}
		a, err := env.Store.ActionByKey(ctx, "form:"+tok)
		if err != nil || a.State != store.ActionDone {
			t.Fatalf("%s: action %+v %v", w.name, a, err)
		}
		if last := webtest.LastAudit(t, env, w.kind); last.Outcome != store.OutcomeOK || !strings.Contains(last.Detail, "reading it back") {
			t.Fatalf("%s: audit %+v", w.name, last)
		}
	}
	if st := onboarding(t, env); st.EURProviderStatus != "pending" {
		t.Fatalf("provider %q after a lost answer read back", st.EURProviderStatus)
	}
}
