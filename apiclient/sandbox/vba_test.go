package sandbox

import (
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient/ethsig"
)

// usdReady runs a USA user through KYC and activation, up to start-usa.
func (e *env) usdReady(key string) (string, ownedWallet) {
	e.t.Helper()
	id := e.user(key)
	w := e.wallet(key, id, "USDB")
	e.kycLookups(key, id)
	e.kycUploadAll(key, id, "USA")
	p := p2GlobalProfile("USA")
	p["identificationNumbers"] = []any{map[string]any{"type": "ssn", "number": "123456789", "issuingCountryCode": "USA"}}
	e.want(e.call("PATCH", kycPath(id, ""), key, p), 200)
	e.want(e.call("GET", kycPath(id, "/readiness"), key, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), key, map[string]any{"identityLevelName": "id-and-liveness"}), 200)
	return id, w
}

func vbaPath(id string) string { return "/v1/users/" + id + "/vba/usd" }

// spec: States, USD virtual bank account: "none → provisioning (start-usa)
// → pending (workflow progress) → active (bank backfill)"; "failed |
// start-usa retry (safe) | provisioning"; "rejected | terminal; do not
// retry; reason populated"; Resources: "account ... populated only when
// status is active".
func TestVBA_USDStateMachine(t *testing.T) {
	e := newEnv(t)
	id, w := e.usdReady(keyA)
	if r := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data(); r["status"] != "none" || r["account"] != nil {
		t.Fatalf("before start: %v", r)
	}
	e.want(e.call("POST", "/_sandbox/rails/fail-next", "", map[string]any{"rail": "usd-vba"}), 200)
	start := func() map[string]any {
		return e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w.id}), 200).data()
	}
	first := start()
	if r := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data(); r["status"] != "provisioning" || r["account"] != nil {
		t.Fatalf("after start: %v", r)
	}
	e.advance(2 * time.Minute)
	if r := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data(); r["status"] != "failed" || r["account"] != nil {
		t.Fatalf("after injected failure: %v", r)
	}
	// The retry is safe and needs no new activation.
	retry := start()
	if retry["status"] != "provisioning" || retry["workflowId"] == first["workflowId"] {
		t.Fatalf("retry %v after %v", retry, first)
	}
	e.advance(2 * time.Minute)
	if r := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data(); r["status"] != "pending" || r["account"] != nil {
		t.Fatalf("pending: %v", r)
	}
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	r := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data()
	acct, _ := r["account"].(map[string]any)
	if r["status"] != "active" || acct == nil || acct["routingNumber"] == "" || acct["accountNumber"] == "" {
		t.Fatalf("active: %v", r)
	}
	if _, ok := acct["depositMessage"]; !ok {
		t.Fatalf("depositMessage must be present (null or the reference): %v", acct)
	}
	// Idempotent once active.
	if again := start(); again["workflowId"] != retry["workflowId"] || again["status"] != "active" {
		t.Fatalf("start-usa when active: %v", again)
	}

	// Rejected is terminal.
	id2, w2 := e.usdReady(keyA)
	e.want(e.call("POST", "/v1/users/"+id2+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w2.id}), 200)
	e.want(e.call("PUT", "/_sandbox/users/"+id2+"/vba/usd", "", map[string]any{"status": "rejected", "reason": "Sanctions screening hit"}), 200)
	r = e.want(e.call("GET", vbaPath(id2), keyA, nil), 200).data()
	if r["status"] != "rejected" || r["reason"] != "Sanctions screening hit" || r["account"] != nil {
		t.Fatalf("rejected: %v", r)
	}
	e.want(e.call("POST", "/v1/users/"+id2+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w2.id}), 409)
}

// spec: "start-usa gated on usd-readiness".
func TestVBA_StartUSAGatedOnUSDReadiness(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "USDB")
	r := e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w.id}), 400)
	if !strings.Contains(r.msg(), "usd-readiness") {
		t.Fatalf("start-usa without KYC: %s", r.raw)
	}
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{}), 400)
}

// spec: onramp routing "the account must belong to the caller, who must be
// an active admin of the wallet".
func TestVBA_OnrampRoutingOwnershipAndAdminRule(t *testing.T) {
	e := newEnv(t)
	id, w := e.usdReady(keyA)
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w.id}), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	treasury := e.user(keyA)
	tw := e.wallet(keyA, treasury, "USDB")
	route := func(caller, walletID string) resp {
		return e.call("POST", "/v1/users/"+caller+"/smart-wallets/"+walletID+"/onramp/vba/usd", keyA, nil)
	}
	// Not an admin of the treasury wallet.
	e.want(route(id, tw.id), 403)
	// A caller without an issued account.
	e.want(route(treasury, tw.id), 404)
	// Made an admin of the treasury's policy: allowed.
	e.want(e.call("PATCH", "/v1/users/"+treasury+"/smart-wallets/account/approval-policy", keyA, map[string]any{"mode": "ANY_ADMIN", "admins": []string{id}}), 200)
	if r := e.want(route(id, tw.id), 200); r.body["success"] != true {
		t.Fatalf("route %s", r.raw)
	}
	acct := e.want(e.call("GET", vbaPath(id), keyA, nil), 200).data()["account"].(map[string]any)
	ref, _ := acct["depositMessage"].(string)
	e.want(e.call("POST", "/_sandbox/users/"+id+"/bank-deposits", "", map[string]any{"currency": "USD", "amount": "10.50", "reference": ref}), 200)
	if b := e.balance(keyA, treasury, tw.id); b != "10.5" {
		t.Fatalf("routed deposit: treasury balance %s", b)
	}
	e.want(e.call("DELETE", "/v1/users/"+id+"/smart-wallets/"+tw.id+"/onramp/vba/usd", keyA, nil), 200)
	e.want(e.call("POST", "/_sandbox/users/"+id+"/bank-deposits", "", map[string]any{"currency": "USD", "amount": "1", "reference": ref}), 200)
	if b := e.balance(keyA, id, w.id); b != "1" {
		t.Fatalf("unrouted deposit: own balance %s", b)
	}
	// Another partner's wallet is unknown.
	other := e.user(keyB)
	ow := e.wallet(keyB, other, "USDB")
	e.want(route(id, ow.id), 404)
}

