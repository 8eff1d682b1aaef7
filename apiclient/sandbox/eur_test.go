package sandbox

import (
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
)

// spec: "POST /eu/kyc | { code, signature: 0x hex wallet-ownership
// signature }"; EUR SEPA through a signature request, to an IBAN
// (checksum validated).
func TestEUR_ProviderAuthorizationAndSEPA(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "EURe")
	e.kycLookups(keyA, id)
	e.kycUploadAll(keyA, id, "FRA")
	e.want(e.call("PATCH", kycPath(id, ""), keyA, p2GlobalProfile("FRA")), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/eu/kyc", keyA, map[string]any{"code": "c", "signature": "0x12"}), 400)
	e.want(e.call("GET", kycPath(id, "/readiness?currency=EUR"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	if r := e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-eur-provider", keyA, map[string]any{"eurWalletAddress": w.address}), 400); !strings.Contains(r.msg(), "eurWalletIndex") {
		t.Fatalf("index required: %s", r.raw)
	}
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-eur-provider", keyA, map[string]any{"eurWalletAddress": w.address, "eurWalletIndex": 0}), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/vba/eu", keyA, nil), 400) // provider not active yet
	other, _ := ethsig.GenerateKey()
	e.want(e.call("POST", "/v1/users/"+id+"/eu/kyc", keyA, map[string]any{"code": "abc", "signature": ethsig.SignMessage(other, []byte(euAuthorizationMessage("abc"))).Hex()}), 400)
	e.want(e.call("POST", "/v1/users/"+id+"/eu/kyc", keyA, map[string]any{"code": "abc", "signature": ethsig.SignMessage(w.key, []byte(euAuthorizationMessage("abc"))).Hex()}), 200)
	st := e.want(e.call("GET", "/v1/users/"+id+"/onboarding/status", keyA, nil), 200).data()
	if st["eurProviderStatus"] != "active" {
		t.Fatalf("status %v", st)
	}
	acct := e.want(e.call("POST", "/v1/users/"+id+"/vba/eu", keyA, nil), 201).data()["account"].(map[string]any)
	if !validIBAN(acct["iban"].(string)) {
		t.Fatalf("sandbox IBAN %v", acct)
	}
	e.deposit(w.id, "100")
	body := map[string]any{"smartWalletId": w.id, "amount": "40", "iban": "DE89370400440532013001", "beneficiaryName": "Max"}
	if r := e.want(e.call("POST", "/v1/users/"+id+"/eu/orders/prepare", keyA, body), 400); !strings.Contains(r.msg(), "iban") {
		t.Fatalf("bad checksum: %s", r.raw)
	}
	body["iban"] = "FR14 2004 1010 0505 0001 3M02 606"
	o := e.want(e.call("POST", "/v1/users/"+id+"/eu/orders/prepare", keyA, body), 201).data()
	sr := o["signatureRequest"].(map[string]any)
	h, _ := ethsig.ParseHash(sr["hashToSign"].(string))
	e.want(e.call("POST", "/v1/users/"+id+"/eu/orders/"+o["orderId"].(string)+"/complete", keyA, map[string]any{"signature": ethsig.Sign(other, h).Hex()}), 403)
	done := e.want(e.call("POST", "/v1/users/"+id+"/eu/orders/"+o["orderId"].(string)+"/complete", keyA, map[string]any{"signature": ethsig.Sign(w.key, h).Hex()}), 200).data()
	if done["status"] != "processing" || e.balance(keyA, id, w.id) != "60" {
		t.Fatalf("completed %v", done)
	}
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if got := e.want(e.call("GET", "/v1/users/"+id+"/eu/orders/"+o["orderId"].(string), keyA, nil), 200).data(); got["status"] != "completed" {
		t.Fatalf("after settle %v", got)
	}
}

// The sandbox and apiclient agree on which strings are IBANs (ISO 13616
// mod-97), so a payout the client lets through is one the sandbox accepts.
func FuzzIBANAgreesWithApiclient(f *testing.F) {
	for _, s := range []string{"DE89370400440532013000", "DE89 3704 0044 0532 0130 00", "DE89370400440532013001", "FR1420041010050500013M02606",
		"GB82WEST12345698765432", "GB82WEST1234569876543", "", "XX00", "de89370400440532013000", "NL91ABNA041716430O"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validIBAN(s), apiclient.IsIBAN(s); got != want {
			t.Fatalf("validIBAN(%q) = %v, apiclient.IsIBAN = %v", s, got, want)
		}
	})
}

// Every IBAN the sandbox issues passes its own and the client's check.
func TestEUR_SandboxIBANsAreValid(t *testing.T) {
	for i := 0; i < 50; i++ {
		iban := sandboxIBAN("DE", "50099999", digitsFrom("t"+string(rune('a'+i)), 10))
		if !validIBAN(iban) || !apiclient.IsIBAN(iban) {
			t.Fatalf("issued IBAN %s is not valid", iban)
		}
	}
}
