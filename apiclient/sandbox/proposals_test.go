package sandbox

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/apiclient/ethsig"
)

// spec: "Create-managed rejects when the owner-proof signature does not come
// from the address in userOwnerAddress."
func TestCreateManaged_OwnerProofMustRecoverToOwnerAndBeFreshAndUnused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	k, _ := ethsig.GenerateKey()
	other, _ := ethsig.GenerateKey()
	owner := ethsig.KeyAddress(k).Hex()
	challenge := func() map[string]any {
		return e.want(e.call("POST", "/v1/users/"+u+"/smart-wallets/owner-proof-challenges", keyA,
			map[string]any{"currency": "CNGN", "userOwnerAddress": owner}), 201).data()
	}
	create := func(ch map[string]any, sig ethsig.Signature) resp {
		return e.call("POST", "/v1/users/"+u+"/smart-wallets/create-managed", keyA, map[string]any{
			"currency": "CNGN", "userOwnerAddress": owner, "ownerProofChallengeId": ch["challengeId"], "ownerProofSignature": sig.Hex(),
		})
	}
	ch := challenge()
	if ch["message"] != ch["eip191Message"] || ch["message"] == "" {
		t.Fatalf("challenge %v", ch)
	}
	// Signed by another key.
	r := e.want(create(ch, ethsig.SignMessage(other, []byte(ch["message"].(string)))), 400)
	if !strings.Contains(r.msg(), "does not come from userOwnerAddress") {
		t.Errorf("wrong signer: %s", r.raw)
	}
	// Signed raw, without the signed-message prefix.
	r = e.want(create(ch, ethsig.Sign(k, ethsig.Keccak256([]byte(ch["message"].(string))))), 400)
	if !strings.Contains(r.msg(), "does not come from userOwnerAddress") {
		t.Errorf("no prefix: %s", r.raw)
	}
	good := ethsig.SignMessage(k, []byte(ch["message"].(string)))
	r = e.want(create(ch, good), 201)
	w := r.data()
	if w["userOwnerAddress"] != owner || w["currency"] != "CNGN" || w["displayCurrency"] != "NGN" || w["legacy"] != false || w["balance"] != "0" {
		t.Errorf("wallet %s", r.raw)
	}
	// Reused challenge.
	r = e.want(create(ch, good), 400)
	if !strings.Contains(r.msg(), "already been used") {
		t.Errorf("reuse: %s", r.raw)
	}
	// Expired challenge.
	ch2 := challenge()
	e.advance(11 * time.Minute)
	r = e.want(create(ch2, ethsig.SignMessage(k, []byte(ch2["message"].(string)))), 400)
	if !strings.Contains(r.msg(), "expired") {
		t.Errorf("expired: %s", r.raw)
	}
	// Listing reports the display currency; balances are decimal strings.
	list := e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/account/wallets", keyA, nil), 200).list()
	if len(list) != 1 || list[0].(map[string]any)["displayCurrency"] != "NGN" {
		t.Errorf("wallets %v", list)
	}
	e.deposit(w["id"].(string), "1000.25")
	bal := e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/account/balances", keyA, nil), 200).list()
	if b := bal[0].(map[string]any); b["balance"] != "1000.25" || b["currency"] != "CNGN" || b["smartWalletId"] != w["id"] {
		t.Errorf("balances %v", bal)
	}
	cur := e.want(e.call("GET", "/v1/smart-wallets/supported-currencies", keyA, nil), 200).list()
	if len(cur) != 6 || cur[3] != "EURe" {
		t.Errorf("currencies %v", cur)
	}
}

