package moneytest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

const balancesRoute = "/v1/users/{userId}/smart-wallets/account/balances"

// balanceRow is the overview's row of a token.
func balanceRow(t *testing.T, env *webtest.Env, c *http.Client, token string) (amount, leaving, available, freshness, outdated string) {
	t.Helper()
	doc := webtest.Doc(t, env.Get(c, "/treasury/balances"))
	row := doc.Find(`[data-testid="balance-` + token + `"]`)
	if row.Length() != 1 {
		t.Fatalf("no %s row in the overview", token)
	}
	cell := func(id string) string {
		return strings.Join(strings.Fields(row.Find(`[data-testid="`+id+`"]`).Text()), " ")
	}
	return cell("balance-amount"), cell("balance-leaving"), cell("balance-available"), cell("balance-freshness"),
		row.Find(`[data-testid="balance-freshness"]`).AttrOr("data-outdated", "")
}

// The overview lists each treasury wallet with its balance as a decimal,
// when it was read, and what open proposals will take out of it; finance and
// the owner reach it from the navigation, HR and support do not.
func TestTreasuryOverviewShowsBalancesAndWhatIsLeaving(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	usd := webtest.TreasuryWallet(t, env, "USDB").ID

	doc := webtest.Doc(t, env.Get(c, "/"))
	if doc.Find(`nav[aria-label="Main"] a[href="/treasury"]`).Length() != 1 {
		t.Fatal("no Treasury entry in finance's navigation")
	}
	amount, leaving, available, fresh, outdated := balanceRow(t, env, c, "USDB")
	if amount != "249,500.00 USD (USDB)" || leaving != "none" || available != "249,500.00 USD (USDB)" || outdated != "no" ||
		!strings.HasPrefix(fresh, "as of ") {
		t.Fatalf("USDB row: %q %q %q %q %q", amount, leaving, available, fresh, outdated)
	}

	resp := env.PostForm(c, "/treasury/transfer", url.Values{"wallet_id": {usd}, "to_user_id": {env.DemoEmployee("Emily").ServiceUserID},
		"amount": {"1,234.50"}, "description": {"bonus"}, "form_token": {webtest.TreasuryFormToken(t, env, c, "transfer")}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("transfer: %d", resp.StatusCode)
	}
	_, leaving, available, _, _ = balanceRow(t, env, c, "USDB")
	if leaving != "1,234.50 USD (USDB) in 1 proposal" || available != "248,265.50 USD (USDB)" {
		t.Fatalf("after a transfer: leaving %q, available %q", leaving, available)
	}

	csv := env.Get(c, "/treasury/balances.csv")
	b, _ := io.ReadAll(csv.Body)
	csv.Body.Close()
	if !strings.Contains(string(b), usd+",USDB,USD,249500.00,1234.50,1,248265.50,") {
		t.Fatalf("csv:\n%s", b)
	}

	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		other, _ := env.SignedIn(role)
		for _, path := range []string{"/treasury", "/treasury/balances", "/treasury/balances.csv"} {
			resp := env.Get(other, path)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s GET %s: %d", role, path, resp.StatusCode)
			}
		}
		resp := env.PostForm(other, "/treasury/balances/refresh", url.Values{})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s refresh: %d", role, resp.StatusCode)
		}
		if webtest.Doc(t, env.Get(other, "/")).Find(`nav[aria-label="Main"] a[href="/treasury"]`).Length() != 0 {
			t.Errorf("%s sees Treasury in the navigation", role)
		}
	}
}

