package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

func p2PNG() []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	return b.Bytes()
}

func p2JPEG() []byte {
	var b bytes.Buffer
	_ = jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)), nil)
	return b.Bytes()
}

var p2PDF = []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF")

type mpPart struct {
	name, filename, contentType string
	data                        []byte
}

// upload posts a multipart body. Files claim whatever content type and
// name the test gives: the sandbox must look at the bytes.
func (e *env) kycUpload(key, path string, fields map[string]string, files ...mpPart) resp {
	e.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+f.name+`"; filename="`+f.filename+`"`)
		h.Set("Content-Type", f.contentType)
		pw, _ := w.CreatePart(h)
		_, _ = pw.Write(f.data)
	}
	_ = w.Close()
	req, _ := http.NewRequest("POST", e.ts.URL+path, &buf)
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var r resp
	r.status = res.StatusCode
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	r.raw = b.Bytes()
	_ = json.Unmarshal(r.raw, &r.body)
	return r
}

func kycPath(userID, rest string) string { return "/v1/users/" + userID + "/kyc" + rest }

func (e *env) kycLookups(key, userID string) {
	e.t.Helper()
	e.want(e.call("GET", kycPath(userID, "/options"), key, nil), 200)
	e.want(e.call("GET", kycPath(userID, "/occupations?search=nurse"), key, nil), 200)
}

func (e *env) kycUploadAll(key, userID, country string) {
	e.t.Helper()
	e.want(e.kycUpload(key, kycPath(userID, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "X1234567", "issuingCountry": country},
		mpPart{"front", "id.jpg", "image/jpeg", p2JPEG()}), 201)
	e.want(e.kycUpload(key, kycPath(userID, "/documents/proof-of-address"), map[string]string{"type": "bank_statement"},
		mpPart{"file", "statement.png", "image/png", p2PNG()}), 201)
	e.want(e.kycUpload(key, kycPath(userID, "/documents/biometric"), nil, mpPart{"selfie", "me.jpg", "image/jpeg", p2JPEG()}), 201)
}

func p2GlobalProfile(country string) map[string]any {
	return map[string]any{
		"profile":       map[string]any{"personalInfo": map[string]any{"firstName": "Ada", "lastName": "Lovelace", "dateOfBirth": "1990-12-10"}},
		"address":       map[string]any{"streetLine1": "1 High St", "city": "Town", "state": "State", "postalCode": "12345", "countryCode": country},
		"employment":    map[string]any{"employmentStatus": "employed", "occupationCode": "29-1141"},
		"sourceOfFunds": "salary",
	}
}

func readinessMissing(r resp) []string {
	var out []string
	for _, m := range r.data()["missing"].([]any) {
		out = append(out, m.(string))
	}
	return out
}

// spec: "It accepts an active occupation whose display name or alias equals
// the string ignoring case and surrounding whitespace. Otherwise it accepts
// the single result if exactly one active result came back. If neither
// applies, no code resolves and employment is silently dropped while the
// call succeeds."
func TestKYC_OccupationResolutionRule(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		text, wantCode string
	}{
		{"  software DEVELOPER ", "15-1252"}, // display name, case and spaces ignored
		{"programmer", "15-1252"},            // alias
		{"pharmac", "29-1051"},               // exactly one active result
		{"software", ""},                     // several active results: dropped
		{"typist", ""},                       // only an inactive occupation: dropped
		{"astronaut", ""},                    // nothing: dropped
	}
	for _, tc := range cases {
		id := e.user(keyA)
		e.kycLookups(keyA, id)
		r := e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{
			"employment":    map[string]any{"employmentStatus": "employed", "occupation": tc.text},
			"sourceOfFunds": "salary",
		}), 200)
		_ = r
		got := e.want(e.call("GET", kycPath(id, ""), keyA, nil), 200).data()
		emp, has := got["employment"].(map[string]any)
		if tc.wantCode == "" {
			if has {
				t.Errorf("%q: employment %v, want silently dropped", tc.text, emp)
			}
			if got["sourceOfFunds"] != "salary" {
				t.Errorf("%q: the rest of the PATCH must land, got %v", tc.text, got)
			}
			continue
		}
		if !has || emp["occupationCode"] != tc.wantCode {
			t.Errorf("%q: employment %v, want code %s", tc.text, emp, tc.wantCode)
		}
	}
}

