package moneytest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The bank payout and the Nigerian offramp read a typed amount as every
// other money form does (handlers.ParseAmount): the same words for the
// same mistake, next to the amount, with what was typed kept and nothing
// sent.
func TestMoneyOutPayoutAndNigeriaAmountWordsAreTheOtherFormsWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	cases := []struct{ amount, want string }{
		{"1,50", "use a point for decimals (1.50)"},
		{strings.Repeat("9", 41), "at most 40 characters"},
		{"10.005", "(10.005 has 3)"},
	}
	payouts := env.Sandbox.RequestCount("POST", webtest.PayoutRoute)
	webtest.TrustDestination(t, env, store.DestBankAccount, "12345678", "gbr-barclays")
	for _, tc := range cases {
		v := url.Values{"step": {"amount"}, "country": {"GBR"}, "bank_id": {"gbr-barclays"}, "account_number": {"12345678"},
			"holder": {"x"}, "amount": {tc.amount}}
		doc := webtest.PayoutStep(t, env, c, v, http.StatusUnprocessableEntity)
		if got := webtest.TestID(doc, "f-amount-error"); !strings.Contains(got, tc.want) {
			t.Errorf("payout %q: %q, want %q", tc.amount, got, tc.want)
		}
		if got := doc.Find("#f-amount").AttrOr("value", ""); got != tc.amount {
			t.Errorf("payout %q: typed amount not kept: %q", tc.amount, got)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.PayoutRoute); n != payouts {
		t.Fatalf("a refused amount was sent: %d payouts", n-payouts)
	}
	for _, tc := range cases {
		form := webtest.NigeriaAmountStep(t, env, c)
		form.Set("wallet_id", usd)
		form.Set("amount", tc.amount)
		resp := env.PostForm(c, "/money-out/nigeria/offramp", form)
		doc := webtest.Doc(t, resp)
		if got := webtest.TestID(doc, "f-amount-error"); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, tc.want) {
			t.Errorf("nigeria %q: %d %q, want %q", tc.amount, resp.StatusCode, got, tc.want)
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.NigeriaOfframpRoute); n != 0 {
		t.Fatalf("a refused amount was sent: %d offramps", n)
	}
}

// An amount too large to count in cents is more than the wallet holds, and
// is told so; not that it has too many decimal places (it has none).
func TestMoneyOutPayoutHugeAmountIsMoreThanTheWalletHolds(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	huge := strings.Repeat("9", 32)
	webtest.TrustDestination(t, env, store.DestBankAccount, "12345678", "gbr-barclays")
	v := url.Values{"step": {"amount"}, "country": {"GBR"}, "bank_id": {"gbr-barclays"}, "account_number": {"12345678"},
		"holder": {"x"}, "amount": {huge}}
	doc := webtest.PayoutStep(t, env, c, v, http.StatusUnprocessableEntity)
	if got := webtest.TestID(doc, "f-amount-error"); !strings.Contains(got, "More than the USDB wallet holds now") {
		t.Fatalf("huge amount: %q", got)
	}
	if got := doc.Find("#f-amount").AttrOr("value", ""); got != huge {
		t.Fatalf("typed amount not kept: %q", got)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.PayoutRoute); n != 0 {
		t.Fatalf("%d payouts sent", n)
	}
}
