package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func kycProfile() map[string]any {
	return map[string]any{
		"personalInfo": map[string]any{"firstName": "Ngozi", "lastName": "Okeke", "dateOfBirth": "1990-04-01", "nationality": "NG", "phoneNumber": "+2348031234567"},
		"address":      map[string]any{"streetLine1": "1 Marina", "city": "Lagos", "state": "Lagos", "postalCode": "100001", "countryCode": "NGA"},
	}
}

// spec: "POST /v1/partners/employees/invite | { name, email, kyc: { profile } }
// | { sent, inviteUrl, error? }"; "Re-inviting the same email reissues the
// same link (no separate refresh endpoint)."
func TestInvite_ReinvitingReissuesTheSameLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := map[string]any{"name": "Ngozi Okeke", "email": "ngozi@acme.example", "kyc": map[string]any{"profile": kycProfile()}}
	first := e.want(e.call("POST", "/v1/partners/employees/invite", keyA, body), 200)
	if first.body["sent"] != true || !strings.Contains(first.body["inviteUrl"].(string), "/invite/") {
		t.Fatalf("invite %s", first.raw)
	}
	second := e.want(e.call("POST", "/v1/partners/employees/invite", keyA, map[string]any{"name": "Ngozi Okeke", "email": "NGOZI@acme.example"}), 200)
	if second.body["inviteUrl"] != first.body["inviteUrl"] {
		t.Errorf("re-invite changed the link: %v vs %v", second.body["inviteUrl"], first.body["inviteUrl"])
	}
	other := e.want(e.call("POST", "/v1/partners/employees/invite", keyB, body), 200)
	if other.body["inviteUrl"] == first.body["inviteUrl"] {
		t.Errorf("another partner's invite shares the link")
	}
	r := e.want(e.call("POST", "/v1/partners/employees/invite", keyA, map[string]any{"email": "bad"}), 400)
	if msgs, _ := r.body["message"].([]any); len(msgs) != 2 {
		t.Errorf("validation %s", r.raw)
	}
	outbox := e.want(e.call("GET", "/_sandbox/invites", "", nil), 200).list()
	if len(outbox) != 2 || outbox[0].(map[string]any)["sends"] != 2.0 {
		t.Errorf("outbox %v", outbox)
	}
}

// spec: "employee.linked payload fields: invitationId, serviceUserId,
// companyEmail, partnerName, linkedAt (ISO instant), kycSubmitted (boolean)";
// "The employer-held KYC in kyc.profile is submitted when the employee links."
func TestInvite_LinkCreatesUserSubmitsKYCAndFiresEmployeeLinked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	e.subscribe(keyA, sink.ts.URL, allPartnerEvents, nil)
	e.want(e.call("POST", "/v1/partners/employees/invite", keyA, map[string]any{"name": "Ngozi Okeke", "email": "ngozi@acme.example", "kyc": map[string]any{"profile": kycProfile()}}), 200)
	inv := e.want(e.call("GET", "/_sandbox/invites", "", nil), 200).list()[0].(map[string]any)
	// A wrong work-email code is refused and links nothing.
	e.want(e.call("POST", "/_sandbox/invites/link", "", map[string]any{"email": "ngozi@acme.example", "code": "000000x"}), 400)
	r := e.want(e.call("POST", "/_sandbox/invites/link", "", map[string]any{"email": "ngozi@acme.example", "code": inv["workEmailCode"], "selfie": true}), 200)
	userID := r.data()["serviceUserId"].(string)
	e.want(e.call("POST", "/_sandbox/invites/link", "", map[string]any{"invitationId": inv["invitationId"], "code": inv["workEmailCode"]}), 409)

	d := e.waitDelivery(keyA, "employee.linked")
	if d["status"] != "delivered" {
		t.Fatalf("delivery %v", d)
	}
	var body struct {
		Payload map[string]any `json:"payload"`
	}
	if err := json.Unmarshal(sink.hits()[0].body, &body); err != nil {
		t.Fatal(err)
	}
	p := body.Payload
	for _, f := range []string{"invitationId", "serviceUserId", "companyEmail", "partnerName", "linkedAt", "kycSubmitted"} {
		if _, ok := p[f]; !ok {
			t.Errorf("payload lacks %s: %v", f, p)
		}
	}
	if p["invitationId"] != inv["invitationId"] || p["serviceUserId"] != userID || p["companyEmail"] != "ngozi@acme.example" ||
		p["partnerName"] != "Acme" || p["kycSubmitted"] != true {
		t.Errorf("payload %v", p)
	}
	if _, err := time.Parse(time.RFC3339, p["linkedAt"].(string)); err != nil {
		t.Errorf("linkedAt %v", p["linkedAt"])
	}
	// The user exists for the partner, with the profile's names and KYC.
	u := e.want(e.call("GET", "/v1/users/lookup?email=ngozi@acme.example", keyA, nil), 200)
	if u.body["serviceUserId"] != userID || u.body["firstName"] != "Ngozi" || u.body["lastName"] != "Okeke" {
		t.Errorf("user %s", u.raw)
	}
	kyc := e.want(e.call("GET", "/v1/users/"+userID+"/kyc", keyA, nil), 200).data()
	if kyc["address"].(map[string]any)["countryCode"] != "NGA" {
		t.Errorf("kyc %v", kyc)
	}
	// Re-inviting a linked employee sends nothing.
	r = e.want(e.call("POST", "/v1/partners/employees/invite", keyA, map[string]any{"name": "Ngozi Okeke", "email": "ngozi@acme.example"}), 200)
	if r.body["sent"] != false || r.body["error"] == nil {
		t.Errorf("re-invite after link %s", r.raw)
	}
}

// An invite without an employer-held profile links with kycSubmitted false.
func TestInvite_LinkWithoutProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sink := newSink(t)
	e.subscribe(keyA, sink.ts.URL, []string{"employee.linked"}, nil)
	e.want(e.call("POST", "/v1/partners/employees/invite", keyA, map[string]any{"name": "Sam Lee Park", "email": "sam@acme.example"}), 200)
	inv := e.want(e.call("GET", "/_sandbox/invites", "", nil), 200).list()[0].(map[string]any)
	r := e.want(e.call("POST", "/_sandbox/invites/link", "", map[string]any{"email": "sam@acme.example", "code": inv["workEmailCode"]}), 200)
	if r.data()["kycSubmitted"] != false {
		t.Errorf("link %s", r.raw)
	}
	u := e.want(e.call("GET", "/v1/users/lookup?email=sam@acme.example", keyA, nil), 200)
	if u.body["firstName"] != "Sam" || u.body["lastName"] != "Lee Park" {
		t.Errorf("names from the invite name: %s", u.raw)
	}
	e.waitDelivery(keyA, "employee.linked")
}
