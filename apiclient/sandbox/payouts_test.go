package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"partneradmin/apiclient/ethsig"
)

// signWorkflow signs a signature request raw and submits it.
func (e *env) submitWorkflow(key, userID string, sr map[string]any, k *secp256k1.PrivateKey) resp {
	e.t.Helper()
	h, err := ethsig.ParseHash(sr["hashToSign"].(string))
	if err != nil {
		e.t.Fatal(err)
	}
	return e.call("POST", "/v1/users/"+userID+"/wallets/submit-signature", key, map[string]any{"workflowId": sr["workflowId"], "signature": ethsig.Sign(k, h).Hex()})
}

func payoutBody(walletID string, amount any) map[string]any {
	return map[string]any{
		"sourceSmartWalletId": walletID, "amount": amount, "country": "GBR", "currency": "GBP",
		"bankDetails": map[string]any{"bankId": "gbr-monzo", "accountNumber": "12345678", "accountHolderName": "Ada Lovelace"},
	}
}

// spec: Bank payout rail: "amount | required, string in USDB minor units
// (not a decimal amount)"; "Response: a signature request plus a quote;
// complete it through POST /wallets/submit-signature"; signatures are
// checked as for proposals.
func TestPayouts_MinorUnitsSignatureRequestAndChecks(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "USDB")
	e.deposit(w.id, "500")
	for _, bad := range []any{"10.50", 1050, "-5", "0"} {
		r := e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, payoutBody(w.id, bad)), 400)
		if !strings.Contains(r.msg(), "minor units") {
			t.Errorf("amount %v: %s", bad, r.raw)
		}
	}
	r := e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, map[string]any{"amount": "100", "country": "US", "currency": "USDX",
		"bankDetails": map[string]any{}, "note": strings.Repeat("n", 501)}), 400)
	for _, f := range []string{"sourceSmartWalletId", "country", "currency", "bankDetails.bankId", "bankDetails.accountNumber", "bankDetails.accountHolderName", "note"} {
		if !strings.Contains(r.msg(), f) {
			t.Errorf("no message about %s: %s", f, r.raw)
		}
	}
	// A non-USDB source is refused.
	ew := e.wallet(keyA, id, "EURe")
	e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, payoutBody(ew.id, "100")), 400)

	po := e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, payoutBody(w.id, "10050")), 201).data()
	sr := po["signatureRequest"].(map[string]any)
	q := po["quote"].(map[string]any)
	if q["sourceAmount"] != "100.50" || q["feeAmount"] != "1.00" || sr["workflowId"] == "" || sr["walletIndex"] != float64(0) {
		t.Fatalf("payout %v", po)
	}
	if _, err := time.Parse(time.RFC3339, sr["deadline"].(string)); err != nil {
		t.Fatalf("deadline %v", sr["deadline"])
	}
	sub := func(sig string) resp {
		return e.call("POST", "/v1/users/"+id+"/wallets/submit-signature", keyA, map[string]any{"workflowId": sr["workflowId"], "signature": sig})
	}
	h, _ := ethsig.ParseHash(sr["hashToSign"].(string))
	good := ethsig.Sign(w.key, h)
	// spec: "500 | Invalid yParityOrV | v is 0 or 1".
	v01 := good
	v01[64] -= 27
	if r := e.want(sub(v01.Hex()), 500); r.body["message"] != msgInvalidV {
		t.Errorf("v=0/1: %s", r.raw)
	}
	// spec: "500 | Point is not on curve | ... wrong length".
	if r := e.want(sub(good.Hex()[:100]), 500); r.body["message"] != msgNotOnCurve {
		t.Errorf("short: %s", r.raw)
	}
	// A message-signing method recovers to another address: not authorised.
	e.want(sub(ethsig.SignMessage(w.key, h[:]).Hex()), 403)
	other, _ := ethsig.GenerateKey()
	e.want(sub(ethsig.Sign(other, h).Hex()), 403)
	if b := e.balance(keyA, id, w.id); b != "500" {
		t.Fatalf("balance moved before a valid signature: %s", b)
	}
	if r := e.want(sub(good.Hex()), 200).data(); r["status"] != "submitted" {
		t.Fatalf("submit %v", r)
	}
	if b := e.balance(keyA, id, w.id); b != "399.5" {
		t.Fatalf("balance after payout %s", b)
	}
	e.want(sub(good.Hex()), 409) // once only
	// Another user cannot complete it.
	id2 := e.user(keyA)
	e.want(e.call("POST", "/v1/users/"+id2+"/wallets/submit-signature", keyA, map[string]any{"workflowId": sr["workflowId"], "signature": good.Hex()}), 404)
}

