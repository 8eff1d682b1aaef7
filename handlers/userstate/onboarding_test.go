package userstate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
)

func TestReadinessCellsFromReadings(t *testing.T) {
	reason := "Identity could not be verified"
	rail := func(m map[apiclient.Fiat]apiclient.RailStatus, eur string) *apiclient.OnboardingStatus {
		return &apiclient.OnboardingStatus{Currencies: m, EURProviderStatus: eur}
	}
	cases := []struct {
		name string
		rd   Readings
		want map[string]string // currency → state
	}{
		{"nothing read", Readings{}, map[string]string{}},
		{"only the rails read", Readings{Onboarding: rail(map[apiclient.Fiat]apiclient.RailStatus{"USD": {Status: "none"}}, "")},
			map[string]string{"USD": store.ReadyNotStarted, "NGN": store.ReadyNotStarted}},
		{"missing fields", Readings{USDReady: &apiclient.USDReadiness{Missing: []string{"identificationNumbers.ssn"}},
			KYCReady: &apiclient.KYCReadiness{Missing: []string{"bvn"}}},
			map[string]string{"USD": store.ReadyMissing, "NGN": store.ReadyMissing, "EUR": store.ReadyMissing}},
		{"ready", Readings{USDReady: &apiclient.USDReadiness{Ready: true}, KYCReady: &apiclient.KYCReadiness{CanActivate: true}},
			map[string]string{"USD": store.ReadyToActivate, "CAD": store.ReadyToActivate}},
		{"usd rejected beats readiness", Readings{VBA: &apiclient.VirtualAccount{Status: "rejected", Reason: &reason},
			USDReady: &apiclient.USDReadiness{Ready: true}}, map[string]string{"USD": store.ReadyRejected}},
		{"usd failed", Readings{VBA: &apiclient.VirtualAccount{Status: "failed"}}, map[string]string{"USD": store.ReadyFailed}},
		{"usd provisioning", Readings{VBA: &apiclient.VirtualAccount{Status: "provisioning"}}, map[string]string{"USD": store.ReadyOnboarding}},
		{"rails", Readings{Onboarding: rail(map[apiclient.Fiat]apiclient.RailStatus{
			"NGN": {Active: true, Status: "active"}, "MXN": {Status: "proposed"}, "CAD": {Status: "failed"}, "USD": {Status: "none"},
		}, "active"), KYCReady: &apiclient.KYCReadiness{CanActivate: true}},
			map[string]string{"NGN": store.ReadyActive, "MXN": store.ReadyOnboarding, "CAD": store.ReadyFailed, "EUR": store.ReadyActive, "USD": store.ReadyToActivate}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]store.ReadinessCell{}
			for _, c := range tc.rd.Cells(1) {
				got[c.Currency] = c
			}
			if len(tc.want) == 0 && len(got) != 0 {
				t.Fatalf("%d cells from no evidence: %+v", len(got), got)
			}
			for cur, want := range tc.want {
				if got[cur].State != want {
					t.Errorf("%s: %s, want %s", cur, got[cur].State, want)
				}
			}
			if c := got["USD"]; c.State == store.ReadyRejected && c.Detail != reason {
				t.Errorf("rejected reason %q", c.Detail)
			}
		})
	}
}

func TestSummaryKeepsNoIdentificationNumbers(t *testing.T) {
	p := &apiclient.KYCProfile{
		Profile:               &apiclient.KYCPersonalProfile{PersonalInfo: &apiclient.PersonalInfo{FirstName: "A", LastName: "B"}},
		IdentificationNumbers: []apiclient.IdentificationNumber{{Type: "ssn", Number: "123456789", IssuingCountryCode: "USA"}},
		BVN:                   "22222222222",
	}
	b := string(mustJSON(Summarise(p)))
	for _, secret := range []string{"123456789", "22222222222"} {
		if strings.Contains(b, secret) {
			t.Fatalf("summary keeps %s: %s", secret, b)
		}
	}
	if s := Summarise(p); !s.HasBVN || len(s.IDTypes) != 1 || s.IDTypes[0] != "ssn" || !(s.HasEmployment == false) {
		t.Fatalf("summary %+v", s)
	}
	if !Summarise(nil).Empty || !Summarise(&apiclient.KYCProfile{}).Empty {
		t.Fatal("an empty profile is not empty")
	}
}

// TestNothingAskedIsPositiveEvidenceOnly: the action-required flag is
// cleared from readings only when every read answered and nothing is
// missing, pending, failed or rejected.
func TestNothingAskedIsPositiveEvidenceOnly(t *testing.T) {
	ready := func() Readings {
		return Readings{Errs: map[string]error{},
			Onboarding: &apiclient.OnboardingStatus{Currencies: map[apiclient.Fiat]apiclient.RailStatus{"USD": {Active: true, Status: "active"}}},
			KYCReady:   &apiclient.KYCReadiness{CanActivate: true, Missing: []string{}},
			USDReady:   &apiclient.USDReadiness{Ready: true, Missing: []string{}},
		}
	}
	cases := []struct {
		name   string
		change func(rd *Readings)
		want   bool
	}{
		{"everything ready", func(*Readings) {}, true},
		{"no USD account yet (404)", func(rd *Readings) { rd.Errs[SnapVBAUSD] = fmt.Errorf("read: %w", apiclient.ErrNotFound) }, true},
		{"USD account unreadable", func(rd *Readings) { rd.Errs[SnapVBAUSD] = errors.New("upstream 500") }, false},
		{"KYC readiness unreadable", func(rd *Readings) { rd.KYCReady, rd.Errs[SnapKYCReadiness] = nil, errors.New("timeout") }, false},
		{"USD readiness unreadable", func(rd *Readings) { rd.USDReady, rd.Errs[SnapUSDReadiness] = nil, errors.New("timeout") }, false},
		{"onboarding unreadable", func(rd *Readings) { rd.Onboarding, rd.Errs[SnapOnboarding] = nil, errors.New("timeout") }, false},
		{"cannot activate", func(rd *Readings) { rd.KYCReady.CanActivate = false }, false},
		{"can activate yet lists a field", func(rd *Readings) { rd.KYCReady.Missing = []string{"documents.biometric"} }, false},
		{"USD not ready", func(rd *Readings) {
			rd.USDReady = &apiclient.USDReadiness{Missing: []string{"identificationNumbers.ssn"}}
		}, false},
		{"a rail waits on the employee", func(rd *Readings) {
			rd.Onboarding.Currencies["MXN"] = apiclient.RailStatus{Status: "bank_verification_required"}
		}, false},
		{"a rail failed", func(rd *Readings) { rd.Onboarding.Currencies["CAD"] = apiclient.RailStatus{Status: "failed"} }, false},
		{"USD account rejected", func(rd *Readings) { rd.VBA = &apiclient.VirtualAccount{Status: "rejected"} }, false},
		{"USD account still provisioning", func(rd *Readings) { rd.VBA = &apiclient.VirtualAccount{Status: "provisioning"} }, false},
		{"USD account active", func(rd *Readings) { rd.VBA = &apiclient.VirtualAccount{Status: "active"} }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rd := ready()
			tc.change(&rd)
			why, got := rd.NothingAsked(rd.Cells(1))
			if got != tc.want {
				t.Fatalf("nothingAsked = %v, want %v", got, tc.want)
			}
			if got && !strings.Contains(why, "nothing missing") {
				t.Fatalf("reason %q", why)
			}
		})
	}
}
