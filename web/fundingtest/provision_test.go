package fundingtest

import (
	"net/http"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The demo treasury has done neither onboarding: the page says in words
// what each account still needs, offers no button, and a form posted
// anyway sends nothing. Once the API reports the onboarding complete, a
// finance approver (EUR) and an owner (NGN) open the accounts: one call
// each, the account's number on the page, an audit row; HR admins and
// support may not.
func TestProvisionEURAndNGNAccountsWhenOnboardingAllows(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	fin, _ := env.SignedIn(store.RoleFinanceApprover)
	owner, _ := env.SignedIn(store.RoleOwner)
	tid := env.Demo.TreasuryUserID
	const eurRoute, ngnRoute = "/v1/users/{userId}/vba/eu", "/v1/users/{userId}/vba/ngn"

	doc := page(t, env, fin)
	if s := webtest.TestID(doc, "funding-EUR-missing"); !strings.Contains(s, "once the treasury's EUR onboarding is complete") ||
		!strings.Contains(s, "add a EURe wallet on the treasury page") || !strings.Contains(s, "not started") {
		t.Errorf("EUR: %q", s)
	}
	if s := webtest.TestID(doc, "funding-NGN-missing"); !strings.Contains(s, "once the treasury's NGN onboarding is complete") {
		t.Errorf("NGN: %q", s)
	}
	if n := doc.Find(`[data-testid="funding-EUR-provision-form"], [data-testid="funding-NGN-provision-form"]`).Length(); n != 0 {
		t.Fatalf("%d provision forms before onboarding allows them", n)
	}
	for _, path := range []string{"/treasury/funding/eur/provision", "/treasury/funding/ngn/provision"} {
		status, body := post(t, env, fin, path, webtest.WithFormToken(nil))
		if status != http.StatusConflict || !strings.Contains(body, "Nothing was sent") || !strings.Contains(body, "onboarding is complete") {
			t.Errorf("%s before onboarding: %d", path, status)
		}
	}
	if sent(env, "POST", eurRoute)+sent(env, "POST", ngnRoute) != 0 {
		t.Fatal("a provisioning reached the API before onboarding allowed it")
	}

	webtest.EditSandboxState(t, env, func(st map[string]any) {
		o := webtest.SandboxObject(st, "rails", "onboarding", tid)
		o["userId"], o["eurProviderStatus"], o["ngnStatus"] = tid, "active", "active"
	})
	doc = page(t, env, fin)
	eur := formOf(t, doc.Find(`[data-testid="funding-EUR-provision-form"]`))
	ngn := formOf(t, doc.Find(`[data-testid="funding-NGN-provision-form"]`))
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		for path, form := range map[string]map[string][]string{"/treasury/funding/eur/provision": eur, "/treasury/funding/ngn/provision": ngn} {
			if status, _ := post(t, env, c, path, form); status != http.StatusForbidden {
				t.Errorf("%s %s: %d, want 403", role, path, status)
			}
		}
	}
	if sent(env, "POST", eurRoute)+sent(env, "POST", ngnRoute) != 0 {
		t.Fatal("a refused role reached the API")
	}

	// A form without its one-time token sends nothing.
	if status, body := post(t, env, fin, "/treasury/funding/eur/provision", nil); status != http.StatusBadRequest || !strings.Contains(body, "nothing was sent") {
		t.Errorf("no token: %d", status)
	}
	if sent(env, "POST", eurRoute) != 0 {
		t.Fatal("a form without its token reached the API")
	}
	if status, _ := post(t, env, fin, "/treasury/funding/eur/provision", eur); status != http.StatusSeeOther {
		t.Fatalf("EUR: %d", status)
	}
	if status, _ := post(t, env, owner, "/treasury/funding/ngn/provision", ngn); status != http.StatusSeeOther {
		t.Fatalf("NGN: %d", status)
	}
	if sent(env, "POST", eurRoute) != 1 || sent(env, "POST", ngnRoute) != 1 {
		t.Fatalf("calls: EUR %d, NGN %d", sent(env, "POST", eurRoute), sent(env, "POST", ngnRoute))
	}
	doc = page(t, env, fin)
	if iban := webtest.TestID(doc, "funding-EUR-number"); !strings.HasPrefix(iban, "DE") || len(iban) != 22 {
		t.Errorf("EUR account number: %q", iban)
	}
	if nuban := webtest.TestID(doc, "funding-NGN-number"); len(nuban) != 10 {
		t.Errorf("NGN account number: %q", nuban)
	}
	if n := doc.Find(`[data-testid="funding-EUR-provision-form"], [data-testid="funding-NGN-provision-form"]`).Length(); n != 0 {
		t.Errorf("%d provision forms beside open accounts", n)
	}
	rows := webtest.AuditRows(t, env, "treasury.virtual_account.provision")
	if len(rows) != 2 || rows[0].Outcome != store.OutcomeOK || rows[1].Outcome != store.OutcomeOK {
		t.Fatalf("audit: %+v", rows)
	}

	// The EUR form again: a repeat, nothing sent.
	if status, _ := post(t, env, fin, "/treasury/funding/eur/provision", eur); status != http.StatusSeeOther || sent(env, "POST", eurRoute) != 1 {
		t.Fatalf("repeat: %d, %d calls", status, sent(env, "POST", eurRoute))
	}
}
