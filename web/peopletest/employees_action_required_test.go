package peopletest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// deliverAndProcess delivers a signed event and runs its processing (what
// the river job does) at once.
func deliverAndProcess(t *testing.T, env *webtest.Env, secret, id, eventType string, payload map[string]any) store.WebhookEvent {
	t.Helper()
	if code := webtest.MustDeliver(t, env, secret, id, webtest.EventBody(id, eventType, payload)); code != http.StatusOK {
		t.Fatalf("deliver %s: %d", id, code)
	}
	ev := webtest.EventByWebhookID(t, env, id)
	if err := env.App.Webhooks().ProcessEvent(context.Background(), ev.ID, false); err != nil {
		t.Fatalf("process %s: %v", id, err)
	}
	return webtest.EventByWebhookID(t, env, id)
}

func employeeNamed(t *testing.T, env *webtest.Env, id int64) store.Employee {
	t.Helper()
	e, err := env.Store.EmployeeByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func auditOf(t *testing.T, env *webtest.Env, action string, employeeID int64) []store.AuditEntry {
	t.Helper()
	var out []store.AuditEntry
	for _, r := range webtest.AuditRows(t, env, action) {
		if r.Target == fmt.Sprintf("employee:%d", employeeID) {
			out = append(out, r)
		}
	}
	return out
}

// TestOnboardingCompletedClearsActionRequired: a kyc.action_required
// delivery flags the employee; a later onboarding.completed delivery for the
// same user clears the flag (with an audit row under the webhook actor) and
// leaves another user's flag alone. A completion that arrived before a newer
// flag, processed late or replayed, does not clear it.
func TestOnboardingCompletedClearsActionRequired(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	a, err := env.Store.UpsertEmployee(ctx, store.Employee{Email: "ada@acme.example", FirstName: "Ada", ServiceUserID: "svc-ada",
		InviteState: store.InviteKYCSubmitted, KYCSubmitted: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := env.Store.UpsertEmployee(ctx, store.Employee{Email: "bo@acme.example", FirstName: "Bo", ServiceUserID: "svc-bo", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []store.Employee{a, b} {
		deliverAndProcess(t, env, secret, "wh-flag-"+e.ServiceUserID, apiclient.EventKYCActionRequired,
			map[string]any{"serviceUserId": e.ServiceUserID, "action": "selfie", "reason": "A selfie is needed in the app"})
		if got := employeeNamed(t, env, e.ID); got.InviteState != store.InviteActionRequired || !strings.Contains(got.ActionRequired, "selfie") {
			t.Fatalf("%s not flagged: %+v", e.Email, got)
		}
	}

	ev := deliverAndProcess(t, env, secret, "wh-done-ada", apiclient.EventOnboardingCompleted,
		map[string]any{"serviceUserId": "svc-ada", "currency": "USD"})
	if got := employeeNamed(t, env, a.ID); got.InviteState != store.InviteKYCSubmitted || got.ActionRequired != "" {
		t.Fatalf("onboarding.completed did not clear the flag: %+v", got)
	}
	if ev.State != store.EventProcessed || !strings.Contains(ev.Outcome, "cleared") {
		t.Fatalf("event %s: %q", ev.State, ev.Outcome)
	}
	rows := auditOf(t, env, "employee.kyc_action_cleared", a.ID)
	if len(rows) != 1 || rows[0].Actor.Email != "webhook" || !strings.Contains(rows[0].Detail, "onboarding.completed") {
		t.Fatalf("audit %+v", rows)
	}
	if got := employeeNamed(t, env, b.ID); got.InviteState != store.InviteActionRequired {
		t.Fatalf("another user's completion cleared %s: %+v", b.Email, got)
	}
	// The same delivery again is a duplicate: nothing more is written.
	if code := webtest.MustDeliver(t, env, secret, "wh-done-ada", webtest.EventBody("wh-done-ada", apiclient.EventOnboardingCompleted,
		map[string]any{"serviceUserId": "svc-ada"})); code != http.StatusOK {
		t.Fatalf("duplicate: %d", code)
	}
	if rows := auditOf(t, env, "employee.kyc_action_cleared", a.ID); len(rows) != 1 {
		t.Fatalf("a duplicate delivery wrote audit: %+v", rows)
	}

	// Bo: a completion arrives, then a newer flag is processed before it.
	if code := webtest.MustDeliver(t, env, secret, "wh-done-bo", webtest.EventBody("wh-done-bo", apiclient.EventOnboardingCompleted,
		map[string]any{"serviceUserId": "svc-bo"})); code != http.StatusOK {
		t.Fatalf("deliver: %d", code)
	}
	deliverAndProcess(t, env, secret, "wh-flag-bo-2", apiclient.EventKYCActionRequired,
		map[string]any{"serviceUserId": "svc-bo", "action": "bank_verification", "reason": "Bank identity verification is needed"})
	late := webtest.EventByWebhookID(t, env, "wh-done-bo")
	for _, replay := range []bool{false, true} {
		if err := env.App.Webhooks().ProcessEvent(ctx, late.ID, replay); err != nil {
			t.Fatal(err)
		}
		if got := employeeNamed(t, env, b.ID); got.InviteState != store.InviteActionRequired || !strings.Contains(got.ActionRequired, "Bank") {
			t.Fatalf("a completion older than the flag cleared it (replay %v): %+v", replay, got)
		}
	}
	if rows := auditOf(t, env, "employee.kyc_action_cleared", b.ID); len(rows) != 0 {
		t.Fatalf("audit for a kept flag: %+v", rows)
	}
	// A completion that arrives after the flag clears it.
	deliverAndProcess(t, env, secret, "wh-done-bo-2", apiclient.EventOnboardingCompleted, map[string]any{"serviceUserId": "svc-bo"})
	if got := employeeNamed(t, env, b.ID); got.InviteState != store.InviteLinked || got.ActionRequired != "" {
		t.Fatalf("a later completion did not clear the flag: %+v", got)
	}
}

// TestResolveActionRequiredByHand: the employee page shows what is required
// and a "Mark as resolved" form to those who may write; hr_admin clears the
// flag (audit row, flash, redirect back), finance_approver and support are
// refused, the box must be ticked, and resolving again says there is
// nothing left to resolve.
func TestResolveActionRequiredByHand(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	ctx := context.Background()
	e, err := env.Store.UpsertEmployee(ctx, store.Employee{Email: "cy@acme.example", FirstName: "Cy", LastName: "Obi",
		ServiceUserID: "svc-cy", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.FlagActionRequired(ctx, "svc-cy", "a selfie in the app", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	resolve := page + "/action-required/resolve"
	confirmed := url.Values{"confirm": {"1"}}

	hr, hrStaff := env.SignedIn(store.RoleHRAdmin)
	doc := webtest.Doc(t, env.Get(hr, page))
	if !strings.Contains(webtest.TestID(doc, "action-required"), "a selfie in the app") {
		t.Fatalf("required action not shown: %q", webtest.TestID(doc, "action-required"))
	}
	form := doc.Find(`[data-testid="resolve-action-form"]`)
	if action, _ := form.Attr("action"); action != resolve || form.Find(`input[type="checkbox"][name="confirm"]`).Length() != 1 ||
		form.Find(`button[type="submit"][data-testid="resolve-action"]`).Length() != 1 {
		t.Fatalf("resolve form: action %q", action)
	}

	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		doc := webtest.Doc(t, env.Get(c, page))
		if doc.Find(`[data-testid="resolve-action-form"]`).Length() != 0 {
			t.Errorf("%s sees the resolve form", role)
		}
		resp := env.PostForm(c, resolve, webtest.WithFormToken(confirmed))
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %d, want 403", role, resp.StatusCode)
		}
	}
	if got := employeeNamed(t, env, e.ID); got.InviteState != store.InviteActionRequired {
		t.Fatalf("a refused request cleared the flag: %+v", got)
	}

	// Without the confirmation: the page again with the box's message.
	resp := env.PostForm(hr, resolve, webtest.WithFormToken(url.Values{}))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "resolve-confirm-error") == "" {
		t.Fatalf("unconfirmed: %d %q", resp.StatusCode, webtest.TestID(doc, "resolve-confirm-error"))
	}
	if got := employeeNamed(t, env, e.ID); got.InviteState != store.InviteActionRequired {
		t.Fatalf("an unconfirmed request cleared the flag: %+v", got)
	}
	if rows := auditOf(t, env, "employee.kyc_action_cleared", e.ID); len(rows) != 0 {
		t.Fatalf("audit before clearing: %+v", rows)
	}

	resp = env.PostForm(hr, resolve, webtest.WithFormToken(confirmed))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("resolve: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := employeeNamed(t, env, e.ID); got.InviteState != store.InviteLinked || got.ActionRequired != "" {
		t.Fatalf("after resolving: %+v", got)
	}
	rows := auditOf(t, env, "employee.kyc_action_cleared", e.ID)
	if len(rows) != 1 || rows[0].Actor.Email != hrStaff.Email || rows[0].Actor.StaffID != hrStaff.ID ||
		!strings.Contains(rows[0].Detail, "a selfie in the app") || !strings.Contains(rows[0].Detail, "by hand") {
		t.Fatalf("audit %+v", rows)
	}
	doc = webtest.Doc(t, env.Get(hr, page))
	if !strings.Contains(webtest.TestID(doc, "flash"), "Marked as resolved") || doc.Find(`[data-testid="action-required"]`).Length() != 0 {
		t.Fatalf("after resolving the page shows flash %q, flag %d", webtest.TestID(doc, "flash"), doc.Find(`[data-testid="action-required"]`).Length())
	}

	// Not flagged any more (another admin, a webhook): said so, no error.
	resp = env.PostForm(hr, resolve, webtest.WithFormToken(confirmed))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("resolve again: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, env.Get(hr, page))
	if !strings.Contains(webtest.TestID(doc, "flash"), "any more") {
		t.Fatalf("resolve again: flash %q", webtest.TestID(doc, "flash"))
	}
	if rows := auditOf(t, env, "employee.kyc_action_cleared", e.ID); len(rows) != 1 {
		t.Fatalf("resolving again wrote audit: %+v", rows)
	}
}

// TestRefreshClearsActionRequiredOnlyWhenNothingIsAsked: reading a flagged
// employee again from the API clears the flag when the API reports nothing
// missing and nothing in progress (a demo employee with USD active), and
// keeps it when fields are missing or a rail is still being set up.
func TestRefreshClearsActionRequiredOnlyWhenNothingIsAsked(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	hr, hrStaff := env.SignedIn(store.RoleHRAdmin)
	demo := func(email string) store.Employee {
		t.Helper()
		e, err := env.Store.EmployeeByEmail(ctx, email)
		if err != nil || e.ServiceUserID == "" {
			t.Fatalf("demo employee %s: %+v %v", email, e, err)
		}
		return e
	}
	cases := []struct {
		email   string
		cleared bool
	}{
		{"emily.carter@acme-payroll.example", true},   // USD active, ready, nothing missing
		{"daniel.brooks@acme-payroll.example", false}, // identificationNumbers.ssn missing
		{"isla.brown@acme-payroll.example", false},    // ready, but the USD account is still provisioning
	}
	for _, tc := range cases {
		e := demo(tc.email)
		if _, err := env.Store.FlagActionRequired(ctx, e.ServiceUserID, "a selfie in the app", store.Actor{Email: "webhook"}); err != nil {
			t.Fatal(err)
		}
		resp := env.PostForm(hr, fmt.Sprintf("/employees/%d/refresh", e.ID), nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: refresh %d", tc.email, resp.StatusCode)
		}
		got := employeeNamed(t, env, e.ID)
		if cleared := got.InviteState != store.InviteActionRequired && got.ActionRequired == ""; cleared != tc.cleared {
			t.Fatalf("%s: cleared %v, want %v (%+v)", tc.email, cleared, tc.cleared, got)
		}
		rows := auditOf(t, env, "employee.kyc_action_cleared", e.ID)
		if !tc.cleared {
			if len(rows) != 0 {
				t.Fatalf("%s: audit for a kept flag %+v", tc.email, rows)
			}
			continue
		}
		if len(rows) != 1 || rows[0].Actor.Email != hrStaff.Email || !strings.Contains(rows[0].Detail, "cleared automatically") {
			t.Fatalf("%s: audit %+v", tc.email, rows)
		}
	}
}
