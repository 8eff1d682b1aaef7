package web_test

import (
	"fmt"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A currency's start is offered only to an employee with the wallet its
// rail uses; without it, the card says what is needed instead of offering
// a start the API would refuse.
func TestOnboardingStartNeedsTheRailsWallet(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := readyEmployee(t, env, "usd-only@start.example", "GBR", apiclient.USDB)
	for _, cur := range []string{"USD", "EUR"} {
		if got := readiness(t, env, e.ID, cur); got != store.ReadyToActivate {
			t.Fatalf("%s readiness %q, want ready", cur, got)
		}
	}
	doc := webtest.Doc(t, env.Get(hr, fmt.Sprintf("/employees/%d", e.ID)))
	if doc.Find(`[data-testid="start-form-USD"]`).Length() != 1 {
		t.Error("no USD start for an employee with a USDB wallet")
	}
	if doc.Find(`[data-testid="start-form-EUR"]`).Length() != 0 {
		t.Error("a EUR start is offered to an employee without a EURe wallet")
	}
	if got := webtest.TestID(doc, "start-needs-EUR"); !strings.Contains(got, "EURe wallet") {
		t.Errorf("the EUR card does not say what is needed: %q", got)
	}
	if hint := doc.Find(`[data-testid="start-form-USD"] .hint`).Text(); strings.Contains(hint, "start-usa") {
		t.Errorf("the start's hint names the endpoint: %q", hint)
	}
}
