package controlstest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A payroll run is checked per row (the share of the balance) and as a
// whole (the daily limit), when it is sent: the refusal names the rows and
// the rules and nothing is sent; a run that fits starts, and its spend
// counts against the next request.
func TestPayrollRunIsCheckedPerRowAndAsAWhole(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	finance, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB")
	if !usd.Balance.Valid {
		t.Fatal("the demo's USDB balance is not read")
	}
	// A day's limit of 1,000 USD and at most 10% of the balance a request.
	a, b := env.CreateStaff(store.RoleOwner), env.CreateStaff(store.RoleOwner)
	past := time.Now().Add(-time.Hour)
	c, err := env.Store.ProposePolicyChange(ctx, store.NewPolicyChange{Kind: store.PolicyLimits, Target: usd.ID, Summary: "payroll test",
		Body: store.WalletLimits{Currency: usd.Currency, Day: decimal.NewNullDecimal(decimal.RequireFromString("1000")),
			MaxSharePercent: decimal.NewNullDecimal(decimal.RequireFromString("10"))}, By: a.Actor(), At: past})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.ApprovePolicyChange(ctx, c.ID, b.Actor(), past, past); err != nil {
		t.Fatal(err)
	}
	share := usd.Balance.Decimal.Div(decimal.NewFromInt(10)).Round(2)
	over := share.Add(decimal.RequireFromString("0.01"))
	before := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute)
	send := func(id int64) (int, string) {
		t.Helper()
		doc := webtest.PayrollPage(t, env, finance, id)
		resp := env.PostForm(finance, fmt.Sprintf("/payroll/%d/send", id), url.Values{"form_token": {webtest.FormTokenOf(t, doc, "payroll-send-form")}})
		return resp.StatusCode, webtest.TestID(webtest.Doc(t, resp), "payroll-send-error")
	}
	row := func(name, amount string) string {
		return env.DemoEmployee(name).Email + "," + amount + ",USD,November\n"
	}

	// The file's row 3 (its second payee) alone takes more than 10% of the
	// balance; rows 2 to 4 together more than the day's 1,000 USD.
	id := webtest.CreatePayroll(t, env, finance, "employee,amount,currency,description\n"+
		row("Emily", "600")+row("Oliver", over.String())+row("Lena", "500"))
	code, msg := send(id)
	if code != http.StatusUnprocessableEntity || !strings.Contains(msg, "Share of the balance: row 3:") ||
		!strings.Contains(msg, "Daily limit: The run's rows 2, 3 and 4 from this wallet together:") {
		t.Fatalf("refused run: %d %q", code, msg)
	}
	if run, _ := env.Store.PayrollRunByID(ctx, id); run.State != store.PayrollPreview {
		t.Fatalf("refused run is %s", run.State)
	}
	audit, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "payroll.send"})
	if len(audit) != 1 || audit[0].Outcome != store.OutcomeRefused || !strings.Contains(audit[0].Detail, "row 3") {
		t.Fatalf("audit %+v", audit)
	}

	// A run that fits starts, and counts: the next one is refused at what
	// is left.
	id = webtest.CreatePayroll(t, env, finance, "employee,amount,currency,description\n"+row("Emily", "600")+row("Lena", "300"))
	if code, msg := send(id); code != http.StatusSeeOther {
		t.Fatalf("run within the limits: %d %q", code, msg)
	}
	var spent decimal.Decimal
	if err := env.Store.Pool().QueryRow(ctx, `SELECT amount::text FROM policy_spends WHERE wallet_id = $1 AND destination = 'payroll'`, usd.ID).Scan(&spent); err != nil ||
		!spent.Equal(decimal.NewFromInt(900)) {
		t.Fatalf("run's spend %s: %v", spent, err)
	}
	id = webtest.CreatePayroll(t, env, finance, "employee,amount,currency,description\n"+row("Oliver", "150"))
	if code, msg := send(id); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "100.00 of 1,000.00") && !strings.Contains(msg, "100.00 of 1000.00") {
		t.Fatalf("after the first run: %d %q", code, msg)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.ProposalsRoute) - before; n != 0 {
		t.Fatalf("%d proposals sent without workers", n)
	}

	// Support cannot send a run.
	support, _ := env.SignedIn(store.RoleSupport)
	if resp := env.PostForm(support, fmt.Sprintf("/payroll/%d/send", id), webtest.WithFormToken(nil)); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support sends: %d", resp.StatusCode)
	}
}
