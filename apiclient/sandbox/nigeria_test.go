package sandbox

import (
	"strings"
	"testing"
)

func (e *env) ngnWithdrawalAccount(key, id string) string {
	e.t.Helper()
	r := e.want(e.call("POST", "/v1/users/"+id+"/bank-accounts/withdrawal-accounts/nigeria", key, map[string]any{
		"accountNumber": "0123456789", "bankCode": "058", "bankName": "Guaranty Trust Bank", "accountHolderName": "CHIOMA ADAEZE OKONKWO"}), 201)
	return r.data()["id"].(string)
}

// spec: Nigerian withdrawal steps 2 and 3: "registered holder name; 404 when
// no account matches"; "accountHolderName (exact name from step 2)";
// "record with id; get-or-create"; Limits: "NUBAN | 10 digits".
func TestNigeria_VerifyAndWithdrawalAccounts(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	banks := e.want(e.call("GET", "/v1/users/"+id+"/bank-accounts/nigerian-banks", keyA, nil), 200).list()
	if len(banks) < 10 || banks[0].(map[string]any)["code"] == "" {
		t.Fatalf("banks %v", banks)
	}
	verify := func(number, bank string) resp {
		return e.call("POST", "/v1/users/"+id+"/bank-accounts/verify-nigerian-account", keyA, map[string]any{"accountNumber": number, "bankCode": bank})
	}
	if r := e.want(verify("12345", "999"), 400); !strings.Contains(r.msg(), "10-digit NUBAN") || !strings.Contains(r.msg(), "bankCode") {
		t.Errorf("validation %s", r.raw)
	}
	e.want(verify("0123456788", "058"), 404)
	e.want(verify("0123456789", "044"), 404)
	if r := e.want(verify("0123456789", "058"), 200).data(); r["accountHolderName"] != "CHIOMA ADAEZE OKONKWO" {
		t.Errorf("holder %v", r)
	}
	create := func(holder string) resp {
		return e.call("POST", "/v1/users/"+id+"/bank-accounts/withdrawal-accounts/nigeria", keyA, map[string]any{
			"accountNumber": "0123456789", "bankCode": "058", "bankName": "Guaranty Trust Bank", "accountHolderName": holder})
	}
	e.want(create("Chioma Adaeze Okonkwo"), 400) // not the exact name
	first := e.want(create("CHIOMA ADAEZE OKONKWO"), 201).data()
	again := e.want(create("CHIOMA ADAEZE OKONKWO"), 200).data()
	if first["id"] != again["id"] {
		t.Errorf("get-or-create made two records: %v %v", first, again)
	}
}

// spec: "Source currency is CNGN (direct) or USDB (swapped to NGN first).
// The caller must be an active admin of the wallet."; bankAccountId is "the
// caller's account".
func TestNigeria_OfframpRules(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	ngn := e.wallet(keyA, id, "CNGN")
	usd := e.wallet(keyA, id, "USDB")
	cad := e.wallet(keyA, id, "CADC")
	e.deposit(ngn.id, "100000")
	e.deposit(usd.id, "100")
	e.deposit(cad.id, "100")
	acct := e.ngnWithdrawalAccount(keyA, id)
	off := func(caller, walletID, bank, amount string) resp {
		return e.call("POST", "/v1/users/"+caller+"/smart-wallets/"+walletID+"/offramp/nigeria", keyA, map[string]any{"bankAccountId": bank, "fromAmount": amount})
	}
	e.want(off(id, cad.id, acct, "10"), 400)
	e.want(off(id, ngn.id, acct, "0"), 400)
	e.want(off(id, ngn.id, "00000000-0000-4000-8000-000000000000", "10"), 404)
	// Someone else: not an admin of the wallet; another user's account.
	other := e.user(keyA)
	e.want(off(other, ngn.id, acct, "1000"), 403)
	// USDB is swapped to NGN first.
	r := e.want(off(id, usd.id, acct, "10"), 201).data()
	q := r["quote"].(map[string]any)
	if r["status"] != statusPendingApprovals || q["fromCurrency"] != "USDB" || q["toAmount"] != "15334.61" || q["swap"] != true {
		t.Fatalf("USDB offramp %v", r)
	}
	r = e.want(off(id, ngn.id, acct, "1000"), 201).data()
	if q := r["quote"].(map[string]any); q["toAmount"] != "950" || q["exchangeRate"] != "1" {
		t.Fatalf("CNGN offramp %v", r)
	}
}

// spec: "collected signatures reach requiredSignatures → submitted
// on-chain, then COMPLETED after execution settles (for the Nigerian
// offramp, also after the off-chain payout succeeds)".
func TestNigeria_OfframpCompletesOnlyAfterPayout(t *testing.T) {
	e := newEnv(t)
	sink := newSink(t)
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": sink.ts.URL, "partnerId": "11111111-1111-4111-8111-111111111111",
		"events": []string{"employee.withdrawal.failed", "employee.withdrawal.processing"}}), 201)
	id := e.user(keyA)
	ngn := e.wallet(keyA, id, "CNGN")
	e.deposit(ngn.id, "10000")
	acct := e.ngnWithdrawalAccount(keyA, id)
	p := e.want(e.call("POST", "/v1/users/"+id+"/smart-wallets/"+ngn.id+"/offramp/nigeria", keyA, map[string]any{"bankAccountId": acct, "fromAmount": "4000"}), 201).data()
	pid := p["proposalId"].(string)
	e.want(e.call("POST", e.proposalPath(id, pid, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, id, pid, ngn.key), 200)
	e.want(e.call("POST", "/_sandbox/rails/fail-next", "", map[string]any{"rail": "ngn-payout"}), 200)
	// With the clock: the chain settles first and the payout is in flight.
	e.s.mu.Lock()
	e.s.opts.SettleDelay = 30_000_000_000 // 30s
	e.s.mu.Unlock()
	e.advance(31_000_000_000)
	got := e.want(e.call("GET", e.proposalPath(id, pid, ""), keyA, nil), 200).data()
	if got["status"] != statusExecuting {
		t.Fatalf("after chain settlement: %v, want EXECUTING until the payout is done", got["status"])
	}
	if b := e.balance(keyA, id, ngn.id); b != "6000" {
		t.Fatalf("balance while paying out %s", b)
	}
	e.advance(31_000_000_000)
	got = e.want(e.call("GET", e.proposalPath(id, pid, ""), keyA, nil), 200).data()
	if got["status"] != statusFailed || !strings.Contains(got["failureReason"].(string), "payout failed") {
		t.Fatalf("after failed payout: %v", got)
	}
	if b := e.balance(keyA, id, ngn.id); b != "10000" {
		t.Fatalf("refund: balance %s", b)
	}
	if d := e.waitDelivery(keyA, "employee.withdrawal.failed"); d["status"] != "delivered" {
		t.Fatalf("failed delivery %v", d)
	}
	// spec: "FAILED | POST .../approve again | workflow restarts".
	e.want(e.call("POST", e.proposalPath(id, pid, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, id, pid, ngn.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if got = e.want(e.call("GET", e.proposalPath(id, pid, ""), keyA, nil), 200).data(); got["status"] != statusCompleted {
		t.Fatalf("after retry: %v", got)
	}
	if b := e.balance(keyA, id, ngn.id); b != "6000" {
		t.Fatalf("balance after payout %s", b)
	}
}
