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

// A spending policy is proposed by one owner, approved by a second, and in
// force after the cooling-off period; then transfers sent at once against
// its daily limit pass exactly as many as fit.
func TestSpendingPolicyNeedsTwoOwnersAndHoldsAgainstTransfersSentAtOnce(t *testing.T) {
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now})
	ctx := context.Background()
	o1, s1 := env.SignedIn(store.RoleOwner)
	o2, s2 := env.SignedIn(store.RoleOwner)
	finance, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID

	limits := url.Values{"wallet_id": {usd}, "currency": {"USD"}, "day": {"100"}, "week": {"1,000"}}
	// Only owners propose policies.
	if code, _ := post(t, env, finance, "/controls/limits", limits); code != http.StatusForbidden {
		t.Fatalf("finance proposes: %d", code)
	}
	if page(t, env, finance).Find(`[data-testid="limits-form"]`).Length() != 0 {
		t.Fatal("the policy form is offered to a finance approver")
	}
	// A limit in another currency than the wallet's is refused at the field.
	eur := url.Values{"wallet_id": {usd}, "currency": {"EUR"}, "day": {"100"}}
	code, doc := post(t, env, o1, "/controls/limits", eur)
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("EUR limit on a USD wallet: %d", code)
	}
	webtest.FieldProblem(t, doc, "limit-currency", "not in another currency")
	if code, _ := post(t, env, o1, "/controls/limits", limits); code != http.StatusSeeOther {
		t.Fatalf("propose: %d", code)
	}
	changes, err := env.Store.PolicyChanges(ctx, 0, 10)
	if err != nil || len(changes) != 1 {
		t.Fatalf("changes: %v %v", changes, err)
	}
	approve := "/controls/changes/" + itoa(changes[0].ID) + "/approve"
	// Its proposer cannot approve it, nor can a finance approver.
	if code, doc := post(t, env, o1, approve, nil); code != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "controls-error"), "You proposed") {
		t.Fatalf("self-approval: %d", code)
	}
	if code, _ := post(t, env, finance, approve, nil); code != http.StatusForbidden {
		t.Fatalf("finance approves: %d", code)
	}
	// Two owners racing: one decision.
	got := webtest.AtOnce(2, func(i int) int {
		c := []*http.Client{o2, o2}[i]
		resp := env.PostForm(c, approve, webtest.WithFormToken(nil))
		resp.Body.Close()
		return resp.StatusCode
	})
	if got[http.StatusSeeOther] != 1 || got[http.StatusConflict] != 1 {
		t.Fatalf("two approvals at once: %v", got)
	}
	rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Target: "policy_change:" + itoa(changes[0].ID)})
	if err != nil {
		t.Fatal(err)
	}
	who := map[string]string{}
	for _, r := range rows {
		who[r.Action] = r.Actor.Email
	}
	if len(rows) != 2 || who["policy.propose"] != s1.Email || who["policy.approve"] != s2.Email {
		t.Fatalf("audit: %v", who)
	}
	// Not in force before the cooling-off period.
	if day := page(t, env, o1).Find(`[data-testid="wallet-policy-` + usd + `"] [data-testid="policy-day"]`).Text(); day != "No daily limit" {
		t.Fatalf("in force at once: %q", day)
	}

	clk.Advance(24*time.Hour + time.Minute)
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	emily := env.DemoEmployee("Emily").ServiceUserID
	const n = 5 // of 30 each: three fit the daily 100
	forms := make([]url.Values, n)
	for i := range forms {
		forms[i] = webtest.WithTreasuryFormToken(t, env, c, "transfer", url.Values{"wallet_id": {usd}, "to_user_id": {emily}, "amount": {"30"}})
	}
	refusals := make(chan string, n)
	codes := webtest.AtOnce(n, func(i int) int {
		resp := env.PostForm(c, "/treasury/transfer", forms[i])
		if resp.StatusCode == http.StatusUnprocessableEntity {
			refusals <- webtest.TestID(webtest.Doc(t, resp), "transfer-amount-error")
		} else {
			resp.Body.Close()
		}
		return resp.StatusCode
	})
	close(refusals)
	if codes[http.StatusSeeOther] != 3 || codes[http.StatusUnprocessableEntity] != 2 {
		t.Fatalf("five transfers of 30 against a daily 100: %v", codes)
	}
	for msg := range refusals {
		if !strings.Contains(msg, "10.00 of 100.00 USD left in the last 24 hours") {
			t.Fatalf("refusal: %q", msg)
		}
	}
	// Each refusal is audited by the ledger, though nothing was begun.
	refused, err := env.Store.ListAudit(ctx, store.AuditFilter{Action: "proposal.create", Query: "Refused by the money controls"})
	if err != nil || len(refused) != 2 {
		t.Fatalf("refusals audited: %d %v", len(refused), err)
	}
	for _, a := range refused {
		if a.Outcome != store.OutcomeRefused || !strings.Contains(a.Detail, "Daily limit") || a.Actor.Email == "" {
			t.Fatalf("refusal audit %+v", a)
		}
	}
	ps, err := env.Store.ListQueue(ctx, store.QueueFilter{})
	if err != nil || len(ps) != 3 {
		t.Fatalf("proposals created: %d %v", len(ps), err)
	}
	if day := page(t, env, c).Find(`[data-testid="wallet-policy-` + usd + `"] [data-testid="policy-day"]`).Text(); day != "90.00 of 100.00 USD in the last 24 hours" {
		t.Fatalf("velocity shown: %q", day)
	}
	// What is left still fits.
	form := webtest.WithTreasuryFormToken(t, env, c, "transfer", url.Values{"wallet_id": {usd}, "to_user_id": {emily}, "amount": {"10"}})
	if resp := env.PostForm(c, "/treasury/transfer", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the last 10: %d", resp.StatusCode)
	}
}
