package sandbox

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"partneradmin/apiclient/ethsig"
)

const testNIN = "12345678901"

func cardBody(walletID, typ string, extra map[string]any) map[string]any {
	b := map[string]any{"cardName": "Groceries", "cardColor": "#1E88E5", "currency": "NGN", "type": typ, "smartWalletId": walletID, "nin": testNIN}
	if typ == "physical" {
		b["deliveryAddress"] = "1 Marina, Lagos"
		b["deliveryPhoneNumber"] = "08031234567"
	}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// issueCard creates a card, signs its issuance with the owner key and
// settles it; it returns the issued card id.
func (e *env) issueCard(userID string, w ownedWallet, typ string) string {
	e.t.Helper()
	r := e.want(e.call("POST", "/v1/users/"+userID+"/cards", keyA, cardBody(w.id, typ, nil)), 201).data()
	sp := r["signPayload"].(map[string]any)
	h, _ := ethsig.ParseHash(sp["hashToSign"].(string))
	pid := r["proposalId"].(string)
	e.want(e.call("POST", e.proposalPath(userID, pid, "sign"), keyA, map[string]any{"signature": ethsig.Sign(w.key, h).Hex()}), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	p := e.want(e.call("GET", e.proposalPath(userID, pid, ""), keyA, nil), 200).data()
	if p["status"] != "COMPLETED" {
		e.t.Fatalf("issuance %v", p)
	}
	return p["cardId"].(string)
}

func (e *env) cardOwner() (string, ownedWallet) {
	e.t.Helper()
	u := e.user(keyA)
	w := e.wallet(keyA, u, "CNGN")
	e.deposit(w.id, "100000")
	return u, w
}

// spec, Create card body: cardName 1 to 50, cardColor #RGB or #RRGGBB,
// currency NGN or USD, type virtual or physical, pan 13 to 19 digits,
// otpChannel sms or email.
func TestCreateCard_FieldRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	r := e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{
		"cardName": strings.Repeat("n", 51), "cardColor": "blue", "currency": "EUR", "type": "plastic", "pan": "123", "otpChannel": "fax",
	})), 400)
	if msgs, _ := r.body["message"].([]any); len(msgs) != 6 {
		t.Errorf("want 6 messages: %s", r.raw)
	}
	e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"cardName": ""})), 400)
	e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "physical", map[string]any{"deliveryAddress": nil})), 400)
	e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "physical", map[string]any{"deliveryPhoneNumber": "+1 555 0100"})), 400)
	// spec: "400 | NIN must be exactly 11 digits | NIN not 11 digits after trimming"
	r = e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"nin": "1234"})), 400)
	if r.body["message"] != "NIN must be exactly 11 digits" {
		t.Errorf("nin: %s", r.raw)
	}
	e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"nin": " " + testNIN + " ", "cardColor": "#abc", "pan": "4111111111111111"})), 201)
}

// spec: "omitting nin for an owner never issued a card returns 400 code E101
// ('not enrolled for cards')"; the fee is charged to the wallet.
func TestCreateCard_NINRequiredFirstTimeAndFeeCharged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	r := e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"nin": nil})), 400)
	if r.body["code"] != "E101" || !strings.Contains(r.msg(), "not enrolled for cards") {
		t.Fatalf("no nin: %s", r.raw)
	}
	r = e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", nil)), 201)
	d := r.data()
	if d["flow"] != "group" || d["feeAmount"] != "1000" || d["feeCurrency"] != "CNGN" || d["proposalStatus"] != "PENDING_SIGNATURES" {
		t.Errorf("create %s", r.raw)
	}
	sp, ok := d["signPayload"].(map[string]any)
	if !ok || sp["proposalId"] != d["proposalId"] || sp["hashToSign"] == nil {
		t.Errorf("signPayload %v", d["signPayload"])
	}
	if b := e.balance(keyA, u, w.id); b != "99000" {
		t.Errorf("balance after fee %s", b)
	}
	// Enrolled now: nin may be omitted.
	e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"nin": nil})), 201)
	// A USD card needs a USDB wallet.
	e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"currency": "USD"})), 400)
}

