package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func mxPath(id, rest string) string { return "/v1/users/" + id + "/latam/mx" + rest }

// mxUser runs Global KYC for a Mexican profile; withRFC adds the RFC.
func (e *env) mxUser(withRFC bool, selfie []byte) (string, ownedWallet) {
	e.t.Helper()
	id := e.user(keyA)
	w := e.wallet(keyA, id, "MEXe")
	e.kycLookups(keyA, id)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "G1", "issuingCountry": "MX"},
		mpPart{"front", "a.png", "image/png", p2PNG()}), 201)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/proof-of-address"), map[string]string{"type": "utility_bill"}, mpPart{"file", "b.png", "image/png", p2PNG()}), 201)
	if selfie != nil {
		e.want(e.kycUpload(keyA, kycPath(id, "/documents/biometric"), nil, mpPart{"selfie", "c.jpg", "image/jpeg", selfie}), 201)
	}
	p := p2GlobalProfile("MEX")
	if withRFC {
		p["identificationNumbers"] = []any{map[string]any{"type": "rfc", "number": "GODE561231GR8", "issuingCountryCode": "MEX"}}
	}
	e.want(e.call("PATCH", kycPath(id, ""), keyA, p), 200)
	return id, w
}

// spec (Mexico rule 1): "Activation returns 400 when the profile is not
// approved or the RFC is missing. A CURP is not required." Rule 2: "If
// uploaded.selfie or uploaded.document is false, upload the missing file
// and activate again."
func TestMexico_ActivateRules(t *testing.T) {
	e := newEnv(t)
	id, _ := e.mxUser(false, nil)
	r := e.want(e.call("POST", mxPath(id, "/kyc/activate"), keyA, nil), 400)
	if !strings.Contains(r.msg(), "not approved") || !strings.Contains(r.msg(), "rfc") {
		t.Fatalf("not approved, no RFC: %s", r.raw)
	}
	e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{"identificationNumbers": []any{map[string]any{"type": "rfc", "number": "GODE561231GR8", "issuingCountryCode": "MEX"}}}), 200)
	e.want(e.call("GET", kycPath(id, "/readiness?currency=MXN"), keyA, nil), 200)
	// The Global path needs the selfie first.
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 400)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/biometric"), nil, mpPart{"selfie", "c.jpg", "image/jpeg", p2JPEG()}), 201)
	e.want(e.call("GET", kycPath(id, "/readiness?currency=MXN"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	got := e.want(e.call("POST", mxPath(id, "/kyc/activate"), keyA, nil), 200).data()
	up := got["uploaded"].(map[string]any)
	if got["status"] != "proposed" || up["selfie"] != true || up["document"] != true {
		t.Fatalf("activation %v", got)
	}
	if s := e.want(e.call("GET", mxPath(id, "/kyc/status"), keyA, nil), 200).data()["status"]; s != "proposed" {
		t.Fatalf("status %v", s)
	}
}

// spec rule 3: "Its assertion expires about 5 minutes after fetching and
// expiresAt is a hard deadline ... call again for a fresh one without
// limit"; Versioning: "launch/idv is a deprecated alias of
// launch/agreements".
func TestMexico_LaunchPayload(t *testing.T) {
	e := newEnv(t)
	id, _ := e.mxUser(true, p2JPEG())
	e.want(e.call("GET", mxPath(id, "/kyc/launch/agreements"), keyA, nil), 400) // not activated yet
	e.want(e.call("GET", kycPath(id, "/readiness?currency=MXN"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	e.want(e.call("POST", mxPath(id, "/kyc/activate"), keyA, nil), 200)
	seen := map[string]bool{}
	for _, path := range []string{"/kyc/launch/agreements", "/kyc/launch/idv", "/kyc/launch/agreements"} {
		l := e.want(e.call("GET", mxPath(id, path), keyA, nil), 200).data()
		fields := l["fields"].(map[string]any)
		assertion := fields["assertion"].(string)
		if seen[assertion] {
			t.Fatalf("%s: the same assertion twice", path)
		}
		seen[assertion] = true
		exp, _ := time.Parse(time.RFC3339, l["expiresAt"].(string))
		if d := exp.Sub(e.s.Now()); d != 5*time.Minute {
			t.Errorf("%s: expires in %v", path, d)
		}
		parts := strings.Split(assertion, ".")
		claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
		var c map[string]any
		_ = json.Unmarshal(claims, &c)
		if len(parts) != 3 || int64(c["exp"].(float64)) != exp.Unix() || c["sub"] != id {
			t.Errorf("%s: assertion claims %v", path, c)
		}
		html := l["html"].(string)
		if l["method"] != "POST" || !strings.Contains(html, `action="`+l["url"].(string)+`"`) || !strings.Contains(html, "submit()") ||
			!strings.Contains(html, assertion) || fields["grant_type"] == "" || fields["target"] == "" {
			t.Errorf("%s: payload %v", path, l)
		}
	}
}

// spec: Mexico JPEG or PNG: an identification uploaded as a PDF elsewhere
// does not count for Mexico (uploaded.document false).
func TestMexico_UploadedFlagsNeedJPEGOrPNG(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	// Uploaded before the profile said Mexico: a PDF is accepted then.
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "national_id", "documentNumber": "N1", "issuingCountry": "ESP"},
		mpPart{"front", "id.pdf", "application/pdf", p2PDF}), 201)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/proof-of-address"), map[string]string{"type": "utility_bill"}, mpPart{"file", "b.png", "image/png", p2PNG()}), 201)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/biometric"), nil, mpPart{"selfie", "c.jpg", "image/jpeg", p2JPEG()}), 201)
	p := p2GlobalProfile("MEX")
	p["identificationNumbers"] = []any{map[string]any{"type": "rfc", "number": "GODE561231GR8", "issuingCountryCode": "MEX"}}
	e.want(e.call("PATCH", kycPath(id, ""), keyA, p), 200)
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	got := e.want(e.call("POST", mxPath(id, "/kyc/activate"), keyA, nil), 200).data()
	if up := got["uploaded"].(map[string]any); up["document"] != false || up["selfie"] != true {
		t.Fatalf("flags %v", got)
	}
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "G2", "issuingCountry": "MEX"},
		mpPart{"front", "p.jpg", "image/jpeg", p2JPEG()}), 201)
	got = e.want(e.call("POST", mxPath(id, "/kyc/activate"), keyA, nil), 200).data()
	if up := got["uploaded"].(map[string]any); up["document"] != true || got["status"] != "proposed" {
		t.Fatalf("after re-upload %v", got)
	}
}

