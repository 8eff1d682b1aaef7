package controlstest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// limitsInForce puts a daily limit on a wallet, proposed by one owner and
// approved by another an hour ago.
func limitsInForce(t *testing.T, env *webtest.Env, w store.Wallet, day string) {
	t.Helper()
	ctx := context.Background()
	a, b := env.CreateStaff(store.RoleOwner), env.CreateStaff(store.RoleOwner)
	past := time.Now().Add(-time.Hour)
	c, err := env.Store.ProposePolicyChange(ctx, store.NewPolicyChange{Kind: store.PolicyLimits, Target: w.ID, Summary: "daily limit " + day,
		Body: store.WalletLimits{Currency: w.Currency, Day: decimal.NewNullDecimal(decimal.RequireFromString(day))}, By: a.Actor(), At: past})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.ApprovePolicyChange(ctx, c.ID, b.Actor(), past, past); err != nil {
		t.Fatal(err)
	}
}

// refusedRoles: support and HR cannot use a money-out form, nor send one.
func refusedRoles(t *testing.T, env *webtest.Env, get, postPath string) {
	t.Helper()
	for _, role := range []store.Role{store.RoleSupport, store.RoleHRAdmin} {
		c, _ := env.SignedIn(role)
		if resp := env.Get(c, get); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s opens %s: %d", role, get, resp.StatusCode)
		}
		if resp := env.PostForm(c, postPath, webtest.WithFormToken(url.Values{})); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s posts %s: %d", role, postPath, resp.StatusCode)
		}
	}
}

// The Nigerian withdrawal picks its account from the book, says when a
// pending one becomes usable, refuses one outside the book or cooling off
// before anything is registered, and begins the offramp with the spend
// check naming the book's entry.
func TestNigeriaWithdrawalGoesOnlyToTheBook(t *testing.T) {
	t.Parallel()
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now})
	ctx := context.Background()
	finance, fs := env.SignedIn(store.RoleFinanceApprover)
	refusedRoles(t, env, "/money-out/nigeria", "/money-out/nigeria/verify")

	doc := webtest.Doc(t, env.Get(finance, "/money-out/nigeria"))
	if !strings.Contains(webtest.TestID(doc, "book-picker-empty"), "no Nigerian bank account entries") {
		t.Fatalf("empty book: %q", webtest.TestID(doc, "book-picker-empty"))
	}
	verify := func(v url.Values) (int, string, string) {
		t.Helper()
		resp := env.PostForm(finance, "/money-out/nigeria/verify", v)
		d := webtest.Doc(t, resp)
		return resp.StatusCode, webtest.TestID(d, "f-account_number-error") + webtest.TestID(d, "f-destination_id-error"), webtest.TestID(d, "ngn-error")
	}
	typed := url.Values{"bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {webtest.NigeriaTreasuryNUBAN}}
	if code, field, _ := verify(typed); code != http.StatusUnprocessableEntity || !strings.Contains(field, "not in the address book") {
		t.Fatalf("outside the book: %d %q", code, field)
	}

	// Added by one person: offered, waiting for a second.
	a, b := env.CreateStaff(store.RoleFinanceApprover), env.CreateStaff(store.RoleOwner)
	d, err := env.Store.AddDestination(ctx, store.NewDestination{Kind: store.DestNigerianBank, Value: webtest.NigeriaTreasuryNUBAN,
		BankCode: webtest.NigeriaTreasuryBank, Name: "Treasury at Wema", By: a.Actor(), At: clk.Now()})
	if err != nil {
		t.Fatal(err)
	}
	doc = webtest.Doc(t, env.Get(finance, "/money-out/nigeria"))
	if opt := doc.Find(`#f-destination_id option[value="` + itoa(d.ID) + `"]`).Text(); !strings.Contains(opt, "Treasury at Wema") ||
		!strings.Contains(opt, "waits for another person") {
		t.Fatalf("pending option: %q", opt)
	}
	// Confirmed: cooling off, and the form says until when.
	if _, err := env.Store.ConfirmDestination(ctx, d.ID, b.Actor(), clk.Now(), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	doc = webtest.Doc(t, env.Get(finance, "/money-out/nigeria"))
	if !strings.Contains(webtest.TestID(doc, "book-pending"), "becomes usable on") {
		t.Fatalf("pending words: %q", webtest.TestID(doc, "book-pending"))
	}
	picked := url.Values{"destination_id": {itoa(d.ID)}}
	if code, _, summary := verify(picked); code != http.StatusUnprocessableEntity || !strings.Contains(summary, "Cooling-off period") {
		t.Fatalf("cooling off: %d %q", code, summary)
	}
	// Bad input changes nothing: an id that is no entry, an entry and a
	// different typed account.
	if code, field, _ := verify(url.Values{"destination_id": {"x1"}}); code != http.StatusUnprocessableEntity || !strings.Contains(field, "Choose one of the book's entries") {
		t.Fatalf("bad id: %d %q", code, field)
	}
	both := url.Values{"destination_id": {itoa(d.ID)}, "bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {"8012345679"}}
	if code, field, _ := verify(both); code != http.StatusUnprocessableEntity || !strings.Contains(field, "not both") {
		t.Fatalf("picked and typed: %d %q", code, field)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaAccountRoute); n != 0 {
		t.Fatalf("%d accounts registered while refused", n)
	}

	// Past the cooling-off on the app's clock: the entry picked alone
	// fills the bank and the account, and the withdrawal is proposed.
	clk.Advance(24*time.Hour + time.Minute)
	finance = env.Client()
	env.Login(finance, fs.Email, fs.Password)
	resp := env.PostForm(finance, "/money-out/nigeria/verify", picked)
	doc = webtest.Doc(t, resp)
	tok := doc.Find(`[data-testid="ngn-holder-form"] input[name="form_token"]`).AttrOr("value", "")
	if resp.StatusCode != http.StatusOK || tok == "" {
		t.Fatalf("trusted: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-error"))
	}
	holder := url.Values{"form_token": {tok}, "bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {webtest.NigeriaTreasuryNUBAN},
		"holder": {doc.Find(`[data-testid="ngn-holder"]`).AttrOr("value", "")}}
	resp = env.PostForm(finance, "/money-out/nigeria/account", holder)
	doc = webtest.Doc(t, resp)
	form := url.Values{"form_token": {doc.Find(`[data-testid="ngn-amount-form"] input[name="form_token"]`).AttrOr("value", "")},
		"account_token": {doc.Find(`[data-testid="ngn-amount-form"] input[name="account_token"]`).AttrOr("value", "")},
		"wallet_id":     {webtest.TreasuryWallet(t, env, "USDB").ID}, "amount": {"10.00"}}
	if resp.StatusCode != http.StatusOK || form.Get("account_token") == "" {
		t.Fatalf("register: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-error"))
	}
	if resp := env.PostForm(finance, "/money-out/nigeria/offramp", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("offramp: %d %q", resp.StatusCode, webtest.TestID(webtest.Doc(t, resp), "ngn-error"))
	}
	var dest string
	if err := env.Store.Pool().QueryRow(ctx, `SELECT s.destination FROM policy_spends s JOIN actions a ON a.key = s.action_key
		WHERE a.kind = 'ngn_offramp.create'`).Scan(&dest); err != nil ||
		dest != store.DestinationKey(store.DestNigerianBank, webtest.NigeriaTreasuryBank, webtest.NigeriaTreasuryNUBAN) {
		t.Fatalf("spend's destination %q: %v", dest, err)
	}
}