// spec: Card "isReserved, proposalId, proposalStatus, cardName, cardColor |
// on reserved entries"; "unsigned | expiry | entry disappears from reserved
// card lists".
func TestCards_ReservedEntryUntilSignedAndExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	list := func() []any {
		return e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/"+w.id+"/cards", keyA, nil), 200).list()
	}
	d := e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", map[string]any{"cardName": "Unsigned"})), 201).data()
	entries := list()
	if len(entries) != 1 {
		t.Fatalf("entries %v", entries)
	}
	res := entries[0].(map[string]any)
	if res["id"] != d["proposalId"] || res["isReserved"] != true || res["status"] != "RESERVED" || res["cardName"] != "Unsigned" ||
		res["proposalStatus"] != "PENDING_SIGNATURES" || res["cardColor"] != "#1E88E5" {
		t.Errorf("reserved entry %v", res)
	}
	e.advance(24*time.Hour + time.Second)
	if entries := list(); len(entries) != 0 {
		t.Errorf("expired reservation still listed: %v", entries)
	}
	if b := e.balance(keyA, u, w.id); b != "100000" {
		t.Errorf("fee not refunded: %s", b)
	}
	if s := e.want(e.call("GET", e.proposalPath(u, d["proposalId"].(string), ""), keyA, nil), 200).data()["status"]; s != "EXPIRED" {
		t.Errorf("proposal %v", s)
	}
	// Signed: the reserved entry becomes the card.
	id := e.issueCard(u, w, "virtual")
	entries = list()
	if len(entries) != 1 || entries[0].(map[string]any)["id"] != id || entries[0].(map[string]any)["status"] != "active" {
		t.Errorf("issued %v", entries)
	}
}

// spec: "409 | sign-payload on the card issuance route | payload not ready;
// keep polling"; "when signPayloadPending is true, poll the sign-payload
// endpoint first".
func TestCards_SignPayloadPendingWhileSweepConfirms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.CardSweepDelay = time.Minute })
	u, w := e.cardOwner()
	d := e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(w.id, "virtual", nil)), 201).data()
	if d["signPayloadPending"] != true || d["signPayload"] != nil || d["signPayloadHint"] == nil {
		t.Fatalf("create %v", d)
	}
	pid := d["proposalId"].(string)
	e.want(e.call("GET", "/v1/users/"+u+"/cards/"+pid+"/sign-payload", keyA, nil), 409)
	e.want(e.call("GET", e.proposalPath(u, pid, "sign-payload"), keyA, nil), 404)
	e.advance(time.Minute)
	sp := e.want(e.call("GET", "/v1/users/"+u+"/cards/"+pid+"/sign-payload", keyA, nil), 200).data()
	h, _ := ethsig.ParseHash(sp["hashToSign"].(string))
	r := e.want(e.call("POST", e.proposalPath(u, pid, "sign"), keyA, map[string]any{"signature": ethsig.Sign(w.key, h).Hex()}), 200)
	if r.data()["status"] != "READY_TO_EXECUTE" {
		t.Errorf("signed issuance %s", r.raw)
	}
}

// spec: "Legacy wallets cannot hold cards"; "migrationRequired: true and
// migrationHint for legacy wallets".
func TestCards_LegacyWalletNeedsMigration(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	k, _ := ethsig.GenerateKey()
	lw := e.want(e.call("POST", "/_sandbox/users/"+u+"/legacy-wallets", "", map[string]any{"currency": "CNGN", "userOwnerAddress": ethsig.KeyAddress(k).Hex()}), 201).data()
	if lw["legacy"] != true {
		t.Fatalf("legacy %v", lw)
	}
	e.deposit(lw["id"].(string), "5000")
	r := e.want(e.call("POST", "/v1/users/"+u+"/cards", keyA, cardBody(lw["id"].(string), "virtual", nil)), 200)
	if r.data()["migrationRequired"] != true || r.data()["migrationHint"] == nil || r.data()["proposalId"] != nil {
		t.Errorf("legacy create %s", r.raw)
	}
	if b := e.balance(keyA, u, lw["id"].(string)); b != "5000" {
		t.Errorf("fee charged on a legacy wallet: %s", b)
	}
	// A legacy wallet's proposals are relay-only: userOpHash, not safeTxHash.
	to := e.user(keyA)
	e.wallet(keyA, to, "CNGN")
	p := e.propose(keyA, u, lw["id"].(string), map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "1"})
	e.want(e.call("POST", e.proposalPath(u, p["id"].(string), "approve"), keyA, nil), 200)
	sp := e.want(e.call("GET", e.proposalPath(u, p["id"].(string), "sign-payload"), keyA, nil), 200).data()
	if sp["userOpHash"] == nil || sp["safeTxHash"] != nil {
		t.Errorf("legacy payload %v", sp)
	}
}