// When a proposal from a treasury wallet completes, its balance is marked
// as changed (the page says so, not the old figure as if current) until it
// is read again; a read that began before a newer completion leaves the
// mark.
func TestTreasuryBalanceIsReadAgainAfterACompletedProposal(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	treasury, _ := env.Store.TreasuryUsers(ctx)
	owner := treasury[0].ServiceUserID

	// Value arrives upstream (the API has it; the mirror does not yet).
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]any{"smartWalletId": usd, "amount": "100.25"})
	// A proposal from the wallet completes.
	p := store.Proposal{ID: "p-completed-1", WalletID: usd, OwnerUserID: owner, Type: "transfer", Status: store.ProposalExecuting,
		Currency: "USDB", Amount: decimal.RequireFromString("5"), ToUserID: env.DemoEmployee("Emily").ServiceUserID, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if _, err := env.Store.UpsertProposal(ctx, p); err != nil {
		t.Fatal(err)
	}
	if w, _ := env.Store.WalletByID(ctx, usd); w.BalanceStaleSince != nil {
		t.Fatal("marked stale before anything completed")
	}
	p.Status = store.ProposalCompleted
	if _, err := env.Store.UpsertProposal(ctx, p); err != nil {
		t.Fatal(err)
	}
	amount, _, _, fresh, outdated := balanceRow(t, env, c, "USDB")
	if amount != "249,500.00 USD (USDB)" || outdated != "yes" || !strings.Contains(fresh, "a proposal completed since") {
		t.Fatalf("after completion: %q %q %q", amount, fresh, outdated)
	}

	// A read that began before a second completion leaves the mark.
	marks, err := env.Store.BalanceStaleMarks(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	p2 := p
	p2.ID, p2.Status = "p-completed-2", store.ProposalCompleted
	if _, err := env.Store.UpsertProposal(ctx, p2); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.ClearStaleBalances(ctx, marks); err != nil {
		t.Fatal(err)
	}
	if w, _ := env.Store.WalletByID(ctx, usd); w.BalanceStaleSince == nil {
		t.Fatal("a read older than the last completion cleared the mark")
	}

	// The job reads it again: the API's figure, and no mark.
	worker := &userstate.StaleBalancesWorker{Store: env.Store, API: env.API, Clock: time.Now, Logger: slog.New(slog.DiscardHandler)}
	if err := worker.Work(ctx, nil); err != nil {
		t.Fatal(err)
	}
	amount, _, _, fresh, outdated = balanceRow(t, env, c, "USDB")
	if amount != "249,600.25 USD (USDB)" || outdated != "no" || !strings.HasPrefix(fresh, "as of ") {
		t.Fatalf("after the read: %q %q %q", amount, fresh, outdated)
	}
	// The recipient's wallets were marked and read too.
	emily, err := env.Store.EmployeeByServiceUserID(ctx, env.DemoEmployee("Emily").ServiceUserID)
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := env.Store.WalletsByEmployee(ctx, emily.ID)
	for _, w := range ws {
		if w.BalanceStaleSince != nil {
			t.Errorf("recipient wallet %s still stale", w.ID)
		}
	}
}

// A proposal's amount is checked against the balance the API holds when the
// form is sent, not the last figure read; when that balance cannot be read,
// nothing is sent.
func TestTreasuryFormChecksTheAmountAgainstTheBalanceReadAtSubmit(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	w, err := env.Store.WalletByID(ctx, usd)
	if err != nil {
		t.Fatal(err)
	}
	// The mirror believes in more than the API holds.
	w.Balance = decimal.NewNullDecimal(decimal.RequireFromString("900000"))
	if err := env.Store.UpsertWallet(ctx, w); err != nil {
		t.Fatal(err)
	}
	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)
	form := url.Values{"wallet_id": {usd}, "to_user_id": {env.DemoEmployee("Emily").ServiceUserID}, "amount": {"300000"}}
	form.Set("form_token", webtest.TreasuryFormToken(t, env, c, "transfer"))
	resp := env.PostForm(c, "/treasury/transfer", form)
	doc := webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "transfer-amount-error"); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(msg, "More than the wallet holds now (249,500.00 USD (USDB)") {
		t.Fatalf("over the live balance: %d %q", resp.StatusCode, msg)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 0 {
		t.Fatalf("%d proposals sent", n)
	}
	// The read corrected the mirror.
	if w, _ := env.Store.WalletByID(ctx, usd); !w.Balance.Decimal.Equal(decimal.RequireFromString("249500")) {
		t.Fatalf("mirror balance %s", w.Balance.Decimal)
	}

	// The balance cannot be read: refused in words, nothing sent.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": balancesRoute, "status": 503})
	form.Set("amount", "10")
	resp = env.PostForm(c, "/treasury/transfer", form)
	doc = webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "transfer-amount-error"); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(msg, "could not be read") {
		t.Fatalf("unreadable balance: %d %q", resp.StatusCode, msg)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 0 {
		t.Fatalf("%d proposals sent", n)
	}
	webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
	resp = env.PostForm(c, "/treasury/transfer", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)-before != 1 {
		t.Fatalf("within the balance: %d, %d sent", resp.StatusCode, env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)-before)
	}
}

// "Read the balances now" reads them from the API; when the API does not
// answer the overview keeps the last figures and says so.
func TestTreasuryBalancesReadOnDemand(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/deposits", map[string]any{"smartWalletId": usd, "amount": "0.5"})
	if amount, _, _, _, _ := balanceRow(t, env, c, "USDB"); amount != "249,500.00 USD (USDB)" {
		t.Fatalf("before: %q", amount)
	}
	resp := env.PostForm(c, "/treasury/balances/refresh", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("refresh: %d", resp.StatusCode)
	}
	if amount, _, _, _, _ := balanceRow(t, env, c, "USDB"); amount != "249,500.50 USD (USDB)" {
		t.Fatalf("after: %q", amount)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": balancesRoute, "status": 503})
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	resp = env.Do(c, http.MethodPost, "/treasury/balances/refresh", strings.NewReader(""), h)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "balances-error"), "could not be read just now") ||
		!strings.Contains(doc.Find(`[data-testid="balance-USDB"] [data-testid="balance-amount"]`).Text(), "249,500.50") {
		t.Fatalf("unanswered refresh: %d %q", resp.StatusCode, webtest.TestID(doc, "balances-error"))
	}
}
