package railstest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestRailsStartWhenTheIdentityCheckIsNotReady: when the API says the
// treasury's identity check cannot be activated, the start says what it
// still needs, in words, at the form, and sends nothing.
func TestRailsStartWhenTheIdentityCheckIsNotReady(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.FundedTreasuryWallet(t, env, "EURe", "10.00")
	webtest.EditSandboxState(t, env, func(st map[string]any) {
		delete(webtest.SandboxObject(st, "rails", "kyc", env.Demo.TreasuryUserID), "proofOfAddress")
	})
	activations := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/kyc/activate")
	doc := page(t, env, c, "/treasury/rails/eur")
	resp := post(t, env, c, doc, "eur-start-form", "/treasury/rails/eur/start", url.Values{"identity_level": {apiclient.IdentityLevelIDOnly}})
	doc = webtest.Doc(t, resp)
	msg := webtest.TestID(doc, "eur-start-form-error")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(msg, "a proof of address") || !strings.Contains(msg, "Nothing was sent") {
		t.Fatalf("not ready: %d %q", resp.StatusCode, msg)
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/kyc/activate") - activations; n != 0 || len(audits(t, env, "treasury.rail.start")) != 0 {
		t.Fatalf("%d activations sent for a profile that is not ready", n)
	}
	if doc.Find(`[data-testid="eur-start-form"] input[name="form_token"]`).AttrOr("value", "") == "" {
		t.Fatal("no fresh form to send again")
	}
}
