package fundingtest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// loseNextAnswer makes the sandbox record the next write on route and then
// close the connection without answering.
func loseNextAnswer(t *testing.T, env *webtest.Env, method, route string) {
	t.Helper()
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults",
		map[string]any{"method": method, "route": route, "drop": true, "after": true, "times": 1})
}

// An EUR account opened upstream whose answer is lost is read back from
// the deposit accounts: done, shown, audited, asked once.
func TestLostProvisionAnswerIsReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	fin, _ := env.SignedIn(store.RoleFinanceApprover)
	tid := env.Demo.TreasuryUserID
	webtest.EditSandboxState(t, env, func(st map[string]any) {
		o := webtest.SandboxObject(st, "rails", "onboarding", tid)
		o["userId"], o["eurProviderStatus"] = tid, "active"
	})
	form := formOf(t, page(t, env, fin).Find(`[data-testid="funding-EUR-provision-form"]`))
	loseNextAnswer(t, env, "POST", "/v1/users/{userId}/vba/eu")
	if status, _ := post(t, env, fin, "/treasury/funding/eur/provision", form); status != http.StatusSeeOther {
		t.Fatalf("post: %d", status)
	}
	if n := sent(env, "POST", "/v1/users/{userId}/vba/eu"); n != 1 {
		t.Fatalf("asked %d times, want once", n)
	}
	a, err := env.Store.ActionByKey(bg, "form:"+form.Get("form_token"))
	if err != nil || a.State != store.ActionDone {
		t.Fatalf("action: %+v %v", a, err)
	}
	doc := page(t, env, fin)
	if iban := webtest.TestID(doc, "funding-EUR-number"); !strings.HasPrefix(iban, "DE") {
		t.Errorf("EUR account after the read-back: %q", iban)
	}
	if rows := webtest.AuditRows(t, env, "treasury.virtual_account.provision"); len(rows) != 1 || rows[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit: %+v", rows)
	}
}

// A route whose answer is lost cannot be read back (the API has no read
// of a route): the action is left unknown for a person to check, the page
// says so, and neither the app nor the same form sends it again.
func TestLostRouteAnswerIsNotSentAgain(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	usdb := webtest.TreasuryWallet(t, env, "USDB")
	form := webtest.WithFormToken(url.Values{"holder": {demoUser(t, env, "Emily")}, "rail": {"USD"}, "wallet_id": {usdb.ID}})
	loseNextAnswer(t, env, "POST", routeUSD)
	if status, _ := post(t, env, owner, "/treasury/funding/routes", form); status != http.StatusSeeOther {
		t.Fatalf("post: %d", status)
	}
	if f := flash(t, env, owner); !strings.Contains(f, "did not confirm") || !strings.Contains(f, "cannot be read back") {
		t.Errorf("flash: %q", f)
	}
	a, err := env.Store.ActionByKey(bg, "form:"+form.Get("form_token"))
	if err != nil || a.State != store.ActionUnknown {
		t.Fatalf("action: %+v %v", a, err)
	}
	if status, _ := post(t, env, owner, "/treasury/funding/routes", form); status != http.StatusSeeOther {
		t.Fatalf("again: %d", status)
	}
	if n := sent(env, "POST", routeUSD); n != 1 {
		t.Fatalf("the route was sent %d times", n)
	}
	if rows := webtest.AuditRows(t, env, "treasury.deposit_route.set"); len(rows) != 1 || rows[0].Outcome == store.OutcomeOK {
		t.Fatalf("audit: %+v", rows)
	}
}