// spec: the occupations lookup returns "entries carry a code"; the sandbox
// list has at least 50 entries with codes, active flags and aliases.
func TestKYC_OccupationsLookup(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	all := e.want(e.call("GET", kycPath(id, "/occupations"), keyA, nil), 200).list()
	if len(all) < 50 {
		t.Fatalf("%d occupations, want at least 50", len(all))
	}
	inactive := 0
	for _, x := range all {
		o := x.(map[string]any)
		if o["code"] == "" || o["name"] == "" {
			t.Fatalf("entry without code or name: %v", o)
		}
		if o["active"] == false {
			inactive++
		}
	}
	if inactive == 0 {
		t.Error("no inactive occupation in the list")
	}
	hits := e.want(e.call("GET", kycPath(id, "/occupations?search=HGV"), keyA, nil), 200).list()
	if len(hits) != 1 || hits[0].(map[string]any)["code"] != "53-3032" {
		t.Errorf("alias search: %v", hits)
	}
}

// spec: "Request validation failures return message as an array with one
// entry per invalid field; the array is exhaustive."
func TestKYC_PatchValidationIsExhaustive(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	r := e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{
		"profile":               map[string]any{"personalInfo": map[string]any{"firstName": "", "dateOfBirth": "10/12/1990", "nationality": "Nigeria", "phoneNumber": "0803"}},
		"address":               map[string]any{"countryCode": "NGA", "state": "Atlantis", "postalCode": "1234"},
		"employment":            map[string]any{"employmentStatus": "astronaut", "occupationCode": "43-9022"},
		"sourceOfFunds":         "lottery",
		"accountPurpose":        "gambling",
		"identificationNumbers": []any{map[string]any{"type": "ssn", "number": "12", "issuingCountryCode": "GBR"}},
		"bvn":                   " 123 ",
	}), 400)
	msgs := r.body["message"].([]any)
	want := []string{"firstName", "dateOfBirth", "nationality", "phoneNumber", "address.state", "address.postalCode",
		"employmentStatus", "occupationCode", "sourceOfFunds", "accountPurpose", "identificationNumbers.0.number",
		"identificationNumbers.0.issuingCountryCode", "BVN must be exactly 11 digits"}
	all := strings.Join(func() []string {
		var s []string
		for _, m := range msgs {
			s = append(s, m.(string))
		}
		return s
	}(), "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no message about %s in:\n%s", w, all)
		}
	}
	if len(msgs) != len(want) {
		t.Errorf("%d messages, want %d:\n%s", len(msgs), len(want), all)
	}
	// Nothing of an invalid PATCH lands.
	got := e.want(e.call("GET", kycPath(id, ""), keyA, nil), 200).data()
	if _, ok := got["address"]; ok {
		t.Errorf("invalid PATCH partly applied: %v", got)
	}
}

