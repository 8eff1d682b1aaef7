package web_test

import (
	"strings"
	"testing"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// On the sandbox, the Nigerian withdrawal lists the accounts that verify
// there, taken from the sandbox's own test data.
func TestNigerianWithdrawalListsTheSandboxAccounts(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	doc := webtest.Doc(t, env.Get(c, "/money-out/nigeria"))
	hint := webtest.TestID(doc, "sandbox-hint-ngn-accounts")
	for _, a := range sandbox.NigerianTestAccounts() {
		if !strings.Contains(hint, a.Number) || !strings.Contains(hint, a.Holder) {
			t.Errorf("the hint lacks %s (%s): %q", a.Number, a.Holder, hint)
		}
	}
	// Inside the form, next to the account number.
	if doc.Find(`[data-testid="ngn-account-form"] [data-testid="sandbox-hint-ngn-accounts"]`).Length() != 1 {
		t.Error("the hint is not in the account form")
	}
}