// The whole journey of the "Done when": users, owner proof, wallets,
// deposit, propose, approve, sign, settle, balances move.
func TestTransfer_FullLifecycleMovesBalancesWithDecimals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.user(keyA), e.user(keyA)
	wa, wb := e.wallet(keyA, alice, "USDB"), e.wallet(keyA, bob, "USDB")
	e.deposit(wa.id, "100.10")
	p := e.propose(keyA, alice, wa.id, map[string]any{"type": "TRANSFER", "toUserId": bob, "amount": "0.30", "description": "lunch"})
	id := p["id"].(string)
	if p["status"] != "PENDING_APPROVALS" || p["requiredSignatures"] != 1.0 || p["toUserId"] != bob || p["description"] != "lunch" {
		t.Fatalf("proposal %v", p)
	}
	// spec: "Before that it returns 404"
	if r := e.want(e.call("GET", e.proposalPath(alice, id, "sign-payload"), keyA, nil), 404); r.body["message"] != msgItemNotFound {
		t.Errorf("sign-payload early: %s", r.raw)
	}
	r := e.want(e.call("POST", e.proposalPath(alice, id, "approve"), keyA, nil), 200)
	if r.data()["status"] != "PENDING_SIGNATURES" {
		t.Fatalf("approve %s", r.raw)
	}
	sp := e.want(e.call("GET", e.proposalPath(alice, id, "sign-payload"), keyA, nil), 200).data()
	if sp["method"] != "evm" || sp["hashToSign"] != sp["payload"] || sp["walletIndex"] != 0.0 || sp["proposalId"] != id {
		t.Errorf("payload %v", sp)
	}
	// spec: "Exactly one of userOpHash and safeTxHash is set."
	if (sp["userOpHash"] == nil) == (sp["safeTxHash"] == nil) {
		t.Errorf("userOpHash %v safeTxHash %v", sp["userOpHash"], sp["safeTxHash"])
	}
	if _, err := time.Parse(time.RFC3339, sp["deadline"].(string)); err != nil {
		t.Errorf("deadline %v", sp["deadline"])
	}
	r = e.want(e.signWith(keyA, alice, id, wa.key), 200)
	if r.data()["status"] != "SUBMITTED" || r.data()["collectedSignatures"] != 1.0 {
		t.Fatalf("sign %s", r.raw)
	}
	if got := e.balance(keyA, alice, wa.id); got != "100.1" {
		t.Errorf("balance moved before settling: %s", got)
	}
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	r = e.want(e.call("GET", e.proposalPath(alice, id, ""), keyA, nil), 200)
	if r.data()["status"] != "COMPLETED" {
		t.Fatalf("after settle %s", r.raw)
	}
	if a, b := e.balance(keyA, alice, wa.id), e.balance(keyA, bob, wb.id); a != "99.8" || b != "0.3" {
		t.Errorf("balances %s %s", a, b)
	}
	list := e.want(e.call("GET", "/v1/users/"+alice+"/smart-wallets/"+wa.id+"/proposals", keyA, nil), 200).list()
	if len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Errorf("list %v", list)
	}
}

// A submitted workflow also settles by the sandbox clock.
func TestTransfer_SettlesOnTheSandboxClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.SettleDelay = 30 * time.Second })
	alice, bob := e.user(keyA), e.user(keyA)
	wa, _ := e.wallet(keyA, alice, "USDB"), e.wallet(keyA, bob, "USDB")
	e.deposit(wa.id, "5")
	p := e.propose(keyA, alice, wa.id, map[string]any{"type": "TRANSFER", "toUserId": bob, "amount": "1"})
	id := p["id"].(string)
	e.want(e.call("POST", e.proposalPath(alice, id, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, alice, id, wa.key), 200)
	e.advance(29 * time.Second)
	if s := e.want(e.call("GET", e.proposalPath(alice, id, ""), keyA, nil), 200).data()["status"]; s != "SUBMITTED" {
		t.Fatalf("status %v", s)
	}
	e.advance(time.Second)
	if s := e.want(e.call("GET", e.proposalPath(alice, id, ""), keyA, nil), 200).data()["status"]; s != "COMPLETED" {
		t.Fatalf("status %v", s)
	}
}

