package sandbox

import (
	"strings"
	"testing"
	"time"
)

// spec: "Nigeria stage 2 is triggered by POST /kyc/activate, then start-usa
// gated on usd-readiness"; "For Nigeria the NGN wallet is mirrored onto the
// USD fields server-side"; NGA USD "sourceOfFunds (not salary when
// unemployed or a student)".
func TestOnboarding_NigeriaStageTwoUSD(t *testing.T) {
	e := newEnv(t)
	sink := newSink(t)
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": sink.ts.URL, "partnerId": "11111111-1111-4111-8111-111111111111",
		"events": []string{"onboarding.failed", "onboarding.completed"}}), 201)
	id := e.user(keyA)
	ngn := e.wallet(keyA, id, "CNGN")
	e.kycLookups(keyA, id)
	nga := map[string]any{
		"profile": map[string]any{"personalInfo": map[string]any{"firstName": "Ngozi", "lastName": "Eze", "phoneNumber": "08031234567", "dateOfBirth": "1990-01-01"}},
		"address": map[string]any{"streetLine1": "1 Marina", "city": "Lagos", "state": "Lagos", "postalCode": "100001", "countryCode": "NGA"},
		"bvn":     "22222222222",
	}
	e.want(e.call("PATCH", kycPath(id, ""), keyA, nga), 200)
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, nil), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-nigeria", keyA, map[string]any{"bvn": "22222222222", "ngnWalletAddress": ngn.address, "ngnWalletIndex": 0}), 201)

	// Stage 2: enhanced due diligence for USD.
	e.kycUploadAll(keyA, id, "NGA")
	e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{"employment": map[string]any{"employmentStatus": "student"}, "sourceOfFunds": "salary"}), 200)
	ur := e.want(e.call("GET", kycPath(id, "/usd-readiness"), keyA, nil), 200).data()
	if got := strings.Join(anyStrings(ur["missing"]), ","); got != "employment.occupationCode,sourceOfFunds,estimatedMonthlyVolume" {
		t.Fatalf("usd-readiness missing %s", got)
	}
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": ngn.id}), 400)
	e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{"employment": map[string]any{"employmentStatus": "student", "occupationCode": "99-0001"},
		"sourceOfFunds": "family_support", "estimatedMonthlyVolume": 300}), 200)
	if ur := e.want(e.call("GET", kycPath(id, "/usd-readiness"), keyA, nil), 200).data(); ur["ready"] != true {
		t.Fatalf("usd-readiness %v", ur)
	}
	e.want(e.call("GET", kycPath(id, "/readiness?currency=USD"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-and-liveness"}), 200)
	// The mirrored NGN wallet carries the USD onboarding.
	e.want(e.call("POST", "/_sandbox/rails/fail-next", "", map[string]any{"rail": "usd-vba"}), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": ngn.id}), 200)
	e.advance(2 * time.Minute)
	if d := e.waitDelivery(keyA, "onboarding.failed"); d["status"] != "delivered" {
		t.Fatalf("onboarding.failed %v", d)
	}
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": ngn.id}), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	acct := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data()["account"].(map[string]any)
	ref, _ := acct["depositMessage"].(string)
	// USD arriving for a Nigerian without a USDB wallet lands as CNGN.
	e.want(e.call("POST", "/_sandbox/users/"+id+"/bank-deposits", "", map[string]any{"currency": "USD", "amount": "13", "reference": ref}), 200)
	if b := e.balance(keyA, id, ngn.id); b != "20000" {
		t.Fatalf("CNGN after a 13 USD deposit: %s", b)
	}
}

// The rails' state is part of the exported state: an import restores it.
func TestOnboarding_RailStateExportImport(t *testing.T) {
	e := newEnv(t)
	id, w := e.usdReady(keyA)
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w.id}), 200)
	exported := e.want(e.call("GET", "/_sandbox/state", "", nil), 200).raw
	e.want(e.call("POST", "/_sandbox/reset", "", nil), 200)
	e.want(e.call("GET", vbaPath(id), keyA, nil), 404)
	e.want(e.call("PUT", "/_sandbox/state", "", exported), 200)
	if r := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data(); r["status"] != "provisioning" {
		t.Fatalf("after import %v", r)
	}
	if r := e.want(e.call("GET", kycPath(id, ""), keyA, nil), 200).data(); r["status"] != "approved" {
		t.Fatalf("KYC after import %v", r)
	}
}