// spec: MXN order "created → funded → completed"; "created or funded →
// failed, refunded or canceled (terminal)"; "MXN quote validity | until
// expiresAt"; quote "type: 'offramp' (only value)".
func TestMexico_QuoteAndOrderStates(t *testing.T) {
	e := newEnv(t)
	id, w := e.mxUser(true, p2JPEG())
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	e.want(e.call("POST", mxPath(id, "/kyc/activate"), keyA, nil), 200)
	e.want(e.call("POST", mxPath(id, "/quote"), keyA, map[string]any{"type": "offramp", "sourceAmount": "10"}), 400) // not approved
	e.want(e.call("PUT", "/_sandbox/users/"+id+"/mx/kyc", "", map[string]any{"status": "approved"}), 200)
	e.deposit(w.id, "1000")
	if r := e.want(e.call("POST", mxPath(id, "/quote"), keyA, map[string]any{"type": "onramp", "sourceAmount": "10"}), 400); !strings.Contains(r.msg(), "offramp") {
		t.Fatalf("onramp quote: %s", r.raw)
	}
	// An unsigned quote expires: the order is canceled.
	q := e.want(e.call("POST", mxPath(id, "/quote"), keyA, map[string]any{"type": "offramp", "sourceAmount": "100"}), 201).data()
	e.advance(3 * time.Minute)
	if o := e.want(e.call("GET", mxPath(id, "/orders/"+q["orderId"].(string)), keyA, nil), 200).data(); o["status"] != "canceled" || o["burnSignatureRequest"] != nil {
		t.Fatalf("expired quote's order %v", o)
	}
	e.want(e.submitWorkflow(keyA, id, q["signatureRequest"].(map[string]any), w.key), 400)
	// A failed payout after the burn refunds the tokens.
	q = e.want(e.call("POST", mxPath(id, "/quote"), keyA, map[string]any{"type": "offramp", "sourceAmount": "100"}), 201).data()
	e.want(e.submitWorkflow(keyA, id, q["signatureRequest"].(map[string]any), w.key), 200)
	o := e.want(e.call("GET", mxPath(id, "/orders/"+q["orderId"].(string)), keyA, nil), 200).data()
	e.want(e.submitWorkflow(keyA, id, o["burnSignatureRequest"].(map[string]any), w.key), 200)
	if b := e.balance(keyA, id, w.id); b != "900" {
		t.Fatalf("after burn %s", b)
	}
	e.want(e.call("POST", "/_sandbox/rails/fail-next", "", map[string]any{"rail": "mx-offramp"}), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	if o := e.want(e.call("GET", mxPath(id, "/orders/"+q["orderId"].(string)), keyA, nil), 200).data(); o["status"] != "refunded" {
		t.Fatalf("refunded order %v", o)
	}
	if b := e.balance(keyA, id, w.id); b != "1000" {
		t.Fatalf("after refund %s", b)
	}
	// Another user's order is unknown.
	e.want(e.call("GET", mxPath(e.user(keyA), "/orders/"+q["orderId"].(string)), keyA, nil), 404)
}

// spec (Versioning 3): "users onboarded before the migration should be
// checked for a legacy balance" — the legacy MXNe wallet is listed.
func TestMexico_LegacyMXNeBalance(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.want(e.call("POST", "/_sandbox/users/"+id+"/legacy-mxne", "", map[string]any{"amount": "42.10"}), 201)
	found := false
	for _, b := range e.want(e.call("GET", "/v1/users/"+id+"/smart-wallets/account/balances", keyA, nil), 200).list() {
		m := b.(map[string]any)
		found = found || (m["currency"] == "MXNe" && m["balance"] == "42.1")
	}
	if !found {
		t.Fatal("no MXNe balance listed")
	}
}