// spec, TRANSFER rules 1–3.
func TestTransfer_RecipientRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob, carol := e.user(keyA), e.user(keyA), e.user(keyA)
	wa := e.wallet(keyA, alice, "CNGN")
	e.wallet(keyA, bob, "CNGN")
	e.wallet(keyA, carol, "USDB")
	stranger := e.user(keyB)
	e.wallet(keyB, stranger, "CNGN")
	path := "/v1/users/" + alice + "/smart-wallets/" + wa.id + "/proposals"

	// Rule 1: "Neither toUserId nor toAddress gives 400."
	r := e.want(e.call("POST", path, keyA, map[string]any{"proposal": map[string]any{"type": "TRANSFER", "amount": "1"}}), 400)
	if !strings.Contains(r.msg(), "toUserId or toAddress") {
		t.Errorf("rule 1: %s", r.raw)
	}
	// Rule 2: "toUserId must belong to the same partner, else 404 (same as
	// unknown user)."
	for _, to := range []string{stranger, "00000000-0000-4000-8000-000000000000"} {
		r = e.want(e.call("POST", path, keyA, map[string]any{"proposal": map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"}}), 404)
		if r.body["message"] != msgUserNotFound {
			t.Errorf("rule 2: %s", r.raw)
		}
	}
	// Rule 3: "The recipient must hold an active wallet in the sent currency,
	// else 400"
	r = e.want(e.call("POST", path, keyA, map[string]any{"proposal": map[string]any{"type": "TRANSFER", "toUserId": carol, "amount": "1"}}), 400)
	if !strings.Contains(r.msg(), "no active account in CNGN") {
		t.Errorf("rule 3: %s", r.raw)
	}
	// Currency on a single-token wallet and the description limit.
	r = e.want(e.call("POST", path, keyA, map[string]any{"proposal": map[string]any{
		"type": "TRANSFER", "toUserId": bob, "amount": "-1", "currency": "USDB", "description": strings.Repeat("x", 501),
	}}), 400)
	if msgs, _ := r.body["message"].([]any); len(msgs) != 3 {
		t.Errorf("validation %s", r.raw)
	}
	p := e.propose(keyA, alice, wa.id, map[string]any{"type": "TRANSFER", "toUserId": bob, "amount": "2.5", "currency": "CNGN"})
	if p["currency"] != "CNGN" || p["amount"] != "2.5" {
		t.Errorf("proposal %v", p)
	}
	p = e.propose(keyA, alice, wa.id, map[string]any{"type": "TRANSFER", "toAddress": "0x000000000000000000000000000000000000dead", "amount": "2"})
	if p["toAddress"] != "0x000000000000000000000000000000000000dEaD" {
		t.Errorf("toAddress %v", p["toAddress"])
	}
}

// spec rule 4: "account/send: currency required when the account has more
// than one wallet, optional with exactly one. note becomes description."
func TestAccountSend_CurrencyRuleAndNote(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.user(keyA), e.user(keyA)
	e.wallet(keyA, alice, "USDB")
	e.wallet(keyA, bob, "USDB")
	e.wallet(keyA, bob, "CNGN")
	r := e.want(e.call("POST", "/v1/users/"+alice+"/smart-wallets/account/send", keyA, map[string]any{"toUserId": bob, "amount": "1", "note": "thanks"}), 201)
	p := r.data()["proposal"].(map[string]any)
	if p["description"] != "thanks" || p["currency"] != "USDB" || p["type"] != "TRANSFER" {
		t.Errorf("send %s", r.raw)
	}
	e.wallet(keyA, alice, "CNGN")
	r = e.want(e.call("POST", "/v1/users/"+alice+"/smart-wallets/account/send", keyA, map[string]any{"toUserId": bob, "amount": "1"}), 400)
	if !strings.Contains(r.msg(), "currency is required") {
		t.Errorf("multi-wallet: %s", r.raw)
	}
	r = e.want(e.call("POST", "/v1/users/"+alice+"/smart-wallets/account/send", keyA, map[string]any{"toUserId": bob, "amount": "1", "currency": "CNGN"}), 201)
	if r.data()["proposal"].(map[string]any)["currency"] != "CNGN" {
		t.Errorf("send %s", r.raw)
	}
}

// spec: "SWAP proposal fields ... slippageBps (optional integer 1 to 500).
// Allowed stablecoins: USDB, CNGN, CADC, EURe, GBPe, MEXe."
func TestSwap_FieldsAndSettlement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	wu, wg := e.wallet(keyA, u, "USDB"), e.wallet(keyA, u, "GBPe")
	path := "/v1/users/" + u + "/smart-wallets/" + wu.id + "/proposals"
	for _, bad := range []map[string]any{
		{"type": "SWAP", "fromStablecoin": "USDB", "toStablecoin": "GBPe", "fromAmount": "1", "slippageBps": 0},
		{"type": "SWAP", "fromStablecoin": "USDB", "toStablecoin": "GBPe", "fromAmount": "1", "slippageBps": 501},
		{"type": "SWAP", "fromStablecoin": "USDC", "toStablecoin": "GBPe", "fromAmount": "1"},
		{"type": "SWAP", "fromStablecoin": "USDB", "toStablecoin": "GBP", "fromAmount": "1"},
		{"type": "SWAP", "fromStablecoin": "USDB", "toStablecoin": "GBPe"},
	} {
		e.want(e.call("POST", path, keyA, map[string]any{"proposal": bad}), 400)
	}
	e.deposit(wu.id, "127")
	p := e.propose(keyA, u, wu.id, map[string]any{"type": "SWAP", "fromStablecoin": "USDB", "toStablecoin": "GBPe", "fromAmount": "127", "slippageBps": 500})
	if p["slippageBps"] != 500.0 || p["fromAmount"] != "127" {
		t.Errorf("swap %v", p)
	}
	id := p["id"].(string)
	e.want(e.call("POST", e.proposalPath(u, id, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, u, id, wu.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if b := e.balance(keyA, u, wg.id); b != "100" {
		t.Errorf("GBPe balance %s, want 100 at 1.27", b)
	}
	if b := e.balance(keyA, u, wu.id); b != "0" {
		t.Errorf("USDB balance %s", b)
	}
}

// spec, Errors: signature failure modes of POST .../sign.
func TestSign_FailureModes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	p := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})
	id := p["id"].(string)
	e.want(e.call("POST", e.proposalPath(u, id, "approve"), keyA, nil), 200)
	sp := e.want(e.call("GET", e.proposalPath(u, id, "sign-payload"), keyA, nil), 200).data()
	h, _ := ethsig.ParseHash(sp["hashToSign"].(string))
	good := ethsig.Sign(w.key, h)
	// v ‖ r ‖ s read as r ‖ s ‖ v puts the last byte of s where v goes; pick
	// a signature whose last byte of s is no valid v (0, 1, 27, 28), or the
	// case would be a different failure by chance (4 times in 256).
	vrsSig := good
	for vrsSig[63] <= 1 || vrsSig[63] == 27 || vrsSig[63] == 28 {
		k, _ := ethsig.GenerateKey()
		vrsSig = ethsig.Sign(k, h)
	}
	vrs := append([]byte{vrsSig[64]}, vrsSig[:64]...)
	v0 := good
	v0[64] -= 27
	stranger, _ := ethsig.GenerateKey()

	cases := []struct {
		name      string
		signature any
		status    int
		msg       string
	}{
		// spec: "500 | Point is not on curve | signature not decodable: wrong
		// length (must be 65 bytes), wrong encoding (hex, not base64 or a byte
		// array) or wrong r, s, v order"
		{"short", good.Hex()[:130], 500, msgNotOnCurve},
		{"long", good.Hex() + "00", 500, msgNotOnCurve},
		{"base64", base64.StdEncoding.EncodeToString(good[:]), 500, msgNotOnCurve},
		{"byte array", []int{1, 2, 3}, 500, msgNotOnCurve},
		{"no 0x", hex.EncodeToString(good[:]), 500, msgNotOnCurve},
		{"v r s order", "0x" + hex.EncodeToString(vrs), 500, msgNotOnCurve},
		// spec: "500 | Invalid yParityOrV | v is 0 or 1; normalise to v + 27"
		{"v 0/1", v0.Hex(), 500, msgInvalidV},
		// spec: "A message-signing method on a proposal hash produces a
		// valid-looking signature that recovers to a different address, so it
		// never matches the proposal's signer snapshot."
		{"message prefix", ethsig.SignMessage(w.key, h[:]).Hex(), 403, "not authorised"},
		// spec: "A signer not on the snapshot gives a not-authorised failure."
		{"stranger", ethsig.Sign(stranger, h).Hex(), 403, "not authorised"},
	}
	for _, c := range cases {
		r := e.want(e.call("POST", e.proposalPath(u, id, "sign"), keyA, map[string]any{"signature": c.signature}), c.status)
		if !strings.Contains(r.msg(), c.msg) {
			t.Errorf("%s: %s", c.name, r.raw)
		}
		if c.status == 500 && r.body["error"] != "Internal Server Error" {
			t.Errorf("%s: error %v", c.name, r.body["error"])
		}
	}
	if s := e.want(e.call("GET", e.proposalPath(u, id, ""), keyA, nil), 200).data(); s["status"] != "PENDING_SIGNATURES" || s["collectedSignatures"] != 0.0 {
		t.Fatalf("a refused signature changed the proposal: %v", s)
	}
	// spec: "Signing deadline: a signature after deadline is refused."
	e.advance(11 * time.Minute)
	r := e.want(e.call("POST", e.proposalPath(u, id, "sign"), keyA, map[string]any{"signature": good.Hex()}), 400)
	if !strings.Contains(r.msg(), "deadline exceeded") {
		t.Errorf("deadline: %s", r.raw)
	}
	// A fresh payload opens a new window: the same hash signed again passes.
	e.want(e.signWith(keyA, u, id, w.key), 200)
}

// spec: "PENDING_SIGNATURES | POST .../sign | valid owner signature recorded
// but collected signatures below requiredSignatures | PENDING_SIGNATURES"
func TestSign_BelowRequiredSignaturesStaysPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	co, _ := ethsig.GenerateKey()
	e.want(e.call("POST", "/_sandbox/wallets/"+w.id+"/signers", "", map[string]any{
		"signers": []string{ethsig.KeyAddress(w.key).Hex(), ethsig.KeyAddress(co).Hex()}, "threshold": 2,
	}), 200)
	p := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})
	id := p["id"].(string)
	if p["requiredSignatures"] != 2.0 {
		t.Fatalf("requiredSignatures %v", p["requiredSignatures"])
	}
	e.want(e.call("POST", e.proposalPath(u, id, "approve"), keyA, nil), 200)
	r := e.want(e.signWith(keyA, u, id, w.key), 200)
	if r.data()["status"] != "PENDING_SIGNATURES" || r.data()["collectedSignatures"] != 1.0 {
		t.Fatalf("first signature %s", r.raw)
	}
	sp := e.want(e.call("GET", e.proposalPath(u, id, "sign-payload"), keyA, nil), 200).data()
	if sp["walletIndex"] != 1.0 {
		t.Errorf("walletIndex %v, want the co-signer", sp["walletIndex"])
	}
	r = e.want(e.signWith(keyA, u, id, co), 200)
	if r.data()["status"] != "SUBMITTED" {
		t.Fatalf("second signature %s", r.raw)
	}
}

