package controlstest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// On the sandbox, the payout's account step and the SEPA form say which
// values only the sandbox's test data accepts, inside the form.
func TestMoneyOutFormsGiveTheSandboxValues(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	doc := webtest.PayoutStep(t, env, c, url.Values{"step": {"bank"}, "country": {"GBR"}, "bank_id": {"gbr-monzo"}}, http.StatusOK)
	if hint := webtest.TestID(doc, "sandbox-hint-payout-accounts"); !strings.Contains(hint, sandbox.PayoutMissingSuffix) {
		t.Errorf("payout account hint %q", hint)
	}
	if doc.Find(`#f-account_number`).Length() != 1 {
		t.Error("the hint is not on the account step")
	}

	webtest.SEPAReady(t, env)
	doc = webtest.Doc(t, env.Get(c, "/money-out/sepa"))
	if hint := webtest.TestID(doc, "sandbox-hint-iban"); !strings.Contains(hint, sandbox.TestIBAN) {
		t.Errorf("IBAN hint %q", hint)
	}
	if doc.Find(`[data-testid="sepa-form"] [data-testid="sandbox-hint-iban"]`).Length() != 1 {
		t.Error("the IBAN hint is not in the SEPA form")
	}
}