// spec rule 1: "Fixed submit order: options and occupations lookups, then
// identification, proof-of-address, biometric uploads, then PATCH /kyc,
// then GET /kyc/readiness, then POST /kyc/activate, then the rail-specific
// start. Reordering returns validation errors."
func TestKYC_FixedSubmitOrder(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	w := e.wallet(keyA, id, "USDB")
	wantOrder := func(r resp) {
		t.Helper()
		e.want(r, 400)
		if _, ok := r.body["message"].([]any); !ok || !strings.Contains(r.msg(), "Fixed submit order") {
			t.Fatalf("want an order validation error, got %s", r.raw)
		}
	}
	wantOrder(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "X1", "issuingCountry": "USA"},
		mpPart{"front", "a.jpg", "image/jpeg", p2JPEG()}))
	wantOrder(e.call("PATCH", kycPath(id, ""), keyA, p2GlobalProfile("USA")))
	e.kycLookups(keyA, id)
	wantOrder(e.kycUpload(keyA, kycPath(id, "/documents/proof-of-address"), map[string]string{"type": "utility_bill"}, mpPart{"file", "a.png", "image/png", p2PNG()}))
	wantOrder(e.kycUpload(keyA, kycPath(id, "/documents/biometric"), nil, mpPart{"selfie", "a.jpg", "image/jpeg", p2JPEG()}))
	wantOrder(e.call("GET", kycPath(id, "/readiness"), keyA, nil))
	e.kycUploadAll(keyA, id, "USA")
	p := p2GlobalProfile("USA")
	p["identificationNumbers"] = []any{map[string]any{"type": "ssn", "number": "123456789", "issuingCountryCode": "USA"}}
	e.want(e.call("PATCH", kycPath(id, ""), keyA, p), 200)
	wantOrder(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}))
	wantOrder(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w.id}))
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	// A change after readiness needs readiness again.
	e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{"sourceOfFunds": "savings"}), 200)
	wantOrder(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}))
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": w.id}), 200)
}

