package sandbox

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// spec: "Every request to the API carries the header x-api-key ... A missing,
// malformed or revoked key returns 401."
func TestAuthentication_MissingMalformedOrUnknownKeyIs401(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, key := range []string{"", "   ", "not-a-key"} {
		r := e.want(e.call("POST", "/v1/users", key, map[string]any{"email": "a@example.com", "firstName": "A", "lastName": "B"}), 401)
		if r.body["message"] != "Unauthorized" || r.body["error"] != "Unauthorized" || r.body["statusCode"] != 401.0 {
			t.Errorf("key %q: body %s", key, r.raw)
		}
	}
	e.want(e.call("GET", "/v1/smart-wallets/supported-currencies", "", nil), 401)
}

// spec: "A serviceUserId is valid only for the partner whose key created it.
// Another partner's user returns 403 with 'User does not belong to this
// partner'."
func TestAuthentication_AnotherPartnersUserIs403(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	for _, path := range []string{
		"/v1/users/" + u + "/smart-wallets/account/wallets",
		"/v1/users/" + u + "/smart-wallets/account/balances",
	} {
		r := e.want(e.call("GET", path, keyB, nil), 403)
		if r.body["message"] != msgNotYourUser {
			t.Errorf("%s: %s", path, r.raw)
		}
	}
	r := e.want(e.call("POST", "/v1/users/"+u+"/reactivate", keyB, nil), 403)
	if r.body["message"] != msgNotYourUser {
		t.Errorf("reactivate: %s", r.raw)
	}
	r = e.want(e.call("GET", "/v1/users/00000000-0000-4000-8000-000000000000/smart-wallets/account/wallets", keyA, nil), 404)
	if r.body["message"] != msgUserNotFound {
		t.Errorf("unknown user: %s", r.raw)
	}
}

// spec: "Request validation failures return message as an array with one
// entry per invalid field; the array is exhaustive."
func TestCreateUser_ValidationArrayIsExhaustive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.want(e.call("POST", "/v1/users", keyA, map[string]any{"email": "nope", "phoneNumber": "x"}), 400)
	msgs, ok := r.body["message"].([]any)
	if !ok || len(msgs) != 4 {
		t.Fatalf("want 4 messages (email, firstName, lastName, phoneNumber), got %s", r.raw)
	}
	if r.body["error"] != "Bad Request" {
		t.Errorf("error %v", r.body["error"])
	}
	r = e.want(e.call("POST", "/v1/users", keyA, map[string]any{"firstName": "A", "lastName": "B"}), 400)
	if !strings.Contains(r.msg(), "email") {
		t.Errorf("email required: %s", r.raw)
	}
}

// spec: "409 | User already exists with this email | uniqueness hit on email,
// phone number or employee identifier; the message names each colliding
// field joined by and; treat as success of a prior attempt"
func TestCreateUser_UniquenessConflictNamesEveryField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.want(e.call("POST", "/v1/users", keyA, map[string]any{
		"email": "ada@example.com", "firstName": "Ada", "lastName": "L", "phoneNumber": "+2348012345678", "employeeId": "E-1",
	}), 201)
	if first.body["serviceUserId"] == "" || first.body["phoneNumber"] != "+2348012345678" || first.body["employeeId"] != "E-1" {
		t.Fatalf("created user %s", first.raw)
	}
	cases := []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"email": "ADA@example.com", "firstName": "X", "lastName": "Y"}, "User already exists with this email"},
		{map[string]any{"email": "ada@example.com", "firstName": "X", "lastName": "Y", "phoneNumber": "+234 801 234 5678"}, "User already exists with this email and phoneNumber"},
		{map[string]any{"email": "other@example.com", "firstName": "X", "lastName": "Y", "phoneNumber": "+2348012345678", "employeeId": "E-1"}, "User already exists with this phoneNumber and employeeId"},
		{map[string]any{"email": "ada@example.com", "firstName": "X", "lastName": "Y", "phoneNumber": "+2348012345678", "employeeId": "E-1"}, "User already exists with this email and phoneNumber and employeeId"},
	}
	for _, c := range cases {
		r := e.want(e.call("POST", "/v1/users", keyA, c.body), 409)
		if r.body["message"] != c.msg || r.body["error"] != "Conflict" {
			t.Errorf("got %s, want %q", r.raw, c.msg)
		}
	}
	// The 409 is recovered through the lookup extension.
	r := e.want(e.call("GET", "/v1/users/lookup?email=ada@example.com", keyA, nil), 200)
	if r.body["serviceUserId"] != first.body["serviceUserId"] {
		t.Errorf("lookup %s", r.raw)
	}
	e.want(e.call("GET", "/v1/users/lookup?email=ada@example.com", keyB, nil), 404)
	// Another partner may use the same email.
	e.want(e.call("POST", "/v1/users", keyB, map[string]any{"email": "ada@example.com", "firstName": "A", "lastName": "L"}), 201)
}