// spec: "FAILED | POST .../approve again | | workflow restarts"
func TestProposal_FailedThenApproveRestartsTheWorkflow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	p := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "10"})
	id := p["id"].(string)
	e.want(e.call("POST", e.proposalPath(u, id, "approve"), keyA, nil), 200)
	first := e.want(e.call("GET", e.proposalPath(u, id, "sign-payload"), keyA, nil), 200).data()
	e.want(e.signWith(keyA, u, id, w.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	r := e.want(e.call("GET", e.proposalPath(u, id, ""), keyA, nil), 200)
	if r.data()["status"] != "FAILED" || !strings.Contains(r.data()["failureReason"].(string), "insufficient") {
		t.Fatalf("settle without funds: %s", r.raw)
	}
	e.deposit(w.id, "10")
	r = e.want(e.call("POST", e.proposalPath(u, id, "approve"), keyA, nil), 200)
	if r.data()["status"] != "PENDING_SIGNATURES" || r.data()["collectedSignatures"] != 0.0 {
		t.Fatalf("restart %s", r.raw)
	}
	second := e.want(e.call("GET", e.proposalPath(u, id, "sign-payload"), keyA, nil), 200).data()
	if second["workflowId"] == first["workflowId"] || second["hashToSign"] == first["hashToSign"] {
		t.Errorf("restarted workflow reuses %v", second["workflowId"])
	}
	e.want(e.signWith(keyA, u, id, w.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if s := e.want(e.call("GET", e.proposalPath(u, id, ""), keyA, nil), 200).data()["status"]; s != "COMPLETED" {
		t.Errorf("status %v", s)
	}
}

// spec: "any open state | POST .../reject | optional reason | rejected"
func TestProposal_RejectWithReasonFromEveryOpenState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	newP := func() string {
		return e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	}
	pa := newP()
	ps := newP()
	e.want(e.call("POST", e.proposalPath(u, ps, "approve"), keyA, nil), 200)
	pf := newP()
	e.want(e.call("POST", e.proposalPath(u, pf, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, u, pf, w.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200) // no funds: FAILED
	for _, id := range []string{pa, ps, pf} {
		r := e.want(e.call("POST", e.proposalPath(u, id, "reject"), keyA, map[string]any{"reason": "not budgeted"}), 200)
		if r.data()["status"] != "REJECTED" || r.data()["rejectionReason"] != "not budgeted" {
			t.Errorf("reject %s", r.raw)
		}
	}
	// Not open any more.
	e.want(e.call("POST", e.proposalPath(u, pa, "reject"), keyA, nil), 409)
	e.want(e.call("POST", e.proposalPath(u, pa, "approve"), keyA, nil), 409)
	e.want(e.call("GET", e.proposalPath(u, ps, "sign-payload"), keyA, nil), 404)
}

// Open proposals expire (sandbox: 7 days).
func TestProposal_OpenProposalExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	id := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	e.advance(7*24*time.Hour + time.Second)
	if s := e.want(e.call("GET", e.proposalPath(u, id, ""), keyA, nil), 200).data()["status"]; s != "EXPIRED" {
		t.Errorf("status %v", s)
	}
}

// spec: "Approval mode of an account: ANY_ADMIN, ADMIN_THRESHOLD or
// OWNER_APPROVAL" with the sandbox's x-acting-user-id.
func TestApprovalPolicy_Modes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	treasury, to, admin1, admin2, outsider := e.user(keyA), e.user(keyA), e.user(keyA), e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, treasury, "USDB")
	e.wallet(keyA, to, "USDB")
	policy := "/v1/users/" + treasury + "/smart-wallets/account/approval-policy"
	if m := e.want(e.call("GET", policy, keyA, nil), 200).data()["mode"]; m != "OWNER_APPROVAL" {
		t.Errorf("default mode %v", m)
	}
	e.want(e.call("PATCH", policy, keyA, map[string]any{"mode": "SOMETIMES"}), 400)
	e.want(e.call("PATCH", policy, keyA, map[string]any{"mode": "ADMIN_THRESHOLD", "admins": []string{admin1}, "threshold": 3}), 400)
	r := e.want(e.call("PATCH", policy, keyA, map[string]any{"mode": "ADMIN_THRESHOLD", "admins": []string{admin1, admin2}, "threshold": 2}), 200)
	if r.data()["requiredApprovals"] != 2.0 {
		t.Fatalf("policy %s", r.raw)
	}
	id := e.propose(keyA, treasury, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	approve := func(actor string) resp {
		if actor == "" {
			return e.call("POST", e.proposalPath(treasury, id, "approve"), keyA, nil)
		}
		return e.call("POST", e.proposalPath(treasury, id, "approve"), keyA, nil, "x-acting-user-id", actor)
	}
	e.want(approve(outsider), 403)
	e.want(approve(admin1), 200)
	r = e.want(approve(admin1), 200) // the same admin twice counts once
	if r.data()["status"] != "PENDING_APPROVALS" || len(r.data()["approvals"].([]any)) != 1 {
		t.Fatalf("after one admin %s", r.raw)
	}
	r = e.want(approve(admin2), 200)
	if r.data()["status"] != "PENDING_SIGNATURES" {
		t.Fatalf("after two admins %s", r.raw)
	}
	// ANY_ADMIN: one admin suffices; OWNER_APPROVAL refuses an admin.
	e.want(e.call("PATCH", policy, keyA, map[string]any{"mode": "ANY_ADMIN", "admins": []string{admin1}}), 200)
	id = e.propose(keyA, treasury, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	if s := e.want(approve(admin1), 200).data()["status"]; s != "PENDING_SIGNATURES" {
		t.Errorf("ANY_ADMIN status %v", s)
	}
	e.want(e.call("PATCH", policy, keyA, map[string]any{"mode": "OWNER_APPROVAL"}), 200)
	id = e.propose(keyA, treasury, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	e.want(approve(admin1), 403)
	if s := e.want(approve(treasury), 200).data()["status"]; s != "PENDING_SIGNATURES" {
		t.Errorf("OWNER_APPROVAL status %v", s)
	}
	// Another partner's user as the acting user.
	id = e.propose(keyA, treasury, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})["id"].(string)
	e.want(approve(e.user(keyB)), 403)
}

// Concurrency: parallel clients moving money must keep the books exact.
func TestConcurrency_ParallelTransfersKeepBalancesExact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, bob := e.user(keyA), e.user(keyA)
	wa, wb := e.wallet(keyA, alice, "USDB"), e.wallet(keyA, bob, "USDB")
	e.deposit(wa.id, "10")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// t.Fatal is not allowed off the test goroutine: report with Errorf.
			r := e.call("POST", "/v1/users/"+alice+"/smart-wallets/"+wa.id+"/proposals", keyA,
				map[string]any{"proposal": map[string]any{"type": "TRANSFER", "toUserId": bob, "amount": "0.01"}})
			if r.status != 201 {
				t.Errorf("propose %d %s", r.status, r.raw)
				return
			}
			id := r.data()["proposal"].(map[string]any)["id"].(string)
			if r := e.call("POST", e.proposalPath(alice, id, "approve"), keyA, nil); r.status != 200 {
				t.Errorf("approve %d %s", r.status, r.raw)
				return
			}
			sp := e.call("GET", e.proposalPath(alice, id, "sign-payload"), keyA, nil)
			h, err := ethsig.ParseHash(fmt.Sprint(sp.data()["hashToSign"]))
			if err != nil {
				t.Errorf("payload %s", sp.raw)
				return
			}
			if r := e.call("POST", e.proposalPath(alice, id, "sign"), keyA, map[string]any{"signature": ethsig.Sign(wa.key, h).Hex()}); r.status != 200 {
				t.Errorf("sign %d %s", r.status, r.raw)
			}
			e.call("GET", "/v1/users/"+bob+"/smart-wallets/account/balances", keyA, nil)
		}()
	}
	wg.Wait()
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if a, b := e.balance(keyA, alice, wa.id), e.balance(keyA, bob, wb.id); a != "9.92" || b != "0.08" {
		t.Errorf("balances %s %s", a, b)
	}
}