// spec: Region KYC requirements, every row, through readiness and
// usd-readiness.
func TestKYC_RegionRequirementsTable(t *testing.T) {
	e := newEnv(t)
	type row struct {
		name, country, currency string
		patch                   map[string]any
		uploads                 bool
		wantMissing             []string
	}
	rows := []row{
		{"USD core without documents", "DEU", "USD", p2GlobalProfile("DEU"), false,
			[]string{"documents.identification", "documents.proofOfAddress", "documents.biometric"}},
		{"USA needs ssn", "USA", "USD", p2GlobalProfile("USA"), true, []string{"identificationNumbers.ssn"}},
		{"GBR needs nino", "GBR", "USD", p2GlobalProfile("GBR"), true, []string{"identificationNumbers.nino"}},
		{"NGA USD enhanced due diligence", "NGA", "USD", func() map[string]any {
			p := p2GlobalProfile("NGA")
			p["address"] = map[string]any{"streetLine1": "1 Marina", "city": "Lagos", "state": "Lagos", "postalCode": "100001", "countryCode": "NGA"}
			p["employment"] = map[string]any{"employmentStatus": "student"}
			return p
		}(), true, []string{"employment.occupationCode", "sourceOfFunds", "estimatedMonthlyVolume"}},
		{"NGA NGN stage 1", "NGA", "NGN", map[string]any{
			"profile": map[string]any{"personalInfo": map[string]any{"firstName": "Ngozi"}},
			"address": map[string]any{"state": "Lagos", "countryCode": "NGA"},
		}, false, []string{"bvn", "profile.personalInfo.phoneNumber", "profile.personalInfo.dateOfBirth", "address.postalCode"}},
		{"EUR", "FRA", "EUR", p2GlobalProfile("FRA"), true, nil},
		{"rest of world without employer or occupation", "GHA", "USD", func() map[string]any {
			p := p2GlobalProfile("GHA")
			p["employment"] = map[string]any{"employmentStatus": "self_employed"}
			return p
		}(), true, nil},
		{"MXN needs an RFC", "MEX", "MXN", p2GlobalProfile("MEX"), true, []string{"identificationNumbers.rfc"}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			id := e.user(keyA)
			e.kycLookups(keyA, id)
			if r.uploads {
				e.kycUploadAll(keyA, id, r.country)
			}
			e.want(e.call("PATCH", kycPath(id, ""), keyA, r.patch), 200)
			got := e.want(e.call("GET", kycPath(id, "/readiness?currency="+r.currency), keyA, nil), 200)
			m := readinessMissing(got)
			if strings.Join(m, ",") != strings.Join(r.wantMissing, ",") {
				t.Fatalf("missing %v, want %v", m, r.wantMissing)
			}
			if got.data()["canActivate"] != (len(r.wantMissing) == 0) {
				t.Fatalf("canActivate %v with missing %v", got.data()["canActivate"], m)
			}
		})
	}
	// spec: usd-readiness "{ ready: boolean, missing: string[] } (field
	// names match the PATCH payload)".
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	e.want(e.call("PATCH", kycPath(id, ""), keyA, map[string]any{"address": map[string]any{"countryCode": "USA"}}), 200)
	ur := e.want(e.call("GET", kycPath(id, "/usd-readiness"), keyA, nil), 200).data()
	if ur["ready"] != false || !strings.Contains(strings.Join(anyStrings(ur["missing"]), ","), "profile.personalInfo.firstName") ||
		!strings.Contains(strings.Join(anyStrings(ur["missing"]), ","), "identificationNumbers.ssn") {
		t.Fatalf("usd-readiness %v", ur)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// spec rule 3: "identityLevelName is required for USD, EUR, MXN and must be
// omitted for CAD and NGN"; rule 5: "On the Global path /kyc/activate
// detects country from the profile address"; rule 4: "Activation is per
// onboarding".
func TestKYC_ActivateIdentityLevelRule(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	e.kycUploadAll(keyA, id, "DEU")
	e.want(e.call("PATCH", kycPath(id, ""), keyA, p2GlobalProfile("DEU")), 200)
	e.want(e.call("GET", kycPath(id, "/readiness"), keyA, nil), 200)
	r := e.want(e.call("POST", kycPath(id, "/activate"), keyA, nil), 400)
	if !strings.Contains(r.msg(), "identityLevelName is required") {
		t.Fatalf("no body on the Global path: %s", r.raw)
	}
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "passport-only"}), 400)
	got := e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-and-liveness"}), 200).data()
	if got["country"] != "DEU" || got["path"] != "global" {
		t.Fatalf("activation %v", got)
	}
	// One activation opens one onboarding: EUR, then USD needs another.
	eur := e.wallet(keyA, id, "EURe")
	usd := e.wallet(keyA, id, "USDB")
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-eur-provider", keyA, map[string]any{"eurWalletAddress": eur.address, "eurWalletIndex": 0}), 200)
	r = e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": usd.id}), 400)
	if !strings.Contains(r.msg(), "activation is per onboarding") {
		t.Fatalf("second start without activation: %s", r.raw)
	}
	e.want(e.call("POST", kycPath(id, "/activate"), keyA, map[string]any{"identityLevelName": "id-only"}), 200)
	e.want(e.call("POST", "/v1/users/"+id+"/onboarding/start-usa", keyA, map[string]any{"smartWalletId": usd.id}), 200)

	// NGN: the body must be omitted.
	ng := e.user(keyA)
	e.kycLookups(keyA, ng)
	e.want(e.call("PATCH", kycPath(ng, ""), keyA, map[string]any{
		"profile": map[string]any{"personalInfo": map[string]any{"firstName": "Ngozi", "lastName": "Eze", "phoneNumber": "08031234567", "dateOfBirth": "1990-01-01"}},
		"address": map[string]any{"streetLine1": "1 Marina", "city": "Lagos", "state": "lagos state", "postalCode": "100001", "countryCode": "NGA"},
		"bvn":     "22222222222",
	}), 200)
	if rd := e.want(e.call("GET", kycPath(ng, "/readiness"), keyA, nil), 200).data(); rd["canActivate"] != true || rd["currency"] != "NGN" {
		t.Fatalf("NGN readiness %v", rd)
	}
	if got := e.want(e.call("POST", kycPath(ng, "/activate"), keyA, nil), 200).data(); got["path"] != "ngn" {
		t.Fatalf("NGN activation %v", got)
	}
}