// spec: "DELETE returns 400 (code E101, statusCode 400) when any wallet holds
// a balance"; "deleted (deactivated, data retained; all user-scoped endpoints
// return 404)".
func TestDeleteUser_BalancesExistIsE101ThenDeletedUserIs404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.deposit(w.id, "1.50")
	r := e.want(e.call("DELETE", "/v1/users/"+u, keyA, nil), 400)
	if r.body["code"] != "E101" || r.body["statusCode"] != 400.0 {
		t.Fatalf("body %s", r.raw)
	}
	if _, has := r.body["error"]; has {
		t.Errorf("pass-through error carries error: %s", r.raw)
	}
	// Empty the wallet through a transfer to an external address.
	p := e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toAddress": "0x000000000000000000000000000000000000dEaD", "amount": "1.5"})
	e.want(e.call("POST", e.proposalPath(u, p["id"].(string), "approve"), keyA, nil), 200)
	e.want(e.signWith(keyA, u, p["id"].(string), w.key), 200)
	e.want(e.call("POST", "/_sandbox/settle", "", nil), 200)
	r = e.want(e.call("DELETE", "/v1/users/"+u, keyA, nil), 200)
	if r.body["success"] != true {
		t.Fatalf("delete %s", r.raw)
	}
	for _, path := range []string{
		"/v1/users/" + u + "/smart-wallets/account/wallets",
		"/v1/users/" + u + "/smart-wallets/" + w.id,
		"/v1/users/" + u + "/smart-wallets/proposals/" + p["id"].(string),
	} {
		if r := e.want(e.call("GET", path, keyA, nil), 404); r.body["message"] != msgUserNotFound {
			t.Errorf("%s: %s", path, r.raw)
		}
	}
	e.want(e.call("DELETE", "/v1/users/"+u, keyA, nil), 404)
}

// spec: "503 | balances could not be verified | account deletion; retry,
// nothing deleted"
func TestDeleteUser_BalancesUnverifiableIs503AndNothingDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user(keyA)
	e.want(e.call("POST", "/_sandbox/faults", "", map[string]any{"method": "DELETE", "route": "/v1/users/{userId}", "status": 503, "times": 1}), 201)
	r := e.want(e.call("DELETE", "/v1/users/"+u, keyA, nil), 503)
	if !strings.Contains(r.msg(), "Balances could not be verified") {
		t.Errorf("body %s", r.raw)
	}
	e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/account/wallets", keyA, nil), 200)
	e.want(e.call("DELETE", "/v1/users/"+u, keyA, nil), 200) // the retry succeeds
}

// spec, Reactivate results: within 90 days 200 restored; over 90 days 400;
// never deleted 200 already active; unknown user 404; another partner's user
// 403.
func TestReactivate_AllFiveOutcomes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	active := e.user(keyA)
	r := e.want(e.call("POST", "/v1/users/"+active+"/reactivate", keyA, nil), 200)
	if !strings.Contains(r.msg(), "already active") {
		t.Errorf("never deleted: %s", r.raw)
	}
	e.want(e.call("POST", "/v1/users/00000000-0000-4000-8000-000000000000/reactivate", keyA, nil), 404)
	e.want(e.call("POST", "/v1/users/"+active+"/reactivate", keyB, nil), 403)

	recent := e.user(keyA)
	e.want(e.call("DELETE", "/v1/users/"+recent, keyA, nil), 200)
	e.advance(89 * 24 * time.Hour)
	r = e.want(e.call("POST", "/v1/users/"+recent+"/reactivate", keyA, nil), 200)
	if r.body["success"] != true || !strings.Contains(r.msg(), "reactivated") {
		t.Errorf("within 90 days: %s", r.raw)
	}
	e.want(e.call("GET", "/v1/users/"+recent+"/smart-wallets/account/wallets", keyA, nil), 200)

	old := e.user(keyA)
	e.want(e.call("DELETE", "/v1/users/"+old, keyA, nil), 200)
	e.advance(90*24*time.Hour + time.Second)
	r = e.want(e.call("POST", "/v1/users/"+old+"/reactivate", keyA, nil), 400)
	if !strings.Contains(r.msg(), "support") {
		t.Errorf("over 90 days: %s", r.raw)
	}
	e.want(e.call("GET", "/v1/users/"+old+"/smart-wallets/account/wallets", keyA, nil), 404)
}

func TestRoutes_UnknownPathAndControlDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.Control = false })
	e.want(e.call("POST", "/_sandbox/reset", "", nil), 404)
	// spec: "A base address that includes /v1 produces /v1/v1/... and a 404."
	e.want(e.call("POST", "/v1/v1/users", keyA, nil), http.StatusNotFound)
}
