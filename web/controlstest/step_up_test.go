package controlstest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Above a spending policy's step-up tier, a proposal the API has approved
// gets no signing link until enough other people approved it in the app;
// its page shows the check: velocity, tier, destination and balance after.
func TestStepUpTierHoldsTheSigningLinkUntilApprovedInTheApp(t *testing.T) {
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now})
	ctx := context.Background()
	o1, _ := env.SignedIn(store.RoleOwner)
	o2, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	if code, _ := post(t, env, o1, "/controls/limits", url.Values{"wallet_id": {usd}, "currency": {"USD"}, "day": {"1000"},
		"step_up_above": {"50"}, "step_up_approvals": {"1"}}); code != http.StatusSeeOther {
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

	admins := webtest.TreasuryAdmins(t, env)
	creator, _ := webtest.Approver(t, env, admins[0])
	second, _ := webtest.Approver(t, env, admins[1])
	third, _ := webtest.Approver(t, env, admins[2])
	form := webtest.WithTreasuryFormToken(t, env, creator, "transfer", url.Values{"wallet_id": {usd},
		"to_user_id": {env.DemoEmployee("Emily").ServiceUserID}, "amount": {"60"}, "description": {"step-up"}})
	if resp := env.PostForm(creator, "/treasury/transfer", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("transfer: %d", resp.StatusCode)
	}
	id := webtest.ProposalID(t, env, "step-up")
	for _, c := range []*http.Client{second, third} {
		resp := env.PostForm(c, "/approvals/"+id+"/approve", webtest.WithFormToken(url.Values{"confirm": {"1"}}))
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("approve upstream: %d", resp.StatusCode)
		}
	}
	p, err := env.Store.ProposalByID(ctx, id)
	if err != nil || p.Status != store.ProposalPendingSignatures {
		t.Fatalf("proposal: %s %v", p.Status, err)
	}

	// The page shows the check, and the refusal with its rule.
	doc := webtest.Doc(t, env.Get(second, "/approvals/"+id))
	check := doc.Find(`[data-testid="policy-check"]`)
	for _, want := range []string{"60.00 of 1,000.00 USD in the last 24 hours", "Above 50.00 USD: 1 more approvals in the app",
		"An employee of the company", "Balance after"} {
		if !strings.Contains(check.Text(), want) {
			t.Fatalf("check lacks %q: %q", want, check.Text())
		}
	}
	if !strings.Contains(webtest.TestID(doc, "policy-refusal"), "Extra approvals") {
		t.Fatalf("refusal: %q", webtest.TestID(doc, "policy-refusal"))
	}
	// No signing link yet: refused, audited, nothing asked upstream.
	resp := env.PostForm(second, "/approvals/"+id+"/sign-requests", webtest.WithFormToken(nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign link before the step-up: %d", resp.StatusCode)
	}
	if last := webtest.LastAudit(t, env, "sign_request.create"); last.Outcome != store.OutcomeRefused || !strings.Contains(last.Detail, "Extra approvals") {
		t.Fatalf("audit: %+v", last)
	}
	// The creator offers no step-up button and cannot give one.
	if webtest.Doc(t, env.Get(creator, "/approvals/"+id)).Find(`[data-testid="policy-step-up-approve"]`).Length() != 0 {
		t.Fatal("the creator is offered a step-up approval")
	}
	resp = env.PostForm(creator, "/controls/proposals/"+id+"/step-up", webtest.WithFormToken(nil))
	resp.Body.Close()
	if n := len(webtest.AuditRows(t, env, "proposal.step_up_approve")); n != 0 {
		t.Fatalf("the creator's step-up was recorded: %d", n)
	}
	// Support may not give one.
	support, _ := env.SignedIn(store.RoleSupport)
	if resp := env.PostForm(support, "/controls/proposals/"+id+"/step-up", webtest.WithFormToken(nil)); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support steps up: %d", resp.StatusCode)
	}
	// Another person does: the link is issued.
	if webtest.Doc(t, env.Get(second, "/approvals/"+id)).Find(`[data-testid="policy-step-up-approve"]`).Length() != 1 {
		t.Fatal("no step-up button for another approver")
	}
	resp = env.PostForm(second, "/controls/proposals/"+id+"/step-up", webtest.WithFormToken(nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(webtest.AuditRows(t, env, "proposal.step_up_approve")) != 1 {
		t.Fatalf("step-up: %d", resp.StatusCode)
	}
	webtest.IssueSignLink(t, env, second, id)
}
