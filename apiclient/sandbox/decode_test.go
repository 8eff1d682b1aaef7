package sandbox

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func messages(t *testing.T, r resp) []string {
	t.Helper()
	raw, ok := r.body["message"].([]any)
	if !ok {
		t.Fatalf("message is not an array: %s", r.raw)
	}
	out := make([]string, len(raw))
	for i, m := range raw {
		out[i], _ = m.(string)
	}
	return out
}

// spec: "Request validation failures return message as an array with one
// entry per invalid field; the array is exhaustive." A field of the wrong
// JSON type is one of those entries: it sits next to the route's own
// messages about the other fields, on every JSON route.
func TestValidation_TypeMessagesJoinTheRouteMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	e.kycLookups(keyA, u)
	tests := []struct {
		name, method, path, body string
		want                     []string
	}{
		{
			name: "create user", method: "POST", path: "/v1/users",
			body: `{"email":5,"firstName":"","lastName":"Lovelace"}`,
			// Not also "email should not be empty": the mistyped email
			// already has its entry.
			want: []string{"email must be a string", "firstName should not be empty"},
		},
		{
			name: "KYC patch", method: "PATCH", path: kycPath(u, ""),
			body: `{"estimatedMonthlyVolume":"lots","address":{"countryCode":"NGA","postalCode":"12"}}`,
			want: []string{"estimatedMonthlyVolume must be a number", "address.postalCode must be exactly 6 digits for Nigeria"},
		},
		{
			name: "KYC patch, nested and in an array", method: "PATCH", path: kycPath(u, ""),
			body: `{"profile":{"personalInfo":{"firstName":7,"lastName":""}},"address":{"postalCode":false},` +
				`"identificationNumbers":[{"type":1,"number":"123456789","issuingCountryCode":"USA"}]}`,
			want: []string{
				"profile.personalInfo.firstName must be a string", "address.postalCode must be a string",
				"identificationNumbers.0.type must be a string", "profile.personalInfo.lastName should not be empty",
			},
		},
		{
			name: "proposal create", method: "POST", path: "/v1/users/" + u + "/smart-wallets/" + w.id + "/proposals",
			body: `{"proposal":{"type":"TRANSFER","toUserId":"` + to + `","amount":"-1","description":7}}`,
			want: []string{"proposal.description must be a string", "amount must be a positive decimal string"},
		},
		{
			name: "card create", method: "POST", path: "/v1/users/" + u + "/cards",
			body: `{"cardName":12,"cardColor":"blue","currency":"USD","type":"virtual","smartWalletId":"` + w.id + `"}`,
			want: []string{"cardName must be a string", "cardColor must be a hex colour #RGB or #RRGGBB"},
		},
		{
			name: "webhook config", method: "POST", path: "/v1/webhooks/config",
			body: `{"callbackUrl":42,"events":["employee.linked",3]}`,
			want: []string{"callbackUrl must be a string", "events.1 must be a string"},
		},
		{
			name: "onboarding start, integer index", method: "POST", path: "/v1/users/" + u + "/onboarding/start-canada",
			body: `{"cadWalletAddress":"not an address","cadWalletIndex":"0"}`,
			want: []string{"cadWalletIndex must be an integer", "cadWalletAddress must be a 0x-prefixed 20-byte address"},
		},
		{
			name: "control API fault", method: "POST", path: "/_sandbox/faults",
			body: `{"route":"*","status":503,"drop":"yes","rate":2}`,
			want: []string{"drop must be a boolean", "rate must be greater than 0 and at most 1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := keyA
			if tc.path == "/_sandbox/faults" {
				key = ""
			}
			r := e.want(e.call(tc.method, tc.path, key, tc.body), 400)
			if got := messages(t, r); !slices.Equal(got, tc.want) {
				t.Errorf("messages\n got %q\nwant %q", got, tc.want)
			}
			if r.body["error"] != "Bad Request" || r.body["statusCode"] != 400.0 {
				t.Errorf("error body %s", r.raw)
			}
		})
	}
}