// spec, Card status: "Settable by the partner: BLOCKED (freeze, reversible)
// and ACTIVE (unfreeze a frozen card). Values are upper-case and
// case-sensitive. Any other value gets 400 before it leaves the service.
// ACTIVE does not activate a never-activated card."; "500 | The current
// status does not allow it".
func TestCardStatus_Transitions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	virtual := e.issueCard(u, w, "virtual")
	physical := e.issueCard(u, w, "physical")
	put := func(card, status string) resp {
		return e.call("PUT", "/v1/users/"+u+"/cards/"+card+"/status", keyA, map[string]any{"status": status})
	}
	status := func(card string) any {
		return e.want(e.call("GET", "/v1/users/"+u+"/cards/"+card, keyA, nil), 200).data()["status"]
	}
	for _, bad := range []string{"blocked", "FROZEN", "INACTIVE", ""} {
		r := e.want(put(virtual, bad), 400)
		if !strings.Contains(r.msg(), "BLOCKED, ACTIVE") {
			t.Errorf("%q: %s", bad, r.raw)
		}
	}
	e.want(put(virtual, "BLOCKED"), 200)
	if s := status(virtual); s != "frozen" {
		t.Errorf("after BLOCKED %v", s)
	}
	e.want(put(virtual, "ACTIVE"), 200)
	if s := status(virtual); s != "active" {
		t.Errorf("after ACTIVE %v", s)
	}
	// A never-activated physical card.
	if s := status(physical); s != "pending" {
		t.Errorf("physical %v", s)
	}
	if r := e.want(put(physical, "ACTIVE"), 500); r.body["message"] != msgStatusNotAllow {
		t.Errorf("ACTIVE on pending: %s", r.raw)
	}
	e.want(put(physical, "BLOCKED"), 500)
	// Issuer-reported lost: unfreezing is refused.
	e.want(e.call("PUT", "/_sandbox/cards/"+virtual+"/issuer-status", "", map[string]any{"status": "lost"}), 200)
	if r := e.want(put(virtual, "ACTIVE"), 500); r.body["message"] != msgStatusNotAllow {
		t.Errorf("ACTIVE on lost: %s", r.raw)
	}
	e.want(e.call("PUT", "/_sandbox/cards/"+virtual+"/issuer-status", "", map[string]any{"status": "FROZEN"}), 200)
	e.want(put(virtual, "ACTIVE"), 200)
	// spec: "PUT .../deactivate cancels a card permanently."
	e.want(e.call("PUT", "/v1/users/"+u+"/cards/"+virtual+"/deactivate", keyA, nil), 200)
	e.want(put(virtual, "ACTIVE"), 500)
	e.want(put(virtual, "BLOCKED"), 500)
	e.want(e.call("PUT", "/v1/users/"+u+"/cards/"+virtual+"/deactivate", keyA, nil), 500)
	// Another user's card is not found.
	other := e.user(keyA)
	e.want(e.call("GET", "/v1/users/"+other+"/cards/"+physical, keyA, nil), 404)
}

// spec: "Physical cards need the request and confirm calls"; "Card
// activation code | exactly 6 digits"; "Card PIN | exactly 4 digits".
func TestCards_ActivationAndPIN(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	physical := e.issueCard(u, w, "physical")
	virtual := e.issueCard(u, w, "virtual")
	base := "/v1/users/" + u + "/cards/"
	e.want(e.call("POST", base+physical+"/activate/request", keyA, map[string]any{}), 400)
	e.want(e.call("POST", base+virtual+"/activate/request", keyA, map[string]any{"channel": "sms"}), 400)
	r := e.want(e.call("POST", base+physical+"/activate/request", keyA, map[string]any{"channel": "sms"}), 200)
	otp := r.data()["otpId"].(string)
	if r.data()["expiresInMinutes"] != 10.0 || otp == "" {
		t.Fatalf("request %s", r.raw)
	}
	code := e.want(e.call("GET", "/_sandbox/cards/"+physical, "", nil), 200).data()["otpCode"].(string)
	e.want(e.call("POST", base+physical+"/activate/confirm", keyA, map[string]any{"otpId": otp, "code": "12345"}), 400)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	if r := e.want(e.call("POST", base+physical+"/activate/confirm", keyA, map[string]any{"otpId": otp, "code": wrong}), 400); !strings.Contains(r.msg(), "Invalid activation code") {
		t.Errorf("wrong code %s", r.raw)
	}
	e.want(e.call("POST", base+physical+"/activate/confirm", keyA, map[string]any{"otpId": otp, "code": code}), 200)
	if s := e.want(e.call("GET", base+physical, keyA, nil), 200).data()["status"]; s != "active" {
		t.Errorf("after confirm %v", s)
	}
	// Expired code.
	physical2 := e.issueCard(u, w, "physical")
	otp = e.want(e.call("POST", base+physical2+"/activate/request", keyA, map[string]any{"channel": "email"}), 200).data()["otpId"].(string)
	code = e.want(e.call("GET", "/_sandbox/cards/"+physical2, "", nil), 200).data()["otpCode"].(string)
	e.advance(11 * time.Minute)
	if r := e.want(e.call("POST", base+physical2+"/activate/confirm", keyA, map[string]any{"otpId": otp, "code": code}), 400); !strings.Contains(r.msg(), "expired") {
		t.Errorf("expired %s", r.raw)
	}
	for _, pin := range []string{"123", "12345", "12a4", ""} {
		e.want(e.call("PUT", base+virtual+"/pin", keyA, map[string]any{"pin": pin}), 400)
	}
	e.want(e.call("PUT", base+virtual+"/pin", keyA, map[string]any{"pin": "0420"}), 200)
	e.want(e.call("POST", base+virtual+"/reset", keyA, map[string]any{"pin": "1234"}), 200)
	e.want(e.call("POST", base+virtual+"/reset", keyA, map[string]any{"pin": "12"}), 400)
}

