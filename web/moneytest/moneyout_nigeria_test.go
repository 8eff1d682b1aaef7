package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

func npAuditCount(t *testing.T, env *webtest.Env, action string) int {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// TestMoneyOutNigeriaJourney: bank and NUBAN checked before any call, the
// registered holder shown read-only and required unchanged, the account
// registered once however many times the form is posted, the offramp
// proposed once with fromAmount a decimal, its quote shown, mirrored with
// its creator; approved and signed, the CNGN balance falls by the amount.
func TestMoneyOutNigeriaJourney(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, owner := env.SignedIn(store.RoleOwner)
	ngn := webtest.TreasuryWallet(t, env, "CNGN").ID
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "CNGN")

	if doc := webtest.Doc(t, env.Get(c, "/money-out")); doc.Find(`a[href="/money-out/nigeria"]`).Length() != 1 {
		t.Fatal("no Nigerian withdrawal in the money-out index")
	}
	doc := webtest.Doc(t, env.Get(c, "/money-out/nigeria"))
	if doc.Find(`#f-bank_code option[value="`+webtest.NigeriaTreasuryBank+`"]`).Length() != 1 {
		t.Fatalf("banks: %q", doc.Find("#f-bank_code").Text())
	}

	// A bad NUBAN is refused at the field before any call, the input kept.
	for _, bad := range []string{"801234567", "80123456ab", "80123456789", ""} {
		resp := env.PostForm(c, "/money-out/nigeria/verify", url.Values{"bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {bad}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "f-account_number-error") == "" ||
			webtest.TestID(doc, "ngn-error") == "" {
			t.Fatalf("NUBAN %q: %d %q", bad, resp.StatusCode, webtest.TestID(doc, "f-account_number-error"))
		}
		if v, _ := doc.Find("#f-account_number").Attr("value"); v != bad {
			t.Fatalf("typed NUBAN lost: %q", v)
		}
		if doc.Find(`#f-bank_code option[value="`+webtest.NigeriaTreasuryBank+`"][selected]`).Length() != 1 {
			t.Fatal("chosen bank lost")
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaVerifyRoute); n != 0 {
		t.Fatalf("bad NUBANs made %d verify calls", n)
	}
	// No account matches: the API's 404 said at the field.
	resp := env.PostForm(c, "/money-out/nigeria/verify", url.Values{"bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {"1234567890"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-account_number-error"), "No account") {
		t.Fatalf("unknown account: %d %q", resp.StatusCode, webtest.TestID(doc, "f-account_number-error"))
	}

	// A changed holder name is refused; nothing registered.
	form := webtest.NigeriaHolderStep(t, env, c)
	changed := url.Values{}
	for k, v := range form {
		changed[k] = v
	}
	changed.Set("holder", "ACME PAYROLL")
	resp = env.PostForm(c, "/money-out/nigeria/account", changed)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-holder-error"), "changed") {
		t.Fatalf("changed holder: %d %q", resp.StatusCode, webtest.TestID(doc, "f-holder-error"))
	}
	if v, _ := doc.Find(`[data-testid="ngn-holder"]`).Attr("value"); v != webtest.NigeriaTreasuryName {
		t.Fatalf("holder shown again: %q", v)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaAccountRoute); n != 0 {
		t.Fatalf("a changed holder made %d register calls", n)
	}

	// Five posts of the holder step at once: one registration upstream,
	// one audit row.
	codes := env.PostFormAtOnce(c, "/money-out/nigeria/account", form, 5)
	for code := range codes {
		if code != http.StatusOK && code != http.StatusConflict {
			t.Fatalf("concurrent register: %v", codes)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaAccountRoute); n != 1 {
		t.Fatalf("%d register calls, want 1", n)
	}
	if n := npAuditCount(t, env, "ngn_withdrawal_account.create"); n != 1 {
		t.Fatalf("%d register audit rows", n)
	}
	resp = env.PostForm(c, "/money-out/nigeria/account", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "ngn-holder-name"), webtest.NigeriaTreasuryName) ||
		!strings.Contains(webtest.TestID(doc, "ngn-account-label"), "****5678") {
		t.Fatalf("amount step: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-account-label"))
	}
	amountTok, _ := doc.Find(`[data-testid="ngn-amount-form"] input[name="form_token"]`).Attr("value")
	acctTok, _ := doc.Find(`[data-testid="ngn-amount-form"] input[name="account_token"]`).Attr("value")

	// Bad amounts: at the field, typed value kept, nothing sent.
	for _, tc := range []struct{ amount, want string }{
		{"1,50", "use a point for decimals"}, {"12.345", "decimal places"}, {"-3", "more than zero"}, {before.Add(decimal.NewFromInt(1)).String(), "More than the wallet holds"},
	} {
		resp := env.PostForm(c, "/money-out/nigeria/offramp", url.Values{"form_token": {amountTok}, "account_token": {acctTok},
			"wallet_id": {ngn}, "amount": {tc.amount}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), tc.want) {
			t.Fatalf("amount %q: %d %q", tc.amount, resp.StatusCode, webtest.TestID(doc, "f-amount-error"))
		}
		if v, _ := doc.Find("#f-amount").Attr("value"); v != tc.amount {
			t.Fatalf("typed amount lost: %q", v)
		}
		webtest.FieldProblem(t, doc, "f-amount", tc.want)
		if doc.Find(`#f-wallet_id option[value="`+ngn+`"][selected]`).Length() != 1 {
			t.Fatal("chosen wallet lost")
		}
	}
	// The API's refusal in its words at the amount: under the NGN fee.
	resp = env.PostForm(c, "/money-out/nigeria/offramp", url.Values{"form_token": {amountTok}, "account_token": {acctTok},
		"wallet_id": {ngn}, "amount": {"20"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), "fee") {
		t.Fatalf("under the fee: %d %q", resp.StatusCode, webtest.TestID(doc, "f-amount-error"))
	}
	amountTok, _ = doc.Find(`[data-testid="ngn-amount-form"] input[name="form_token"]`).Attr("value")

	// Five posts at once: one offramp upstream, one audit row, all shown
	// the same proposal.
	calls := env.Sandbox.RequestCount("POST", webtest.NigeriaOfframpRoute)
	offramp := url.Values{"form_token": {amountTok}, "account_token": {acctTok}, "wallet_id": {ngn}, "amount": {"1,000.50"}}
	var wg sync.WaitGroup
	locs := make([]string, 5)
	for i := range locs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp := env.PostForm(c, "/money-out/nigeria/offramp", offramp)
			resp.Body.Close()
			locs[i] = resp.Header.Get("Location")
		}(i)
	}
	wg.Wait()
	for _, l := range locs {
		if l == "" || l != locs[0] {
			t.Fatalf("locations %v", locs)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaOfframpRoute) - calls; n != 1 {
		t.Fatalf("%d offramp calls, want 1", n)
	}
	if rows, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "ngn_offramp.create"}); len(rows) != 2 ||
		rows[0].Outcome != store.OutcomeOK || rows[1].Outcome == store.OutcomeOK {
		t.Fatalf("offramp audit rows (the refused one and the proposal): %+v", rows)
	}
	doc = webtest.Doc(t, env.Get(c, locs[0]))
	link, _ := doc.Find(`[data-testid="ngn-proposal-link"]`).Attr("href")
	if !strings.HasPrefix(link, "/approvals/") || !strings.Contains(webtest.TestID(doc, "ngn-offramp-to"), "950.50 NGN") ||
		!strings.Contains(webtest.TestID(doc, "ngn-offramp-fee"), "50.00 NGN") || !strings.Contains(webtest.TestID(doc, "ngn-offramp-from"), "1,000.50") {
		t.Fatalf("offramp page: %q %q %q", link, webtest.TestID(doc, "ngn-offramp-to"), webtest.TestID(doc, "ngn-offramp-fee"))
	}
	id := strings.TrimPrefix(link, "/approvals/")
	p, err := env.Store.ProposalByID(ctx, id)
	if err != nil || p.CreatedByStaffID != owner.ID || !p.Amount.Equal(decimal.RequireFromString("1000.50")) || p.WalletID != ngn {
		t.Fatalf("mirrored proposal: %+v %v", p, err)
	}

	// It waits in the approval queue, and its creator may not approve it.
	doc = webtest.Doc(t, env.Get(c, "/approvals/"+id))
	if doc.Find(`[data-testid="approve"]`).Length() != 0 || !strings.Contains(webtest.TestID(doc, "blocked-reason"), "someone else") {
		t.Fatal("the creator is offered approve")
	}
	resp = env.PostForm(c, "/approvals/"+id+"/approve", webtest.WithFormToken(url.Values{"confirm": {"1"}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the creator approving: %d", resp.StatusCode)
	}

	// Approved by the wallet admins and signed on the owner's device, the
	// withdrawal settles and the CNGN balance falls by the amount.
	admins := webtest.TreasuryAdmins(t, env)
	for _, admin := range admins[:2] {
		ac, _ := webtest.Approver(t, env, admin)
		resp := env.PostForm(ac, "/approvals/"+id+"/approve", webtest.WithFormToken(url.Values{"confirm": {"1"}}))
		resp.Body.Close()
		if p, _ := env.Store.ProposalByID(ctx, id); p.Status == store.ProposalPendingSignatures {
			break
		}
	}
	if p, _ := env.Store.ProposalByID(ctx, id); p.Status != store.ProposalPendingSignatures {
		t.Fatalf("after approvals: %s", p.Status)
	}
	sl := webtest.IssueSignLink(t, env, c, id)
	code, req := webtest.DeviceGet(t, env, sl.Path)
	if code != http.StatusOK {
		t.Fatalf("device get %d", code)
	}
	if code, ans := webtest.DevicePost(t, env, sl.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex()); code != http.StatusOK {
		t.Fatalf("device post %d %v", code, ans)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", nil)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", nil)
	after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "CNGN")
	if !before.Sub(after).Equal(decimal.RequireFromString("1000.50")) {
		t.Fatalf("CNGN balance %s → %s, want a fall of 1000.50", before, after)
	}
}

