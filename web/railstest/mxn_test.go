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

// TestRailsMXNToCLABE: a finance approver follows the Mexican page: the
// start activates and starts Mexico once; the Mexican identity check is
// activated once; the provider's verification is fetched when opened and
// posts to the provider's https address (the page's CSP allows that origin
// alone); after the provider's decision the CLABE shows and the offramp
// form appears.
func TestRailsMXNToCLABE(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)

	doc := page(t, env, c, "/treasury/rails/mxn")
	if stepState(doc, "wallet") != "next" || doc.Find(`[data-testid="mxn-start-form"]`).Length() != 0 {
		t.Fatalf("without a wallet: %q", stepState(doc, "wallet"))
	}
	webtest.FundedTreasuryWallet(t, env, "MEXe", "5000.00")
	doc = page(t, env, c, "/treasury/rails/mxn")
	if stepState(doc, "start") != "next" {
		t.Fatalf("start step %q", stepState(doc, "start"))
	}
	// A stale form: nothing is sent.
	if resp := env.PostForm(c, "/treasury/rails/mxn/start", url.Values{"identity_level": {apiclient.IdentityLevelIDOnly}}); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	resp := post(t, env, c, doc, "mxn-start-form", "/treasury/rails/mxn/start", url.Values{"identity_level": {apiclient.IdentityLevelIDVAndPhone}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d %q", resp.StatusCode, webtest.Doc(t, resp).Find(".field-error").Text())
	}
	doc = page(t, env, c, "/treasury/rails/mxn")
	if stepState(doc, "start") != "done" || stepState(doc, "kyc") != "next" {
		t.Fatalf("after start: %q %q", stepState(doc, "start"), stepState(doc, "kyc"))
	}
	form := url.Values{"form_token": {webtest.FormTokenOf(t, doc, "mxn-kyc-form")}}
	resp = env.PostForm(c, "/treasury/rails/mxn/kyc", form)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("mx kyc: %d", resp.StatusCode)
	}
	// The same form again sends nothing.
	if resp = env.PostForm(c, "/treasury/rails/mxn/kyc", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("mx kyc again: %d", resp.StatusCode)
	}
	if a := audits(t, env, "treasury.rail.mx_kyc_activate"); a[store.OutcomeOK] != 1 || len(a) != 1 {
		t.Fatalf("mx kyc audit %v", a)
	}
	doc = page(t, env, c, "/treasury/rails/mxn")
	if stepState(doc, "verify") != "next" || doc.Find(`[data-testid="mxn-launch-open"]`).Length() != 1 {
		t.Fatalf("verification step %q", stepState(doc, "verify"))
	}

	resp = env.Get(c, "/treasury/rails/mxn/launch")
	launch := webtest.Doc(t, resp)
	action, _ := launch.Find(`[data-testid="rail-launch-form"]`).Attr("action")
	assertion, _ := launch.Find(`[data-testid="rail-launch-form"] input[name="assertion"]`).Attr("value")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(action, "https://") || assertion == "" {
		t.Fatalf("launch: %d %q", resp.StatusCode, action)
	}
	u, _ := url.Parse(action)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://"+u.Host) {
		t.Fatalf("launch CSP %q", csp)
	}
	if page := env.Get(c, "/treasury/rails/mxn"); !strings.Contains(page.Header.Get("Content-Security-Policy"), "form-action 'self';") {
		t.Fatalf("the setup page's own CSP was widened: %q", page.Header.Get("Content-Security-Policy"))
	}

	// The provider decides (the sandbox's clock moves past its delays).
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"duration": "10m"})
	doc = page(t, env, c, "/treasury/rails/mxn")
	if stepState(doc, "verify") != "done" || stepState(doc, "clabe") != "done" || len(webtest.TestID(doc, "mxn-clabe")) < 18 {
		t.Fatalf("after approval: %q %q %q", stepState(doc, "verify"), stepState(doc, "clabe"), webtest.TestID(doc, "mxn-clabe"))
	}
	if doc.Find(`[data-testid="mxn-send"]`).Length() != 1 {
		t.Fatal("no way to the offramp once ready")
	}
	doc = page(t, env, c, "/money-out/mexico")
	if doc.Find(`[data-testid="mx-form"]`).Length() != 1 {
		t.Fatalf("the offramp form does not appear: %q", webtest.TestID(doc, "mx-kyc-words"))
	}
}

// TestRailsUSDStart: the USD page starts the treasury's USD account once,
// after which the account is being opened.
func TestRailsUSDStart(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	doc := page(t, env, c, "/treasury/rails/usd")
	if stepState(doc, "wallet") != "done" || stepState(doc, "start") != "next" {
		t.Fatalf("usd: %q %q", stepState(doc, "wallet"), stepState(doc, "start"))
	}
	resp := post(t, env, c, doc, "usd-start-form", "/treasury/rails/usd/start", url.Values{"identity_level": {apiclient.IdentityLevelIDAndLiveness}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d %q", resp.StatusCode, webtest.Doc(t, resp).Find(".field-error").Text())
	}
	doc = page(t, env, c, "/treasury/rails/usd")
	if stepState(doc, "start") != "done" || stepState(doc, "account") != "waiting" {
		t.Fatalf("after start: %q %q", stepState(doc, "start"), stepState(doc, "account"))
	}
	doc = page(t, env, c, "/treasury/rails")
	if st, _ := doc.Find(`[data-testid="rail-ngn"]`).Attr("data-state"); st != "blocked" || webtest.TestID(doc, "rail-ngn-next") == "" {
		t.Fatalf("NGN on the overview %q", st)
	}
}