// spec: "Card limits (read): totalDailyLimit, maxSingleTransactionAmount,
// availableDailyLimit, maxTotalDailyLimit, maxSingleTransactionLimitCap";
// "read before setting limits".
func TestCards_LimitsWithinProviderCaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	id := e.issueCard(u, w, "virtual")
	base := "/v1/users/" + u + "/cards/" + id
	l := e.want(e.call("GET", base+"/limits", keyA, nil), 200).data()
	for _, f := range []string{"totalDailyLimit", "maxSingleTransactionAmount", "availableDailyLimit", "maxTotalDailyLimit", "maxSingleTransactionLimitCap"} {
		if _, ok := l[f].(float64); !ok {
			t.Errorf("%s = %v", f, l[f])
		}
	}
	e.want(e.call("PUT", base+"/set-limit", keyA, map[string]any{"totalDailyLimit": 6000000, "maxSingleTransactionAmount": 100}), 400)
	e.want(e.call("PUT", base+"/set-limit", keyA, map[string]any{"totalDailyLimit": 1000, "maxSingleTransactionAmount": 2000}), 400)
	e.want(e.call("PUT", base+"/set-limit", keyA, map[string]any{"totalDailyLimit": "1000", "maxSingleTransactionAmount": 100}), 400)
	e.want(e.call("PUT", base+"/set-limit", keyA, map[string]any{"totalDailyLimit": 20000, "maxSingleTransactionAmount": 5000.5}), 200)
	e.want(e.call("POST", "/_sandbox/cards/"+id+"/spend", "", map[string]any{"amount": "1500.25", "merchantName": "Shop"}), 200)
	l = e.want(e.call("GET", base+"/limits", keyA, nil), 200).data()
	if l["totalDailyLimit"] != 20000.0 || l["maxSingleTransactionAmount"] != 5000.5 || l["availableDailyLimit"] != 18499.75 {
		t.Errorf("limits %v", l)
	}
	// Over the single-transaction limit: declined, nothing debited.
	r := e.want(e.call("POST", "/_sandbox/cards/"+id+"/spend", "", map[string]any{"amount": "6000", "merchantName": "Big"}), 200)
	if r.data()["status"] != "DECLINED" {
		t.Errorf("over limit %s", r.raw)
	}
}

