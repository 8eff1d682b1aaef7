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

// The funding page's USD start is a link to the USD rail's page, which
// activates and starts in one go: on a failed account, five posts of one
// form at once make one activation, one start-usa call and one audit row;
// the funding page then shows the account being set up and no start.
func TestRailsUSDFromTheFundingPageSendsOnceForOneForm(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	tid := env.Demo.TreasuryUserID
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.EditSandboxState(t, env, func(st map[string]any) {
		webtest.SandboxObject(st, "users", tid, "onboarding")["USD"] = "failed"
	})

	doc := page(t, env, c, webtest.FundingPath)
	link := doc.Find(`[data-testid="funding-usd-start"]`)
	if href := link.AttrOr("href", ""); href != "/treasury/rails/usd" || !strings.Contains(link.Text(), "again") {
		t.Fatalf("funding page's USD start: %q %q", href, link.Text())
	}
	doc = page(t, env, c, "/treasury/rails/usd")
	if stepState(doc, "start") != "next" || !strings.Contains(webtest.TestID(doc, "step-start"), "failed") {
		t.Fatalf("usd page on a failed account: %q %q", stepState(doc, "start"), webtest.TestID(doc, "step-start"))
	}
	form := url.Values{"form_token": {webtest.FormTokenOf(t, doc, "usd-start-form")}, "identity_level": {apiclient.IdentityLevelIDAndLiveness}}
	activations, starts := env.Sandbox.RequestCount("POST", routeActivate), env.Sandbox.RequestCount("POST", webtest.StartUSARoute)
	// The call is slow, so the posts overlap it.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.StartUSARoute, "latencyMs": 300, "times": 1})
	for code := range env.PostFormAtOnce(c, "/treasury/rails/usd/start", form, 5) {
		if code != http.StatusSeeOther {
			t.Errorf("answer %d, want 303", code)
		}
	}
	if a, s := env.Sandbox.RequestCount("POST", routeActivate)-activations, env.Sandbox.RequestCount("POST", webtest.StartUSARoute)-starts; a != 1 || s != 1 {
		t.Fatalf("%d activations and %d start-usa calls for one form, want 1 and 1", a, s)
	}
	if got := audits(t, env, kindStart); got[store.OutcomeOK] != 1 || len(got) != 1 {
		t.Fatalf("audit: %v", got)
	}
	vba, err := env.API.GetUSDVirtualAccount(ctx, tid)
	if err != nil || vba.Status != apiclient.VirtualAccountProvisioning {
		t.Fatalf("upstream: %+v %v", vba, err)
	}
	doc = page(t, env, c, webtest.FundingPath)
	if s := webtest.TestID(doc, "funding-usd-status"); !strings.Contains(s, "Being set up") || doc.Find(`[data-testid="funding-usd-start"]`).Length() != 0 {
		t.Fatalf("after the start: %q, start offered %d", s, doc.Find(`[data-testid="funding-usd-start"]`).Length())
	}
	// Without a token nothing is sent.
	resp := env.PostForm(c, "/treasury/rails/usd/start", url.Values{"identity_level": {apiclient.IdentityLevelIDAndLiveness}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || env.Sandbox.RequestCount("POST", webtest.StartUSARoute)-starts != 1 {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
}

// The sandbox's route of the identity check's activation, and the ledger's
// kind of a rail start.
const (
	routeActivate = "/v1/users/{userId}/kyc/activate"
	kindStart     = "treasury.rail.start"
)

// start-usa's answer is lost after the API recorded it (every attempt: the
// client retries start-usa, which the spec makes safe): the app reads the
// USD account back and records the start as done.
func TestRailsUSDStartWithALostAnswerIsReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	doc := page(t, env, c, "/treasury/rails/usd")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.StartUSARoute,
		"status": 503, "after": true})
	resp := post(t, env, c, doc, "usd-start-form", "/treasury/rails/usd/start", url.Values{"identity_level": {apiclient.IdentityLevelIDOnly}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/treasury/rails/usd" {
		t.Fatalf("lost answer: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if last := webtest.LastAudit(t, env, kindStart); last.Outcome != store.OutcomeOK || !strings.Contains(last.Detail, "reading it back") {
		t.Fatalf("audit: %+v", last)
	}
	if stepState(page(t, env, c, "/treasury/rails/usd"), "account") != "waiting" {
		t.Fatal("the USD page does not show the account being opened")
	}
}