// spec: Errors "BVN must be exactly 11 digits", "NIN must be exactly 11
// digits"; "The sandbox accepts one fixed 11-digit test BVN (the digit 2
// eleven times), which always verifies and returns fixed holder details ...
// Lookup of a number that is not a sandbox test persona returns 404."
func TestKYC_BVNAndNINLookups(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	for _, kind := range []string{"bvn", "nin"} {
		r := e.want(e.call("GET", kycPath(id, "/"+kind+"-lookup/2222222222"), keyA, nil), 400)
		if r.body["message"] != strings.ToUpper(kind)+" must be exactly 11 digits" {
			t.Errorf("%s: %s", kind, r.raw)
		}
		e.want(e.call("GET", kycPath(id, "/"+kind+"-lookup/12345678901"), keyA, nil), 404)
		a := e.want(e.call("GET", kycPath(id, "/"+kind+"-lookup/%2022222222222%20"), keyA, nil), 200).data()
		b := e.want(e.call("GET", kycPath(id, "/"+kind+"-lookup/22222222222"), keyA, nil), 200).data()
		if a["firstName"] != "Chioma" || a["lastName"] != b["lastName"] || a["dateOfBirth"] != b["dateOfBirth"] {
			t.Errorf("%s holder %v / %v", kind, a, b)
		}
	}
	// Nothing saved.
	if got := e.want(e.call("GET", kycPath(id, ""), keyA, nil), 200).data(); got["bvn"] != nil {
		t.Errorf("lookup saved the BVN: %v", got)
	}
}

// spec: "Identification: image file plus type, documentNumber,
// issuingCountry ... Accepted types: passport, drivers_license,
// national_id, government_id. A front or additional image is required."
// "Mexico: documents must be JPEG or PNG" — detected by content.
func TestKYC_DocumentUploads(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	r := e.want(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "library_card"},
		mpPart{"back", "b.jpg", "image/jpeg", p2JPEG()}), 400)
	for _, w := range []string{"type must be one of", "documentNumber should not be empty", "issuingCountry should not be empty", "front or additional image is required"} {
		if !strings.Contains(r.msg(), w) {
			t.Errorf("missing %q in %s", w, r.raw)
		}
	}
	// An additional image alone is enough; a PDF passes outside Mexico.
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "national_id", "documentNumber": "A1", "issuingCountry": "GB"},
		mpPart{"additional", "scan.pdf", "application/pdf", p2PDF}), 201)

	mx := e.user(keyA)
	e.kycLookups(keyA, mx)
	// A PDF named .jpg and labelled image/jpeg is still a PDF.
	r = e.want(e.kycUpload(keyA, kycPath(mx, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "M1", "issuingCountry": "MEX"},
		mpPart{"front", "passport.jpg", "image/jpeg", p2PDF}), 400)
	if !strings.Contains(r.msg(), "JPEG or PNG image for Mexico (got application/pdf)") {
		t.Fatalf("Mexico PDF: %s", r.raw)
	}
	// A PNG named .pdf is a PNG.
	e.want(e.kycUpload(keyA, kycPath(mx, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "M1", "issuingCountry": "MEX"},
		mpPart{"front", "passport.pdf", "application/pdf", p2PNG()}), 201)
	r = e.want(e.kycUpload(keyA, kycPath(mx, "/documents/biometric"), nil, mpPart{"selfie", "selfie.png", "image/png", []byte("GIF89a......")}), 400)
	if !strings.Contains(r.msg(), "JPEG or PNG") {
		t.Fatalf("Mexico selfie GIF: %s", r.raw)
	}
	e.want(e.kycUpload(keyA, kycPath(mx, "/documents/proof-of-address"), map[string]string{"type": "utility_bill"}), 400)
}

