// The money-out rails' forms, filled in as a person fills them.

package webtest

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
)

// CashForm is a cash order form of the page with its one-time token.
func CashForm(t testing.TB, env *Env, c *http.Client, typ string, v url.Values) url.Values {
	t.Helper()
	doc := Doc(t, env.Get(c, "/money-out/cash"))
	tok := doc.Find(`[data-testid="cash-`+typ+`-form"] input[name="form_token"]`).AttrOr("value", "")
	if tok == "" {
		t.Fatalf("no %s form", typ)
	}
	out := url.Values{"form_token": {tok}}
	for k, vs := range v {
		out[k] = vs
	}
	return out
}

// MexicoQuoteForm opens the quote form and returns it filled.
func MexicoQuoteForm(t testing.TB, env *Env, c *http.Client, amount string) url.Values {
	t.Helper()
	resp := env.Get(c, "/money-out/mexico")
	doc := Doc(t, resp)
	tok, _ := doc.Find(`[data-testid="mx-form"] input[name="form_token"]`).Attr("value")
	if resp.StatusCode != http.StatusOK || tok == "" {
		t.Fatalf("mexico form: %d, token %q, kyc %q", resp.StatusCode, tok, TestID(doc, "mx-kyc-words"))
	}
	return url.Values{"form_token": {tok}, "amount": {amount}, "note": {"Payroll November"}}
}

// NigeriaAmountStep registers the account and returns the amount step's form.
func NigeriaAmountStep(t testing.TB, env *Env, c *http.Client) url.Values {
	t.Helper()
	resp := env.PostForm(c, "/money-out/nigeria/account", NigeriaHolderStep(t, env, c))
	doc := Doc(t, resp)
	tok, _ := doc.Find(`[data-testid="ngn-amount-form"] input[name="form_token"]`).Attr("value")
	acct, _ := doc.Find(`[data-testid="ngn-amount-form"] input[name="account_token"]`).Attr("value")
	if resp.StatusCode != http.StatusOK || tok == "" || acct == "" {
		t.Fatalf("register: %d %q", resp.StatusCode, TestID(doc, "ngn-error"))
	}
	return url.Values{"form_token": {tok}, "account_token": {acct}}
}

// NigeriaHolderStep verifies the treasury's own account (made a trusted
// destination first, as the money controls ask) and returns the holder
// step's form as a browser would post it.
func NigeriaHolderStep(t testing.TB, env *Env, c *http.Client) url.Values {
	t.Helper()
	TrustDestination(t, env, store.DestNigerianBank, NigeriaTreasuryNUBAN, NigeriaTreasuryBank)
	resp := env.PostForm(c, "/money-out/nigeria/verify", url.Values{"bank_code": {NigeriaTreasuryBank}, "account_number": {NigeriaTreasuryNUBAN}})
	doc := Doc(t, resp)
	holder, _ := doc.Find(`[data-testid="ngn-holder"]`).Attr("value")
	_, readonly := doc.Find(`[data-testid="ngn-holder"]`).Attr("readonly")
	tok, _ := doc.Find(`[data-testid="ngn-holder-form"] input[name="form_token"]`).Attr("value")
	if resp.StatusCode != http.StatusOK || holder != NigeriaTreasuryName || !readonly || tok == "" {
		t.Fatalf("verify: %d holder %q readonly %v error %q", resp.StatusCode, holder, readonly, TestID(doc, "ngn-error"))
	}
	return url.Values{"form_token": {tok}, "bank_code": {NigeriaTreasuryBank}, "account_number": {NigeriaTreasuryNUBAN}, "holder": {holder}}
}

// PayoutReview walks the wizard to its review, the account made a trusted
// destination first, and returns the confirm form.
func PayoutReview(t testing.TB, env *Env, c *http.Client, country, bank, branch, account, amount string) (url.Values, *goquery.Document) {
	t.Helper()
	TrustDestination(t, env, store.DestBankAccount, account, bank)
	v := url.Values{"step": {"country"}, "country": {country}}
	PayoutStep(t, env, c, v, http.StatusOK)
	v.Set("step", "bank")
	v.Set("bank_id", bank)
	doc := PayoutStep(t, env, c, v, http.StatusOK)
	if branch != "" {
		if doc.Find(`#f-branch_id option[value="`+branch+`"]`).Length() != 1 {
			t.Fatalf("no branch %s offered", branch)
		}
		v.Set("step", "branch")
		v.Set("branch_id", branch)
		doc = PayoutStep(t, env, c, v, http.StatusOK)
	}
	if doc.Find("#f-account_number").Length() != 1 {
		t.Fatalf("not at the account step: %q", doc.Find("h1").Text())
	}
	v.Set("step", "account")
	v.Set("account_number", account)
	doc = PayoutStep(t, env, c, v, http.StatusOK)
	holder := TestID(doc, "payout-holder")
	if holder == "" || doc.Find("#f-amount").Length() != 1 {
		t.Fatalf("no holder shown before the amount")
	}
	v.Set("step", "amount")
	v.Set("holder", holder)
	v.Set("amount", amount)
	doc = PayoutStep(t, env, c, v, http.StatusOK)
	form := url.Values{}
	doc.Find(`[data-testid="payout-confirm-form"] input`).Each(func(_ int, s *goquery.Selection) {
		form.Set(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	if form.Get("form_token") == "" {
		t.Fatal("no confirm form")
	}
	return form, doc
}

// PayoutStep posts one step of the payout wizard.
func PayoutStep(t testing.TB, env *Env, c *http.Client, v url.Values, want int) *goquery.Document {
	t.Helper()
	resp := env.PostForm(c, "/money-out/payout", v)
	doc := Doc(t, resp)
	if resp.StatusCode != want {
		t.Fatalf("step %s: %d, want %d; %q", v.Get("step"), resp.StatusCode, want, TestID(doc, "payout-error"))
	}
	return doc
}

// SEPAForm opens the payout form, SEPAIBAN made a trusted destination
// first, and returns it filled.
func SEPAForm(t testing.TB, env *Env, c *http.Client) url.Values {
	t.Helper()
	TrustDestination(t, env, store.DestIBAN, SEPAIBANElectronic, "")
	resp := env.Get(c, "/money-out/sepa")
	doc := Doc(t, resp)
	tok, _ := doc.Find(`[data-testid="sepa-form"] input[name="form_token"]`).Attr("value")
	if resp.StatusCode != http.StatusOK || tok == "" {
		t.Fatalf("sepa form: %d, token %q, provider %q", resp.StatusCode, tok, TestID(doc, "sepa-provider-words"))
	}
	return url.Values{"form_token": {tok}, "amount": {"250.50"}, "iban": {SEPAIBAN}, "beneficiary": {"Lena Schmidt"}, "reference": {"Invoice 2026-11"}}
}

// SEPAReady gives the treasury an EURe wallet holding 1000 and an active
// EUR provider.
func SEPAReady(t testing.TB, env *Env) store.Wallet {
	t.Helper()
	w := FundedTreasuryWallet(t, env, "EURe", "1000.00")
	SetSandboxState(t, env, "active", "users", env.Demo.TreasuryUserID, "onboarding", "eurProviderStatus")
	return w
}