// spec: "Card transactions report amount as a major-unit number"; detail
// "balanceMinor ... minor units"; ledger "most recent 100 entries, newest
// first; amount is a minor-unit string"; "card.transaction.created payload
// carries amount and fee as decimal strings".
func TestCards_SpendTransactionsLedgerAndWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	e.subscribe(keyA, sink.ts.URL, []string{"card.transaction.created"}, nil)
	u, w := e.cardOwner()
	id := e.issueCard(u, w, "virtual")
	e.want(e.call("POST", "/_sandbox/cards/"+id+"/spend", "", map[string]any{"amount": "1234.56", "fee": "10.05", "merchantName": "Shoprite"}), 200)
	d := e.waitDelivery(keyA, "card.transaction.created")
	if d["status"] != "delivered" {
		t.Fatalf("delivery %v", d)
	}
	var body struct {
		Payload map[string]any `json:"payload"`
	}
	_ = json.Unmarshal(sink.hits()[0].body, &body)
	if body.Payload["amount"] != "1234.56" || body.Payload["fee"] != "10.05" || body.Payload["cardId"] != id {
		t.Errorf("payload %v", body.Payload)
	}
	// The wallet paid fee 1000 at creation, then 1234.56 + 10.05.
	if b := e.balance(keyA, u, w.id); b != "97755.39" {
		t.Errorf("balance %s", b)
	}
	r := e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions?size=5&status=completed", keyA, nil), 200)
	if !bytes.Contains(r.raw, []byte(`"amount":1234.56`)) || r.body["size"] != 5.0 {
		t.Errorf("transactions %s", r.raw)
	}
	txs := r.list()
	if len(txs) != 1 || txs[0].(map[string]any)["merchantName"] != "Shoprite" || txs[0].(map[string]any)["status"] != "COMPLETED" {
		t.Errorf("transactions %v", txs)
	}
	if n := len(e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions?status=DECLINED", keyA, nil), 200).list()); n != 0 {
		t.Errorf("declined %d", n)
	}
	if n := len(e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions?from=2026-11-02", keyA, nil), 200).list()); n != 0 {
		t.Errorf("from filter %d", n)
	}
	if n := len(e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions?from=2026-11-01&to=2026-11-01", keyA, nil), 200).list()); n != 1 {
		t.Errorf("day filter %d", n)
	}
	e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions?size=0", keyA, nil), 400)
	e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions?from=yesterday", keyA, nil), 400)

	detail := e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/"+w.id+"/cards/"+id, keyA, nil), 200)
	if detail.data()["balanceMinor"] != "9775539" {
		t.Errorf("balanceMinor %v", detail.data()["balanceMinor"])
	}
	ledger := detail.data()["ledger"].([]any)
	if len(ledger) != 3 || ledger[0].(map[string]any)["amount"] != "-1005" || ledger[1].(map[string]any)["amount"] != "-123456" || ledger[2].(map[string]any)["type"] != "fee" {
		t.Errorf("ledger %v", ledger)
	}
	if detail.data()["fundedAt"] == nil {
		t.Errorf("fundedAt still null")
	}
	for i := 0; i < 100; i++ {
		e.want(e.call("POST", "/_sandbox/cards/"+id+"/spend", "", map[string]any{"amount": "1", "merchantName": "Kiosk"}), 200)
	}
	ledger = e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/"+w.id+"/cards/"+id, keyA, nil), 200).data()["ledger"].([]any)
	if len(ledger) != 100 || ledger[0].(map[string]any)["description"] != "Kiosk" {
		t.Errorf("ledger has %d entries", len(ledger))
	}
	if n := len(e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id+"/transactions", keyA, nil), 200).list()); n != defaultTxPage {
		t.Errorf("default page %d", n)
	}
}

// spec: "GET .../cards/{cardId}/sensitive | provider card identity only";
// "POST /cards/sensitive-data | { identityId, cardId }; returns unmasked PAN,
// CVV, expiry, billing address".
func TestCards_SensitiveData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, w := e.cardOwner()
	id := e.issueCard(u, w, "virtual")
	ident := e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/"+w.id+"/cards/"+id+"/sensitive", keyA, nil), 200).data()
	if _, has := ident["pan"]; has || ident["identityId"] == nil || ident["cardId"] == nil {
		t.Fatalf("identity %v", ident)
	}
	e.want(e.call("POST", "/v1/users/"+u+"/cards/sensitive-data", keyA, map[string]any{}), 400)
	e.want(e.call("POST", "/v1/users/"+u+"/cards/sensitive-data", keyA, map[string]any{"identityId": ident["identityId"], "cardId": "crd_nope"}), 404)
	d := e.want(e.call("POST", "/v1/users/"+u+"/cards/sensitive-data", keyA, ident), 200).data()
	last4 := e.want(e.call("GET", "/v1/users/"+u+"/cards/"+id, keyA, nil), 200).data()["last4"].(string)
	if pan, _ := d["pan"].(string); len(pan) != 16 || !strings.HasSuffix(pan, last4) || len(d["cvv"].(string)) != 3 {
		t.Errorf("sensitive %v", d)
	}
	// Another user of the same partner cannot read it.
	e.want(e.call("POST", "/v1/users/"+e.user(keyA)+"/cards/sensitive-data", keyA, ident), 404)
}