// spec: "The employer-held KYC in kyc.profile is submitted when the
// employee links"; "a selfie is the only possible employee action"
// (kyc.action_required).
func TestKYC_InviteLinkingWritesKYC(t *testing.T) {
	e := newEnv(t)
	sink := newSink(t)
	e.want(e.call("POST", "/v1/webhooks/config", keyA, map[string]any{"callbackUrl": sink.ts.URL, "events": []string{"kyc.action_required"},
		"partnerId": "11111111-1111-4111-8111-111111111111"}), 201)
	profile := map[string]any{
		"profile": map[string]any{"personalInfo": map[string]any{"firstName": "Ngozi", "lastName": "Okeke", "nationality": "NG"}},
		"address": map[string]any{"countryCode": "NGA", "state": "Lagos"},
	}
	e.want(e.call("POST", "/v1/partners/employees/invite", keyA, map[string]any{"name": "Ngozi Okeke", "email": "ngozi@acme.example", "kyc": map[string]any{"profile": profile}}), 200)
	inv := e.want(e.call("GET", "/_sandbox/invites", "", nil), 200).list()[0].(map[string]any)
	linked := e.want(e.call("POST", "/_sandbox/invites/link", "", map[string]any{"invitationId": inv["invitationId"], "code": inv["workEmailCode"]}), 200).data()
	uid := linked["serviceUserId"].(string)
	got := e.want(e.call("GET", kycPath(uid, ""), keyA, nil), 200).data()
	pi := got["profile"].(map[string]any)["personalInfo"].(map[string]any)
	if pi["firstName"] != "Ngozi" || got["address"].(map[string]any)["countryCode"] != "NGA" {
		t.Fatalf("GET /kyc after linking: %v", got)
	}
	if d := e.waitDelivery(keyA, "kyc.action_required"); d["status"] != "delivered" {
		t.Fatalf("kyc.action_required delivery %v", d)
	}
}

// The uploads keep a digest of the bytes that arrived, never the file: a
// test of a client can check its bytes reached the API unchanged.
func TestKYC_UploadsKeepDigestsNotFiles(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	front, poa, selfie := p2JPEG(), p2PNG(), append(p2JPEG(), 's')
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/identification"), map[string]string{"type": "passport", "documentNumber": "X1", "issuingCountry": "GBR"},
		mpPart{"front", "id.jpg", "image/jpeg", front}), 201)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/proof-of-address"), map[string]string{"type": "bank_statement"},
		mpPart{"file", "s.png", "image/png", poa}), 201)
	e.want(e.kycUpload(keyA, kycPath(id, "/documents/biometric"), nil, mpPart{"selfie", "me.jpg", "image/jpeg", selfie}), 201)
	digest := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	e.s.mu.Lock()
	k := e.s.rails().KYC[id]
	e.s.mu.Unlock()
	if k == nil || k.Identification == nil || k.ProofOfAddress == nil || k.Biometric == nil {
		t.Fatalf("uploads not recorded: %+v", k)
	}
	if got := k.Identification.SHA256; len(got) != 1 || got[0] != digest(front) {
		t.Errorf("identification digests %v, want [%s]", got, digest(front))
	}
	if k.ProofOfAddress.SHA256 != digest(poa) || k.Biometric.SHA256 != digest(selfie) {
		t.Errorf("digests %s %s, want %s %s", k.ProofOfAddress.SHA256, k.Biometric.SHA256, digest(poa), digest(selfie))
	}
}

// The refusal of a National Insurance number gives QQ123456C as its example,
// and so does the invite form: the example itself, spaced or in lower case,
// is accepted, and a number of another shape is still refused.
func TestKYC_NINOAcceptsTheExampleItsMessageGives(t *testing.T) {
	e := newEnv(t)
	id := e.user(keyA)
	e.kycLookups(keyA, id)
	nino := func(number string) map[string]any {
		return map[string]any{"identificationNumbers": []any{map[string]any{"type": "nino", "number": number, "issuingCountryCode": "GBR"}}}
	}
	for _, ok := range []string{"QQ123456C", "QQ 12 34 56 C", "ab123456d"} {
		e.want(e.call("PATCH", kycPath(id, ""), keyA, nino(ok)), 200)
	}
	for _, bad := range []string{"Q1234567C", "QQ123456E", "QQ12345C", "123456789"} {
		r := e.want(e.call("PATCH", kycPath(id, ""), keyA, nino(bad)), 400)
		if !strings.Contains(r.msg(), "such as QQ123456C") {
			t.Errorf("%s: %s", bad, r.raw)
		}
	}
}
