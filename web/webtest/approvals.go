// Approval queue helpers: a synced mirror, linked approvers, proposals
// and the audit rows their actions write.

package webtest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// The sandbox's routes of the proposal calls (for its request counts and
// injected faults).
const (
	ProposalsRoute   = "/v1/users/{userId}/smart-wallets/{smartWalletId}/proposals"
	ApproveRoute     = "/v1/users/{userId}/smart-wallets/proposals/{proposalId}/approve"
	RejectRoute      = "/v1/users/{userId}/smart-wallets/proposals/{proposalId}/reject"
	SignRoute        = "/v1/users/{userId}/smart-wallets/proposals/{proposalId}/sign"
	SignPayloadRoute = "/v1/users/{userId}/smart-wallets/proposals/{proposalId}/sign-payload"
)

// SyncQueue reads every wallet's proposals into the mirror, as the job does.
func SyncQueue(t testing.TB, env *Env, c *http.Client) {
	t.Helper()
	resp := env.PostForm(c, "/approvals/refresh", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("refresh: %d", resp.StatusCode)
	}
}

// TreasuryAdmins returns the serviceUserIds of the demo treasury's admins,
// read from its approval policy (DemoEmployee.Roles comes back empty: the
// sandbox describes the employees before it meets the treasury user).
func TreasuryAdmins(t testing.TB, env *Env) []string {
	t.Helper()
	pol, err := env.API.GetApprovalPolicy(context.Background(), env.Demo.TreasuryUserID)
	if err != nil {
		t.Fatal(err)
	}
	ids := pol.Admins
	if len(ids) < 3 {
		t.Fatalf("demo has %d treasury admins", len(ids))
	}
	return ids
}

// Approver signs in a finance approver linked to a wallet admin.
func Approver(t testing.TB, env *Env, admin string) (*http.Client, Staff) {
	t.Helper()
	c, s := env.SignedIn(store.RoleFinanceApprover)
	resp := env.PostForm(c, "/approvals/link", WithFormToken(url.Values{"service_user_id": {admin}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("link: %d", resp.StatusCode)
	}
	return c, s
}

// ProposalID is the id of the mirrored proposal described as desc.
func ProposalID(t testing.TB, env *Env, desc string) string {
	t.Helper()
	ps, err := env.Store.ListQueue(context.Background(), store.QueueFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Description == desc {
			return p.ID
		}
	}
	t.Fatalf("no proposal %q in the mirror", desc)
	return ""
}

// AuditOutcomes counts an action's audit rows by outcome.
func AuditOutcomes(t testing.TB, env *Env, action string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, r := range AuditRows(t, env, action) {
		m[r.Outcome]++
	}
	return m
}

// LastAudit is the newest audit row of an action.
func LastAudit(t testing.TB, env *Env, action string) store.AuditEntry {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: action, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("no audit row %s", action)
	}
	return rows[0]
}

// SeedQueue puts n open proposals into the mirror, spread over the demo
// employees, as the sync would.
func SeedQueue(tb testing.TB, env *Env, n int) {
	tb.Helper()
	ctx := context.Background()
	var users []string
	for _, e := range env.Demo.Employees {
		if e.ServiceUserID != "" {
			users = append(users, e.ServiceUserID)
		}
	}
	statuses := []store.ProposalStatus{store.ProposalPendingApprovals, store.ProposalPendingSignatures, store.ProposalFailed}
	base := time.Now().Add(-time.Hour)
	for i := range n {
		p := store.Proposal{
			ID: fmt.Sprintf("bench-%05d", i), WalletID: "bench-wallet", OwnerUserID: env.Demo.TreasuryUserID,
			Type: "TRANSFER", Status: statuses[i%len(statuses)], Currency: "USDB",
			Amount: decimal.New(int64(1000+i), -2), ToUserID: users[i%len(users)], Description: fmt.Sprintf("Benchmark payment %d", i),
			RequiredSignatures: 1, RequiredApprovals: 2, Approvals: []string{}, ApprovalMode: "ADMIN_THRESHOLD",
			CreatedAt: base.Add(time.Duration(i) * time.Second), UpdatedAt: base,
		}
		if _, err := env.Store.UpsertProposal(ctx, p); err != nil {
			tb.Fatal(err)
		}
	}
	// A steady-state database: autovacuum has gathered statistics and set
	// the visibility map the count's index-only scan relies on.
	if _, err := env.Store.Pool().Exec(ctx, "VACUUM ANALYZE proposals"); err != nil {
		tb.Fatal(err)
	}
}

// ProposalFormToken reads the one-time token of a form on a proposal's page
// ("" when the page does not offer the form).
func ProposalFormToken(t testing.TB, env *Env, c *http.Client, id, form string) string {
	t.Helper()
	doc := Doc(t, env.Get(c, "/approvals/"+id))
	tok, _ := doc.Find(`[data-testid="` + form + `"] input[name="form_token"]`).Attr("value")
	return tok
}

// AuditRows are an action's audit rows, newest first.
func AuditRows(t testing.TB, env *Env, action string) []store.AuditEntry {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