// spec: "Signing deadline: a signature after deadline is refused."
func TestPayouts_DeadlineExceeded(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "USDB")
	e.deposit(w.id, "50")
	sr := e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, payoutBody(w.id, "2000")), 201).data()["signatureRequest"].(map[string]any)
	e.advance(11 * time.Minute)
	r := e.want(e.submitWorkflow(keyA, id, sr, w.key), 400)
	if !strings.Contains(r.msg(), "deadline") {
		t.Fatalf("late signature: %s", r.raw)
	}
}

// spec: "GET /payouts/bank-branches?bankId= | empty list means no branch
// needed"; banks by ISO alpha-3.
func TestPayouts_CountriesBanksBranchesValidation(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	cs := e.want(e.call("GET", "/v1/users/"+id+"/payouts/countries", keyA, nil), 200).list()
	for _, c := range cs {
		if c.(map[string]any)["code"] == "USA" {
			t.Error("USA listed: spec \"USD has no bank payout rail\"")
		}
	}
	e.want(e.call("GET", "/v1/users/"+id+"/payouts/banks?country=KE", keyA, nil), 400)
	if bs := e.want(e.call("GET", "/v1/users/"+id+"/payouts/banks?country=KEN", keyA, nil), 200).list(); len(bs) == 0 {
		t.Fatal("no Kenyan banks")
	}
	if br := e.want(e.call("GET", "/v1/users/"+id+"/payouts/bank-branches?bankId=gbr-monzo", keyA, nil), 200); string(br.raw) != "{\"data\":[]}\n" {
		t.Errorf("branches of a bank without branches: %s", br.raw)
	}
	if br := e.want(e.call("GET", "/v1/users/"+id+"/payouts/bank-branches?bankId=ken-equity", keyA, nil), 200).list(); len(br) == 0 {
		t.Error("Kenyan bank without branches")
	}
	v := e.want(e.call("POST", "/v1/users/"+id+"/payouts/validate-account", keyA, map[string]any{"country": "GBR", "currency": "GBP", "bankId": "gbr-monzo", "accountNumber": "12340000"}), 200).data()
	if v["valid"] != false || v["message"] == "" {
		t.Errorf("unknown account %v", v)
	}
	v = e.want(e.call("POST", "/v1/users/"+id+"/payouts/validate-account", keyA, map[string]any{"country": "GBR", "currency": "GBP", "bankId": "gbr-monzo", "accountNumber": "12345678"}), 200).data()
	if v["valid"] != true || v["accountHolderName"] == "" {
		t.Errorf("valid account %v", v)
	}
	// A bank with branches needs one on the payout.
	w := e.wallet(keyA, id, "USDB")
	e.deposit(w.id, "50")
	body := payoutBody(w.id, "1000")
	body["country"], body["currency"] = "KEN", "KES"
	body["bankDetails"] = map[string]any{"bankId": "ken-equity", "accountNumber": "1234567890", "accountHolderName": "W K"}
	if r := e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, body), 400); !strings.Contains(r.msg(), "branchId") {
		t.Errorf("missing branch: %s", r.raw)
	}
}

// A rail failure made through the control API refunds and fires
// employee.withdrawal.failed.
func TestPayouts_InjectedFailureRefunds(t *testing.T) {
	e := newEnv(t)
	sink := newSink(t)
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": sink.ts.URL, "partnerId": "11111111-1111-4111-8111-111111111111",
		"events": []string{"employee.withdrawal.failed"}}), 201)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "USDB")
	e.deposit(w.id, "50")
	sr := e.want(e.call("POST", "/v1/users/"+id+"/payouts", keyA, payoutBody(w.id, "2000")), 201).data()["signatureRequest"].(map[string]any)
	e.want(e.submitWorkflow(keyA, id, sr, w.key), 200)
	e.want(e.call("POST", "/_sandbox/rails/fail-next", "", map[string]any{"rail": "payout"}), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if b := e.balance(keyA, id, w.id); b != "50" {
		t.Fatalf("refund: balance %s", b)
	}
	if d := e.waitDelivery(keyA, "employee.withdrawal.failed"); d["status"] != "delivered" {
		t.Fatalf("delivery %v", d)
	}
}
