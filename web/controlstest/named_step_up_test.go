package controlstest

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A policy that names its step-up approvers counts only their approvals:
// another approver is offered no button and is refused; a named one is
// recorded. A name that is no approver is refused at the field.
func TestNamedStepUpApproversAreHonoured(t *testing.T) {
	t.Parallel()
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now})
	ctx := context.Background()
	o1, _ := env.SignedIn(store.RoleOwner)
	o2, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	admins := webtest.TreasuryAdmins(t, env)
	creator, cs := webtest.Approver(t, env, admins[0])
	other, os := webtest.Approver(t, env, admins[1])
	named, ns := webtest.Approver(t, env, admins[2])
	hr := env.CreateStaff(store.RoleHRAdmin)

	limits := url.Values{"wallet_id": {usd}, "currency": {"USD"}, "step_up_above": {"50"}, "step_up_approvals": {"1"}, "step_up_by": {hr.Email}}
	code, doc := post(t, env, o1, "/controls/limits", limits)
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("an HR admin named: %d", code)
	}
	webtest.FieldProblem(t, doc, "limit-stepup-by", "not a staff member who may approve")
	if changes, _ := env.Store.PolicyChanges(ctx, 0, 1); len(changes) != 0 {
		t.Fatal("a refused proposal was recorded")
	}
	limits.Set("step_up_by", " "+ns.Email+" ")
	if code, _ := post(t, env, o1, "/controls/limits", limits); code != http.StatusSeeOther {
		t.Fatalf("propose: %d", code)
	}
	changes, err := env.Store.PolicyChanges(ctx, 0, 1)
	if err != nil || len(changes) != 1 {
		t.Fatal(changes, err)
	}
	if code, _ := post(t, env, o2, "/controls/changes/"+itoa(changes[0].ID)+"/approve", nil); code != http.StatusSeeOther {
		t.Fatalf("approve: %d", code)
	}
	clk.Advance(24*time.Hour + time.Minute)
	// A day later the sessions have ended: the same people sign in again.
	for _, p := range []struct {
		c *http.Client
		s webtest.Staff
	}{{creator, cs}, {other, os}, {named, ns}} {
		env.Login(p.c, p.s.Email, p.s.Password)
	}

	form := webtest.WithTreasuryFormToken(t, env, creator, "transfer", url.Values{"wallet_id": {usd},
		"to_user_id": {env.DemoEmployee("Emily").ServiceUserID}, "amount": {"60"}, "description": {"named step-up"}})
	if resp := env.PostForm(creator, "/treasury/transfer", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("transfer: %d", resp.StatusCode)
	}
	id := webtest.ProposalID(t, env, "named step-up")
	if webtest.Doc(t, env.Get(other, "/approvals/"+id)).Find(`[data-testid="policy-step-up-approve"]`).Length() != 0 {
		t.Fatal("an approver the policy does not name is offered the step-up")
	}
	resp := env.PostForm(other, "/controls/proposals/"+id+"/step-up", webtest.WithFormToken(nil))
	resp.Body.Close()
	if n := len(webtest.AuditRows(t, env, "proposal.step_up_approve")); n != 0 {
		t.Fatalf("an unnamed approver's step-up was recorded: %d", n)
	}
	if webtest.Doc(t, env.Get(named, "/approvals/"+id)).Find(`[data-testid="policy-step-up-approve"]`).Length() != 1 {
		t.Fatal("the named approver is offered no step-up")
	}
	resp = env.PostForm(named, "/controls/proposals/"+id+"/step-up", webtest.WithFormToken(nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(webtest.AuditRows(t, env, "proposal.step_up_approve")) != 1 {
		t.Fatalf("named step-up: %d", resp.StatusCode)
	}
	c, err := env.Store.ProposalPolicyCheck(ctx, id, clk.Now())
	if err != nil || len(c.StepUpBy) != 1 || c.Refusal != nil && c.Refusal.Rule == "Extra approvals" {
		t.Fatalf("check after the named approval: %v %+v", err, c.Refusal)
	}
}
