package approvaltest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Two approvals are two people: a staff member who approved as one wallet
// admin and then links to another may not approve the same proposal again,
// and nothing is sent upstream for the second try.
func TestOnePersonCannotApproveTwiceByRelinking(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "November stipend")

	resp := postApprove(env, c, id)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first approval: %d", resp.StatusCode)
	}
	resp = env.PostForm(c, "/approvals/link", webtest.WithFormToken(url.Values{"service_user_id": {admins[1]}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("relink: %d", resp.StatusCode)
	}
	calls := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)
	resp = postApprove(env, c, id)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(doc.Text(), "You already approved this proposal") {
		t.Fatalf("second approval by the same person: %d", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - calls; n != 0 {
		t.Fatalf("%d approvals sent upstream for the second try", n)
	}
	p, err := env.Store.ProposalByID(context.Background(), id)
	if err != nil || len(p.Approvals) != 1 {
		t.Fatalf("approvals after the refusal: %v %v", p.Approvals, err)
	}
	if a := webtest.LastAudit(t, env, "proposal.approve"); a.Outcome != store.OutcomeRefused {
		t.Fatalf("the refusal is not audited: %+v", a)
	}
}

// The same for a payroll run's approval in one action: the second run
// approval by the person who gave the first, now linked to another admin,
// approves no row and sends nothing.
func TestOnePersonCannotApproveAPayrollRunTwiceByRelinking(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	admins := webtest.TreasuryAdmins(t, env)
	owner, _ := env.SignedIn(store.RoleOwner)
	id, _ := sentRun(t, env, owner)
	a1, _ := webtest.Approver(t, env, admins[0])
	got := outcomes(webtest.ApprovePayrollRun(t, env, a1, id), "payroll-approve-result")
	if got[2] != "Line 2: approved." || got[3] != "Line 3: approved." {
		t.Fatalf("first run approval: %v", got)
	}
	resp := env.PostForm(a1, "/approvals/link", webtest.WithFormToken(url.Values{"service_user_id": {admins[1]}}))
	resp.Body.Close()
	before := env.Sandbox.RequestCount("POST", webtest.ApproveRoute)
	got = outcomes(webtest.ApprovePayrollRun(t, env, a1, id), "payroll-approve-result")
	for _, line := range []int{2, 3} {
		if !strings.Contains(got[line], "you already approved it") {
			t.Errorf("line %d: %q", line, got[line])
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ApproveRoute) - before; n != 0 {
		t.Fatalf("%d approvals sent upstream by the same person again", n)
	}
}
