package controlstest

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

// The account's approval mode is proposed by one owner and sent to the
// Partner API, once, when a second owner approves it; two owners approving
// at once make one change.
func TestApprovalModeIsChangedByTwoOwners(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	o1, _ := env.SignedIn(store.RoleOwner)
	o2, _ := env.SignedIn(store.RoleOwner)
	o3, _ := env.SignedIn(store.RoleOwner)
	finance, _ := env.SignedIn(store.RoleFinanceApprover)
	treasury := env.Demo.TreasuryUserID
	before, err := env.API.GetApprovalPolicy(ctx, treasury)
	if err != nil || before.Mode != apiclient.ApprovalAdminThreshold {
		t.Fatalf("demo policy: %+v %v", before, err)
	}
	if got := webtest.TestID(page(t, env, o1), "approval-mode-now"); got != "Now: A number of approvers (2 of 3)." {
		t.Fatalf("mode shown: %q", got)
	}
	if page(t, env, finance).Find(`[data-testid="approval-mode-form"]`).Length() != 0 {
		t.Fatal("the approval mode form is offered to a finance approver")
	}
	if code, _ := post(t, env, finance, "/controls/approval-mode", url.Values{"mode": {"ANY_ADMIN"}}); code != http.StatusForbidden {
		t.Fatalf("finance proposes: %d", code)
	}
	code, doc := post(t, env, o1, "/controls/approval-mode", url.Values{"mode": {"ADMIN_THRESHOLD"}, "threshold": {"5"}})
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("threshold above the approvers: %d", code)
	}
	webtest.FieldProblem(t, doc, "mode-threshold", "from 1 to 3")
	if code, _ := post(t, env, o1, "/controls/approval-mode", url.Values{"mode": {"ANY_ADMIN"}}); code != http.StatusSeeOther {
		t.Fatalf("propose: %d", code)
	}
	changes, err := env.Store.PolicyChanges(ctx, 0, 10)
	if err != nil || len(changes) != 1 {
		t.Fatalf("changes: %v %v", changes, err)
	}
	id := itoa(changes[0].ID)
	if now, _ := env.API.GetApprovalPolicy(ctx, treasury); now.Mode != apiclient.ApprovalAdminThreshold {
		t.Fatalf("applied on one owner's word: %s", now.Mode)
	}
	if code, _ := post(t, env, o1, "/controls/changes/"+id+"/approve", nil); code != http.StatusConflict {
		t.Fatalf("self-approval: %d", code)
	}
	got := webtest.AtOnce(2, func(i int) int {
		resp := env.PostForm([]*http.Client{o2, o3}[i], "/controls/changes/"+id+"/approve", webtest.WithFormToken(nil))
		resp.Body.Close()
		return resp.StatusCode
	})
	if got[http.StatusSeeOther] != 1 || got[http.StatusConflict] != 1 {
		t.Fatalf("two owners at once: %v", got)
	}
	after, err := env.API.GetApprovalPolicy(ctx, treasury)
	if err != nil || after.Mode != apiclient.ApprovalAnyAdmin || len(after.Admins) != len(before.Admins) {
		t.Fatalf("after: %+v %v", after, err)
	}
	sent, err := env.Store.ListActions(ctx, store.ActionFilter{Target: "policy_change:" + id})
	if err != nil || len(sent) != 1 || sent[0].State != store.ActionDone {
		t.Fatalf("ledger: %+v %v", sent, err)
	}
	c, err := env.Store.PolicyChange(ctx, changes[0].ID)
	if err != nil || c.State != store.PolicyApproved {
		t.Fatalf("change: %+v %v", c, err)
	}
	rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Action: "approval_mode.set"})
	if err != nil || len(rows) != 1 || rows[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit: %+v %v", rows, err)
	}
	if got := webtest.TestID(page(t, env, o1), "approval-mode-now"); !strings.Contains(got, "Any one approver") {
		t.Fatalf("mode shown after: %q", got)
	}
}