// spec: "POST /smart-wallets/fund | includes fromWalletId and a recipient |
// same proposal".
func TestFund_FromWalletToRecipient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	treasury, emp := e.user(keyA), e.user(keyA)
	tw := e.wallet(keyA, treasury, "CNGN")
	ew := e.wallet(keyA, emp, "CNGN")
	e.deposit(tw.id, "50000")
	path := "/v1/users/" + treasury + "/smart-wallets/fund"
	e.want(e.call("POST", path, keyA, map[string]any{"toUserId": emp, "amount": "1"}), 400)
	e.want(e.call("POST", path, keyA, map[string]any{"fromWalletId": ew.id, "toUserId": emp, "amount": "1"}), 404)
	r := e.want(e.call("POST", path, keyA, map[string]any{"fromWalletId": tw.id, "toUserId": emp, "amount": "15000.75", "description": "salary advance"}), 201)
	p := r.data()["proposal"].(map[string]any)
	if p["walletId"] != tw.id || p["toUserId"] != emp || p["status"] != "PENDING_APPROVALS" {
		t.Fatalf("fund %s", r.raw)
	}
	id := p["id"].(string)
	e.want(e.call("POST", e.proposalPath(treasury, id, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, treasury, id, tw.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if b := e.balance(keyA, emp, ew.id); b != "15000.75" {
		t.Errorf("recipient %s", b)
	}
	r = e.want(e.call("POST", path, keyA, map[string]any{"fromWalletId": tw.id, "toWalletId": ew.id, "amount": "1"}), 201)
	if r.data()["proposal"].(map[string]any)["toAddress"] != ew.address {
		t.Errorf("toWalletId %s", r.raw)
	}
}

// The "Done when", over HTTP end to end: create users, owner proof,
// wallets, credit a deposit, propose, approve, sign with the owner key,
// settle, balances move and the deposit webhook arrives with a valid HMAC.
func TestDoneWhen_FullTransferOverHTTPWithDepositWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	secret := e.subscribe(keyA, sink.ts.URL+"/webhooks/partner-api", []string{"employee.deposit.completed"}, nil)["secretKey"].(string)
	alice, bob := e.user(keyA), e.user(keyA)
	wa, wb := e.wallet(keyA, alice, "USDB"), e.wallet(keyA, bob, "USDB")
	e.deposit(wa.id, "250.00")
	id := e.propose(keyA, alice, wa.id, map[string]any{"type": "TRANSFER", "toUserId": bob, "amount": "99.99"})["id"].(string)
	e.want(e.call("POST", e.proposalPath(alice, id, "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, alice, id, wa.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if a, b := e.balance(keyA, alice, wa.id), e.balance(keyA, bob, wb.id); a != "150.01" || b != "99.99" {
		t.Errorf("balances %s %s", a, b)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(sink.hits()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	hits := sink.hits()
	if len(hits) != 2 {
		t.Fatalf("want the deposit and the transfer credit, got %d hits", len(hits))
	}
	for _, h := range hits {
		if !verifySignature(secret, h.body, h.header.Get("X-Webhook-Signature")) {
			t.Errorf("invalid HMAC on %s", h.body)
		}
	}
}
