package sandbox

import (
	"strings"
	"testing"
)

// spec: "GET /v1/deposit/supported-assets | not user-scoped"; "POST
// /deposit/wallet | response { address, chain, currency }"; crypto
// withdrawal "returns a signature request".
func TestCrypto_AssetsDepositAndWithdrawal(t *testing.T) {
	e := newEnv(t)
	assets := e.want(e.call("GET", "/v1/deposit/supported-assets", keyA, nil), 200).list()
	named := map[string]bool{}
	for _, a := range assets {
		named[a.(map[string]any)["currency"].(string)] = true
	}
	for _, c := range []string{"USDC", "USDT", "USDB", "DAI", "EURC", "PYUSD", "USDP"} {
		if !named[c] {
			t.Errorf("%s not in supported assets", c)
		}
	}
	e.want(e.call("GET", "/v1/deposit/supported-assets", "", nil), 401)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "USDB")
	e.want(e.call("POST", "/v1/users/"+id+"/deposit/wallet", keyA, map[string]any{"chain": "tron", "currency": "USDC"}), 400)
	dw := e.want(e.call("POST", "/v1/users/"+id+"/deposit/wallet", keyA, map[string]any{"chain": "base", "currency": "USDC"}), 200).data()
	if !strings.HasPrefix(dw["address"].(string), "0x") || dw["chain"] != "base" || dw["currency"] != "USDC" {
		t.Fatalf("deposit wallet %v", dw)
	}
	e.want(e.call("POST", "/_sandbox/crypto/deposits", "", map[string]any{"address": dw["address"], "currency": "USDC", "amount": "25"}), 200)
	if b := e.balance(keyA, id, w.id); b != "25" {
		t.Fatalf("after crypto deposit %s", b)
	}
	sup := e.want(e.call("GET", "/v1/users/"+id+"/withdrawal/smart-wallet/crypto/supported/usdb", keyA, nil), 200).data()
	if sup["currency"] != "USDB" || len(sup["routes"].([]any)) == 0 {
		t.Fatalf("support %v", sup)
	}
	body := map[string]any{"sourceSmartWalletId": w.id, "destinationChain": "polygon", "destinationCurrency": "DAI", "destinationAddress": "0x000000000000000000000000000000000000dEaD"}
	e.want(e.call("POST", "/v1/users/"+id+"/withdrawal/smart-wallet/crypto", keyA, body), 400)
	body["destinationCurrency"] = "USDC"
	out := e.want(e.call("POST", "/v1/users/"+id+"/withdrawal/smart-wallet/crypto", keyA, body), 201).data()
	if out["amount"] != "25" || out["signatureRequest"] == nil {
		t.Fatalf("withdrawal %v", out)
	}
	e.want(e.submitWorkflow(keyA, id, out["signatureRequest"].(map[string]any), w.key), 200)
	if b := e.balance(keyA, id, w.id); b != "0" {
		t.Fatalf("after withdrawal %s", b)
	}
	// The alternative offramp has its own, narrower check.
	if off := e.want(e.call("GET", "/v1/users/"+id+"/wallets/crypto-offramp/supported/USDB", keyA, nil), 200).data(); len(off["routes"].([]any)) >= len(sup["routes"].([]any)) {
		t.Errorf("offramp routes %v", off)
	}
}