// The bank payout offers the book's accounts at the bank chosen, refuses an
// account outside the book once the API has found it, and its confirmation
// is refused over the wallet's daily limit with nothing sent.
func TestBankPayoutGoesOnlyToTheBookAndWithinTheLimits(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	finance, _ := env.SignedIn(store.RoleFinanceApprover)
	refusedRoles(t, env, "/money-out/payout", "/money-out/payout")
	payouts := env.Sandbox.RequestCount("POST", webtest.PayoutRoute)

	at := func(account, destinationID string) url.Values {
		return url.Values{"step": {"account"}, "country": {"GBR"}, "bank_id": {"gbr-barclays"}, "account_number": {account},
			"destination_id": {destinationID}}
	}
	doc := webtest.PayoutStep(t, env, finance, at("12345678", ""), http.StatusUnprocessableEntity)
	webtest.FieldProblem(t, doc, "f-account_number", "not in the address book")
	if doc.Find("#f-account_number").AttrOr("value", "") != "12345678" {
		t.Fatal("the typed account was lost")
	}

	webtest.TrustDestination(t, env, store.DestBankAccount, "12345678", "gbr-barclays")
	webtest.TrustDestination(t, env, store.DestBankAccount, "87654321", "gbr-monzo")
	book, err := env.Store.Destinations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, d := range book {
		ids[d.BankCode] = itoa(d.ID)
	}
	// Only the bank's own accounts are offered; another bank's is refused.
	doc = webtest.PayoutStep(t, env, finance, url.Values{"step": {"bank"}, "country": {"GBR"}, "bank_id": {"gbr-barclays"}}, http.StatusOK)
	if n := doc.Find(`#f-destination_id option[value!=""]`).Length(); n != 1 || doc.Find(`#f-destination_id option[value="`+ids["gbr-barclays"]+`"]`).Length() != 1 {
		t.Fatalf("%d entries offered at Barclays", n)
	}
	doc = webtest.PayoutStep(t, env, finance, at("", ids["gbr-monzo"]), http.StatusUnprocessableEntity)
	webtest.FieldProblem(t, doc, "f-destination_id", "another bank")
	// Picked from the book: the holder is shown and the amount asked.
	doc = webtest.PayoutStep(t, env, finance, at("", ids["gbr-barclays"]), http.StatusOK)
	if webtest.TestID(doc, "payout-holder") == "" || doc.Find("#f-amount").Length() != 1 {
		t.Fatalf("no holder after picking from the book: %q", webtest.TestID(doc, "payout-error"))
	}

	// Over the daily limit: the review is shown, the confirmation refused.
	limitsInForce(t, env, webtest.TreasuryWallet(t, env, "USDB"), "100")
	form, _ := webtest.PayoutReview(t, env, finance, "GBR", "gbr-barclays", "", "12345678", "150.00")
	resp := env.PostForm(finance, "/money-out/payout/confirm", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), "100.00 of 100.00 USD left") {
		t.Fatalf("over the limit: %d %q %q", resp.StatusCode, webtest.TestID(doc, "f-amount-error"), webtest.TestID(doc, "payout-error"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.PayoutRoute); n != payouts {
		t.Fatalf("%d payouts sent while refused", n-payouts)
	}
}

// The SEPA payout picks its IBAN from the book and refuses one outside it.
func TestSEPAPayoutGoesOnlyToTheBook(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	webtest.SEPAReady(t, env)
	finance, _ := env.SignedIn(store.RoleFinanceApprover)
	refusedRoles(t, env, "/money-out/sepa", "/money-out/sepa")

	form := webtest.SEPAForm(t, env, finance) // trusts webtest.SEPAIBAN
	form.Set("iban", "GB82 WEST 1234 5698 7654 32")
	resp := env.PostForm(finance, "/money-out/sepa", form)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("outside the book: %d", resp.StatusCode)
	}
	webtest.FieldProblem(t, doc, "f-iban", "not in the address book")
	if doc.Find("#f-iban").AttrOr("value", "") != "GB82 WEST 1234 5698 7654 32" {
		t.Fatal("the typed IBAN was lost")
	}
	d, err := env.Store.DestinationByKey(context.Background(), store.DestinationKey(store.DestIBAN, "", webtest.SEPAIBANElectronic))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Find(`#f-destination_id option[value="`+itoa(d.ID)+`"]`).Length() != 1 {
		t.Fatal("the book's IBAN is not offered")
	}
	form.Del("iban")
	form.Set("destination_id", itoa(d.ID))
	resp = env.PostForm(finance, "/money-out/sepa", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || webtest.TestID(doc, "review-iban") != webtest.SEPAIBAN {
		t.Fatalf("picked: %d %q", resp.StatusCode, webtest.TestID(doc, "review-iban"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SEPAPrepareRoute); n != 0 {
		t.Fatalf("%d orders prepared before the confirmation", n)
	}
}

// The Mexican offramp and a cash send name no payee, so the book has
// nothing to check; the wallet's limits hold for them all the same, and a
// cash pay-in is no spend.
func TestMexicoAndCashSendsHoldToTheLimits(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	webtest.MexicoReady(t, env)
	mxn := webtest.TreasuryWallet(t, env, "MEXe")
	limitsInForce(t, env, mxn, "100")
	finance, _ := env.SignedIn(store.RoleFinanceApprover)
	refusedRoles(t, env, "/money-out/mexico", "/money-out/mexico")

	resp := env.PostForm(finance, "/money-out/mexico", webtest.MexicoQuoteForm(t, env, finance, "150.00"))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), "100.00 of 100.00 MXN left") {
		t.Fatalf("mexico over the limit: %d %q", resp.StatusCode, webtest.TestID(doc, "f-amount-error"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoQuoteRoute); n != 0 {
		t.Fatalf("%d quotes asked while refused", n)
	}
	cash := func(typ, price string) int {
		t.Helper()
		v := webtest.CashForm(t, env, finance, typ, url.Values{"wallet_id": {mxn.ID}, "country": {"MX"}, "price": {price}, "description": {"Petty cash"}})
		return env.PostForm(finance, "/money-out/cash/"+typ, v).StatusCode
	}
	if code := cash("send", "150.00"); code != http.StatusUnprocessableEntity {
		t.Fatalf("cash send over the limit: %d", code)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.CashSendRoute); n != 0 {
		t.Fatalf("%d cash sends while refused", n)
	}
	if code := cash("fund", "150.00"); code >= 400 {
		t.Fatalf("cash pay-in refused: %d", code)
	}
	resp = env.PostForm(finance, "/money-out/mexico", webtest.MexicoQuoteForm(t, env, finance, "90.00"))
	if resp.StatusCode >= 400 {
		t.Fatalf("mexico within the limit: %d %q", resp.StatusCode, webtest.TestID(webtest.Doc(t, resp), "f-amount-error"))
	}
}
