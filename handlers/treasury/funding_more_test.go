package treasury

import (
	"errors"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/views"
)

// The EUR and NGN offers follow the onboarding state the API reports:
// spec: "eurProviderStatus (value active when EUR onboarding is
// complete)"; NGN once its rail is active. No offer beside an account, or
// when the accounts could not be read; an unread state says so.
func TestFundingProvisionFollowsOnboarding(t *testing.T) {
	withEURe := treasury{wallets: []store.Wallet{{ID: "e", Currency: "EURe"}}}
	none := views.FundingBankRail{Currency: "EUR"}
	for _, tc := range []struct {
		name    string
		t       treasury
		rd      fundingReads
		rail    views.FundingBankRail
		eur     bool
		allowed bool
		missing string
		error   string
	}{
		{name: "EUR active", t: withEURe, rd: fundingReads{onboarding: &apiclient.OnboardingStatus{EURProviderStatus: "active"}}, rail: none, eur: true, allowed: true},
		{name: "EUR pending", t: withEURe, rd: fundingReads{onboarding: &apiclient.OnboardingStatus{EURProviderStatus: "pending"}}, rail: none, eur: true, missing: "waiting for the owner's authorization"},
		{name: "EUR without a EURe wallet", rd: fundingReads{onboarding: &apiclient.OnboardingStatus{EURProviderStatus: "none"}}, rail: none, eur: true, missing: "add a EURe wallet"},
		{name: "EUR account exists", t: withEURe, rd: fundingReads{onboarding: &apiclient.OnboardingStatus{EURProviderStatus: "active"}},
			rail: views.FundingBankRail{Currency: "EUR", Accounts: []views.FundingBankAccount{{Number: "DE00"}}}, eur: true},
		{name: "EUR accounts unread", t: withEURe, rd: fundingReads{onboarding: &apiclient.OnboardingStatus{EURProviderStatus: "active"}},
			rail: views.FundingBankRail{Currency: "EUR", Error: "did not answer"}, eur: true},
		{name: "onboarding unread", rd: fundingReads{onbErr: errors.New("timeout")}, rail: none, eur: true, error: "could not be read"},
		{name: "NGN active", rd: fundingReads{onboarding: &apiclient.OnboardingStatus{Currencies: map[apiclient.Fiat]apiclient.RailStatus{apiclient.NGN: {Status: "active", Active: true}}}}, rail: none, allowed: true},
		{name: "NGN none", rd: fundingReads{onboarding: &apiclient.OnboardingStatus{Currencies: map[apiclient.Fiat]apiclient.RailStatus{apiclient.NGN: {Status: "none"}}}}, rail: none, missing: "NGN onboarding is complete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ngnProvision(tc.rd, tc.rail)
			if tc.eur {
				p = eurProvision(tc.t, tc.rd, tc.rail)
			}
			if p.Allowed != tc.allowed || (p.Token != "") != tc.allowed || !strings.Contains(p.Missing, tc.missing) || (tc.missing == "" && p.Missing != "") ||
				!strings.Contains(p.Error, tc.error) || (tc.error == "" && p.Error != "") {
				t.Fatalf("%+v", p)
			}
			if (p.Action == "") != (len(tc.rail.Accounts) > 0 || tc.rail.Error != "") {
				t.Fatalf("action %q", p.Action)
			}
		})
	}
}

// The route form's checks that need no API: the rail names its token, ids
// are plain words.
func TestRouteWords(t *testing.T) {
	if c, ok := railToken("USD"); !ok || c != apiclient.USDB {
		t.Fatal("USD")
	}
	if c, ok := railToken("NGN"); !ok || c != apiclient.CNGN {
		t.Fatal("NGN")
	}
	if _, ok := railToken("EUR"); ok {
		t.Fatal("EUR is not a routable rail")
	}
	for s, want := range map[string]bool{"0f5f3f0e-1111-4a2b-9c3d-000000000001": true, "": false, "a b": false, "x'; --": false, strings.Repeat("a", 65): false} {
		if idWord(s) != want {
			t.Errorf("idWord(%q) = %v", s, !want)
		}
	}
}