// TestMoneyOutNigeriaLostAnswerIsReadBack: the API records the offramp but
// its answer is lost; the proposal is found through the wallet's proposals,
// never sent twice.
func TestMoneyOutNigeriaLostAnswerIsReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	ngn := webtest.TreasuryWallet(t, env, "CNGN").ID
	form := webtest.NigeriaAmountStep(t, env, c)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.NigeriaOfframpRoute,
		"drop": true, "after": true, "times": 1})

	form.Set("wallet_id", ngn)
	form.Set("amount", "500")
	resp := env.PostForm(c, "/money-out/nigeria/offramp", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("lost answer: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
	link, _ := doc.Find(`[data-testid="ngn-proposal-link"]`).Attr("href")
	if !strings.HasPrefix(link, "/approvals/") {
		t.Fatalf("not read back: %q", webtest.TestID(doc, "ngn-offramp-message"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaOfframpRoute); n != 1 {
		t.Fatalf("%d offramp calls, want 1", n)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "ngn_offramp.create"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "reading it back") {
		t.Fatalf("audit %+v", rows)
	}
}

// TestMoneyOutNigeriaRoles: finance approvers and owners may; HR admins and
// support get 403 on every state-changing step.
func TestMoneyOutNigeriaRoles(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		for _, path := range []string{"/money-out/nigeria", "/money-out/nigeria/verify", "/money-out/nigeria/account", "/money-out/nigeria/offramp"} {
			var resp *http.Response
			if path == "/money-out/nigeria" {
				resp = env.Get(c, path)
			} else {
				resp = env.PostForm(c, path, url.Values{"bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {webtest.NigeriaTreasuryNUBAN}})
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s %s: %d", role, path, resp.StatusCode)
			}
		}
	}
	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleOwner} {
		c, _ := env.SignedIn(role)
		webtest.NigeriaAmountStep(t, env, c)
	}
	// Each verifies the account, and again before registering it.
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaVerifyRoute); n != 4 {
		t.Fatalf("%d verify calls", n)
	}
}

// TestMoneyOutNigeriaAccountLostAnswerAndRefusal: registering the account
// whose answer is lost is not sent again behind the person's back (the API
// cannot read withdrawal accounts); continuing again is a new get-or-create
// that returns the same account. A refusal is shown at the holder. No
// account number reaches the logs, the ledger or the audit log.
func TestMoneyOutNigeriaAccountLostAnswerAndRefusal(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.NigeriaAccountRoute,
		"status": 400, "message": "accountHolderName must equal the verified account name exactly", "times": 1})

	resp := env.PostForm(c, "/money-out/nigeria/account", webtest.NigeriaHolderStep(t, env, c))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-holder-error"), "verified account name") {
		t.Fatalf("refused: %d %q %q", resp.StatusCode, webtest.TestID(doc, "f-holder-error"), webtest.TestID(doc, "ngn-error"))
	}

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.NigeriaAccountRoute,
		"drop": true, "after": true, "times": 1})

	form := webtest.NigeriaHolderStep(t, env, c)
	resp = env.PostForm(c, "/money-out/nigeria/account", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "ngn-error"), "same account") {
		t.Fatalf("lost: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-error"))
	}
	if a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); err != nil || a.State != store.ActionUnknown {
		t.Fatalf("ledger: %+v %v", a.State, err)
	}
	// The same form again sends nothing.
	resp = env.PostForm(c, "/money-out/nigeria/account", form)
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaAccountRoute); n != 2 {
		t.Fatalf("%d register calls, want 2 (the refused and the lost one)", n)
	}
	// Continuing with the new token the page gave: the same account.
	tok, _ := doc.Find(`[data-testid="ngn-holder-form"] input[name="form_token"]`).Attr("value")
	form.Set("form_token", tok)
	resp = env.PostForm(c, "/money-out/nigeria/account", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="ngn-amount-form"]`).Length() != 1 {
		t.Fatalf("continue: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-error"))
	}
	var accounts int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(DISTINCT result->>'id') FROM actions WHERE kind = 'ngn_withdrawal_account.create' AND state = 'done'`).Scan(&accounts); err != nil || accounts != 1 {
		t.Fatalf("%d accounts registered: %v", accounts, err)
	}

	// The account number is kept nowhere but the person's own form.
	if strings.Contains(env.Logs.String(), webtest.NigeriaTreasuryNUBAN) {
		t.Fatal("the NUBAN is in the logs")
	}
	var leaks int
	if err := env.Store.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM actions WHERE request::text LIKE '%'||$1||'%' OR result::text LIKE '%'||$1||'%')
		+ (SELECT count(*) FROM audit_log WHERE detail LIKE '%'||$1||'%')`, webtest.NigeriaTreasuryNUBAN).Scan(&leaks); err != nil || leaks != 0 {
		t.Fatalf("the NUBAN is kept in %d rows: %v", leaks, err)
	}
}