// A mistyped field makes the request invalid even when the route would accept
// the field's zero value or answer something else: nothing lands, and the
// answer is the 400.
func TestValidation_MistypedRequestChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, to := e.user(keyA), e.user(keyA)
	w := e.wallet(keyA, u, "USDB")
	e.wallet(keyA, to, "USDB")
	e.deposit(w.id, "50")
	e.kycLookups(keyA, u)

	// phoneNumber is optional: left zero, the user would be created.
	r := e.want(e.call("POST", "/v1/users", keyA, `{"email":"grace@example.com","firstName":"Grace","lastName":"Hopper","phoneNumber":2348012345678}`), 400)
	if got := messages(t, r); !slices.Equal(got, []string{"phoneNumber must be a string"}) {
		t.Errorf("messages %q", got)
	}
	e.want(e.call("GET", "/v1/users/lookup?email=grace@example.com", keyA, nil), 404)

	// The same email again would be a 409; the mistyped field comes first.
	e.want(e.call("POST", "/v1/users", keyA, map[string]any{"email": "ada@example.com", "firstName": "Ada", "lastName": "L"}), 201)
	r = e.want(e.call("POST", "/v1/users", keyA, `{"email":"ada@example.com","firstName":"Ada","lastName":"L","employeeId":7}`), 400)
	if got := messages(t, r); !slices.Equal(got, []string{"employeeId must be a string"}) {
		t.Errorf("messages %q", got)
	}

	// A valid address next to a mistyped flag: the address does not land.
	e.want(e.call("PATCH", kycPath(u, ""), keyA, `{"address":{"countryCode":"USA","city":"Austin"},"actingAsIntermediary":"no"}`), 400)
	k := e.want(e.call("GET", kycPath(u, ""), keyA, nil), 200).data()
	if k["address"] != nil {
		t.Errorf("address of a rejected PATCH landed: %v", k["address"])
	}

	// A transfer valid but for its description: no proposal, no hold.
	e.want(e.call("POST", "/v1/users/"+u+"/smart-wallets/"+w.id+"/proposals", keyA,
		`{"proposal":{"type":"TRANSFER","toUserId":"`+to+`","amount":"10","description":["rent"]}}`), 400)
	if n := len(e.want(e.call("GET", "/v1/users/"+u+"/smart-wallets/"+w.id+"/proposals", keyA, nil), 200).list()); n != 0 {
		t.Errorf("%d proposals after a rejected create", n)
	}

	// The sandbox still works after putting its state back.
	e.propose(keyA, u, w.id, map[string]any{"type": "TRANSFER", "toUserId": to, "amount": "10"})
	e.want(e.call("GET", "/v1/users/lookup?email=ada@example.com", keyA, nil), 200)
}

// A body that is not a JSON object at all still gets the one message.
func TestValidation_BodyNotAnObject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, body := range []string{`[]`, `"ada@example.com"`, `5`, `{"email":`, `{"email":"a@example.com"} {}`} {
		r := e.want(e.call("POST", "/v1/users", keyA, body), 400)
		if got := messages(t, r); !slices.Equal(got, []string{msgNotObject}) {
			t.Errorf("%s: messages %q", body, got)
		}
	}
	// An empty body is {}.
	r := e.want(e.call("POST", "/v1/users", keyA, ""), 400)
	if got := messages(t, r); !slices.Contains(got, "email should not be empty") {
		t.Errorf("empty body: messages %q", got)
	}
}

// fieldDecoder reads what encoding/json reads and reports every mistyped
// value instead of the first.
func TestFieldDecoder(t *testing.T) {
	t.Parallel()
	type inner struct {
		N int `json:"n"`
	}
	type Base struct {
		ID string `json:"id"`
	}
	type target struct {
		Base
		Name  string          `json:"name"`
		Ptr   *string         `json:"ptr"`
		Skip  string          `json:"-"`
		Raw   json.RawMessage `json:"raw"`
		Num   json.Number     `json:"num"`
		Items []inner         `json:"items"`
		Tags  []string        `json:"tags"`
		Inner *inner          `json:"inner"`
		Flag  bool            `json:"flag"`
		Extra map[string]any  `json:"extra"`
		Plain string
		//lint:ignore U1000 an unexported field the decoder must leave alone
		hidden string
	}
	tests := []struct {
		name string
		body string
		want target
		msgs []string
	}{
		{
			name: "all well typed, keys in any case, unknown keys ignored",
			body: `{"ID":"x","name":"a","ptr":"p","-":"no","raw":{"k":1},"num":1.5,"items":[{"n":1}],"tags":["t"],` +
				`"inner":{"n":2},"flag":true,"extra":{"a":1},"plain":"q","hidden":"h","other":0}`,
			want: target{Base: Base{ID: "x"}, Name: "a", Ptr: new("p"), Raw: json.RawMessage(`{"k":1}`), Num: "1.5",
				Items: []inner{{N: 1}}, Tags: []string{"t"}, Inner: &inner{N: 2}, Flag: true, Extra: map[string]any{"a": 1.0}, Plain: "q"},
		},
		{
			name: "every mistyped value reported and left zero, the rest read",
			body: `{"id":1,"name":"a","ptr":2,"num":"3","items":[{"n":"x"},{"n":1.5},{"n":4}],"tags":"t",` +
				`"inner":[],"flag":"true","extra":[]}`,
			want: target{Name: "a", Items: []inner{{}, {}, {N: 4}}},
			msgs: []string{"id must be a string", "ptr must be a string", "num must be a number", "items.0.n must be an integer",
				"items.1.n must be an integer", "tags must be an array", "inner must be an object", "flag must be a boolean", "extra must be an object"},
		},
		{
			name: "null clears pointers and slices and reaches a RawMessage",
			body: `{"ptr":null,"tags":null,"raw":null,"name":null}`,
			want: target{Raw: json.RawMessage("null")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got target
			var d fieldDecoder
			if !d.value([]byte(tc.body), reflect.ValueOf(&got).Elem(), "") {
				t.Fatal("object refused")
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decoded\n got %+v\nwant %+v", got, tc.want)
			}
			if !slices.Equal(d.msgs, tc.msgs) {
				t.Errorf("messages\n got %q\nwant %q", d.msgs, tc.msgs)
			}
			// What decodes cleanly decodes as encoding/json would.
			if len(tc.msgs) == 0 {
				var std target
				if err := json.Unmarshal([]byte(tc.body), &std); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, std) {
					t.Errorf("differs from encoding/json\n got %+v\n std %+v", got, std)
				}
			}
		})
	}
}