// spec: "MXN returns { accounts: [...] }; appears only once Mexico KYC is
// approved"; Resources: "clabe (18 digits)".
func TestVBA_DepositAccountsMXNAfterApprovalOnly(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.wallet(keyA, id, "MEXe")
	e.kycLookups(keyA, id)
	e.kycUploadAll(keyA, id, "MEX")
	p := p2GlobalProfile("MEX")
	p["identificationNumbers"] = []any{map[string]any{"type": "rfc", "number": "GODE561231GR8", "issuingCountryCode": "MEX"}}
	e.want(e.call("PATCH", kycPath(id, ""), keyA, p), 200)
	e.want(e.call("GET", kycPath(id, "/readiness?currency=MXN"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-and-liveness"}), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/latam/mx/kyc/activate", keyA, nil), 200)
	list := func() []any {
		return e.want(e.call("GET", "/v1/users/"+id+"/bank-accounts/deposit-accounts/MXN", keyA, nil), 200).data()["accounts"].([]any)
	}
	if l := list(); len(l) != 0 {
		t.Fatalf("before approval: %v", l)
	}
	e.want(e.call("PUT", "/_sandbox/users/"+id+"/mx/kyc", "", map[string]any{"status": "approved"}), 200)
	l := list()
	if len(l) != 1 {
		t.Fatalf("after approval: %v", l)
	}
	a := l[0].(map[string]any)
	if c := a["clabe"].(string); !validCLABE(c) || a["targetCurrency"] != "MEXe" || a["status"] != "active" {
		t.Fatalf("account %v", a)
	}
	all := e.want(e.call("GET", "/v1/users/"+id+"/bank-accounts/deposit-accounts", keyA, nil), 200).data()
	if len(all["mexicanAccounts"].([]any)) != 1 || len(all["accounts"].([]any)) != 0 {
		t.Fatalf("all deposit accounts %v", all)
	}
}

// spec: "For Nigeria the NGN wallet is mirrored onto the USD fields
// server-side. The NGN start issues the virtual account."
func TestVBA_StartNigeriaMirrorsAndIssues(t *testing.T) {
	e := newEnv(t)
	sink := newSink(t)
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": sink.ts.URL, "partnerId": "11111111-1111-4111-8111-111111111111",
		"events": []string{"employee.vba.registered", "onboarding.completed"}}), 201)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "CNGN")
	e.kycLookups(keyA, id)
	e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{
		"profile": map[string]any{"personalInfo": map[string]any{"firstName": "Ngozi", "lastName": "Eze", "phoneNumber": "08031234567", "dateOfBirth": "1990-01-01"}},
		"address": map[string]any{"streetLine1": "1 Marina", "city": "Lagos", "state": "Lagos", "postalCode": "100001", "countryCode": "NGA"},
		"bvn":     "22222222222",
	}), 200)
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	start := map[string]any{"bvn": "22222222222", "ngnWalletAddress": w.address, "ngnWalletIndex": 0}
	r := e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-nigeria", keyA, start), 400)
	if !strings.Contains(r.msg(), "activation is per onboarding") {
		t.Fatalf("start before activation: %s", r.raw)
	}
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, nil), 200)
	bad := e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-nigeria", keyA, map[string]any{"bvn": "123", "ngnWalletAddress": "0x12", "ngnWalletIndex": "0"}), 400)
	_ = bad
	bad = e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-nigeria", keyA, map[string]any{"bvn": "123", "ngnWalletAddress": "0x12", "ngnWalletIndex": 3}), 400)
	if m := bad.msg(); !strings.Contains(m, "BVN must be exactly 11 digits") || !strings.Contains(m, "ngnWalletAddress") {
		t.Fatalf("validation %s", bad.raw)
	}
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-nigeria", keyA, start), 201)
	st := e.want(e.call("GET", "/v1/users/"+id+"/onboarding/status", keyA, nil), 200).data()
	if st["usdWalletAddress"] != w.address || st["currencies"].(map[string]any)["NGN"].(map[string]any)["active"] != true {
		t.Fatalf("status %v", st)
	}
	acct := e.want(e.call("POST", "/v1/users/"+id+"/vba/ngn", keyA, nil), 200).data()
	if acct["status"] != "active" || acct["account"] == nil {
		t.Fatalf("NGN account %v", acct)
	}
	if d := e.waitDelivery(keyA, "employee.vba.registered"); d["status"] != "delivered" {
		t.Fatalf("vba registered %v", d)
	}
	// Mirrored: start-usa may use the NGN wallet once USD readiness is met.
	_ = ethsig.Address{}
}
