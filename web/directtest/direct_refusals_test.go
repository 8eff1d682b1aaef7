package directtest

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

const identificationRoute = "/v1/users/{userId}/kyc/documents/identification"

// TestUploadRefusals: an upload's size and type are checked before
// anything is sent, with words next to the field, and the document number
// and file are asked for again rather than drawn back; Mexico takes only
// JPEG or PNG; roles that may not write are refused and nothing reaches
// the API or the ledger.
func TestUploadRefusals(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, hr, "lupe@acme.example", "Lupe", "Garcia")
	webtest.Doc(t, env.Get(hr, kycPath(e, ""))) // the lookups
	calls := env.Sandbox.RequestCount("POST", identificationRoute)

	cases := []struct {
		name, field, want string
		fields            map[string]string
		file              filePart
	}{
		{"too large", "front", "larger than 10 MB", map[string]string{"type": "passport", "document_number": "M123", "issuing_country": "GBR"},
			filePart{"front", "big.jpg", append(jpegWith("BIG"), bytes.Repeat([]byte{0}, 10<<20)...)}},
		{"not an image", "front", "not a JPEG or PNG", map[string]string{"type": "passport", "document_number": "M123", "issuing_country": "GBR"},
			filePart{"front", "id.gif", []byte("GIF89a-not-a-photo-at-all")}},
		{"PDF for Mexico", "front", "only JPEG or PNG", map[string]string{"type": "passport", "document_number": "M123", "issuing_country": "MEX"},
			filePart{"front", "id.pdf", []byte("%PDF-1.7 scanned passport")}},
		{"no number", "document_number", "Enter the document", map[string]string{"type": "passport", "issuing_country": "GBR"},
			filePart{"front", "id.jpg", jpegWith("X")}},
	}
	for _, tc := range cases {
		resp := postMultipart(t, env, hr, kycPath(e, "/identification"), tc.fields, tc.file)
		wantStatus(t, resp, http.StatusUnprocessableEntity)
		doc := webtest.Doc(t, resp)
		field := map[string]string{"front": "#f-id-front-error", "document_number": "#f-id-number-error"}[tc.field]
		if msg := doc.Find(field).Text(); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %s says %q", tc.name, tc.field, msg)
		}
		if strings.Contains(doc.Text(), "M123") {
			t.Errorf("%s: the document number is drawn back", tc.name)
		}
		if v, _ := doc.Find(`#f-id-number`).Attr("value"); v != "" {
			t.Errorf("%s: the number field holds %q", tc.name, v)
		}
	}
	if n := env.Sandbox.RequestCount("POST", identificationRoute) - calls; n != 0 {
		t.Fatalf("%d uploads sent for refused forms", n)
	}
	if rows := auditRows(t, env, "employee.kyc.document"); len(rows) != 0 {
		t.Fatalf("audit for refused forms: %+v", rows)
	}

	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		if code := webtest.Status(t, env, c, kycPath(e, "")); code != http.StatusForbidden {
			t.Errorf("%s sees the KYC page: %d", role, code)
		}
		resp := postMultipart(t, env, c, kycPath(e, "/identification"), map[string]string{"type": "passport", "document_number": "Z1", "issuing_country": "GBR"},
			filePart{"front", "id.jpg", jpegWith("ROLE")})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s upload: %d", role, resp.StatusCode)
		}
		for _, path := range []string{"/bvn-lookup", "/nin-lookup", "/profile", "/nigeria/start"} {
			resp = env.PostForm(c, kycPath(e, path), webtest.WithFormToken(url.Values{"bvn": {sandboxBVN}, "nin": {sandboxBVN},
				"holder_confirmed": {"1"}, "first_name": {"Z"}}))
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: %d", role, path, resp.StatusCode)
			}
		}
	}
	if n := env.Sandbox.RequestCount("POST", identificationRoute) - calls; n != 0 {
		t.Fatalf("%d uploads sent by refused roles", n)
	}
	for _, route := range []string{"GET /v1/users/{userId}/kyc/bvn-lookup/{bvn}", "GET /v1/users/{userId}/kyc/nin-lookup/{nin}",
		"PATCH /v1/users/{userId}/kyc", "POST /v1/users/{userId}/kyc/activate"} {
		method, pattern, _ := strings.Cut(route, " ")
		if n := env.Sandbox.RequestCount(method, pattern); n != 0 {
			t.Errorf("%d calls of %s by refused roles", n, route)
		}
	}
	if got := webtest.AuditOutcomes(t, env, "employee.kyc.profile"); len(got) != 0 {
		t.Errorf("audit of refused roles' profiles: %v", got)
	}

	// A profile with bad input is said next to its fields and sends nothing.
	bad := nigerianProfile()
	bad.Set("postal_code", "12")
	bad.Set("date_of_birth", "15/01/1990")
	resp := env.PostForm(hr, kycPath(e, "/profile"), webtest.WithFormToken(bad))
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	doc := webtest.Doc(t, resp)
	if !strings.Contains(doc.Find(`#f-postal_code-error`).Text(), "6 digits") || !strings.Contains(doc.Find(`#f-date_of_birth-error`).Text(), "YYYY-MM-DD") {
		t.Errorf("bad profile not said next to its fields: %q", webtest.TestID(doc, "step-profile"))
	}
	if v, _ := doc.Find(`#f-bvn`).Attr("value"); v != "" || strings.Contains(doc.Text(), sandboxBVN) {
		t.Error("the BVN is drawn back into the refused profile")
	}
	if n := env.Sandbox.RequestCount("PATCH", "/v1/users/{userId}/kyc"); n != 0 {
		t.Errorf("%d PATCH /kyc for a refused profile", n)
	}
}

// TestMissingSaidNextToItsPlace: the readiness's missing fields are said in
// words next to the step that provides them: the proof of address and the
// selfie beside their uploads, the National Insurance number beside its
// field.
func TestMissingSaidNextToItsPlace(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, hr, "tom@acme.example", "Tom", "Hardy")
	doc := webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	if webtest.TestID(doc, "readiness-problem") == "" {
		t.Fatal("readiness before the profile is not explained")
	}
	resp := postMultipart(t, env, hr, kycPath(e, "/identification"), map[string]string{"type": "passport", "document_number": "GB1", "issuing_country": "GBR"},
		filePart{"front", "id.png", pngWith("GBID")})
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	profile := url.Values{"first_name": {"Tom"}, "last_name": {"Hardy"}, "date_of_birth": {"1985-03-02"}, "nationality": {"GB"},
		"country_code": {"GBR"}, "street_line1": {"1 High St"}, "city": {"London"}, "postal_code": {"SW1A 1AA"}, "employment_status": {"employed"},
		"source_of_funds": {"salary"}, "account_purpose": {"personal"}, "nino": {"AB123456C"}}
	resp = env.PostForm(hr, kycPath(e, "/profile"), webtest.WithFormToken(profile))
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()

	doc = webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	if webtest.TestID(doc, "readiness-missing") == "" {
		t.Fatalf("readiness: %q", webtest.TestID(doc, "step-readiness"))
	}
	for id, want := range map[string]string{"proof-of-address-missing": "proof of address", "biometric-missing": "selfie"} {
		if got := webtest.TestID(doc, id); !strings.Contains(got, want) {
			t.Errorf("%s says %q", id, got)
		}
	}
	if got := webtest.TestID(doc, "identification-missing"); got != "" {
		t.Errorf("the uploaded identity document is said missing: %q", got)
	}
	if v, _ := doc.Find(`#f-nino`).Attr("value"); v != "" || strings.Contains(doc.Text(), "AB123456C") {
		t.Error("the National Insurance number is drawn back")
	}
	for _, where := range inDatabase(t, env, "AB123456C") {
		t.Errorf("the National Insurance number is kept in %s", where)
	}
}

// TestUploadUnknownOutcomeReadBack: the API records an upload but its
// answer is lost; the app reads GET /kyc back, finds the document on file,
// and records the upload done, once.
func TestUploadUnknownOutcomeReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, hr, "kim@acme.example", "Kim", "Lee")
	webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": identificationRoute,
		"status": 502, "after": true, "times": 1})
	resp := postMultipart(t, env, hr, kycPath(e, "/identification"), map[string]string{"type": "passport", "document_number": "K1", "issuing_country": "GBR"},
		filePart{"front", "id.jpg", jpegWith("KIM")})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d after a lost answer read back as recorded", resp.StatusCode)
	}
	if n := env.Sandbox.RequestCount("POST", identificationRoute); n != 1 {
		t.Fatalf("%d upload calls", n)
	}
	rows := auditRows(t, env, "employee.kyc.document")
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "GET /kyc shows it on file") {
		t.Fatalf("audit %+v", rows)
	}
}

// TestActionRequiredOnTheEmployeePage: when the API asks for a document,
// the employee's page offers HR the upload; when it asks for a selfie, it
// says that is the employee's own step and offers no upload. Support, who
// may not write, is offered nothing.
func TestActionRequiredOnTheEmployeePage(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	ctx := context.Background()
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	support, _ := env.SignedIn(store.RoleSupport)
	e := addDirect(t, env, hr, "mx@acme.example", "Ana", "Ruiz")
	page := "/employees/" + itoa(e.ID)

	deliver := func(id string, payload map[string]any) {
		t.Helper()
		if code := webtest.MustDeliver(t, env, secret, id, webtest.EventBody(id, apiclient.EventKYCActionRequired, payload)); code != http.StatusOK {
			t.Fatalf("deliver %s: %d", id, code)
		}
		if err := env.App.Webhooks().ProcessEvent(ctx, webtest.EventByWebhookID(t, env, id).ID, false); err != nil {
			t.Fatal(err)
		}
	}
	deliver("wh-doc", map[string]any{"serviceUserId": e.ServiceUserID, "action": "document", "currency": "MXN",
		"reason": "Upload a JPEG or PNG document and activate Mexico KYC again"})
	doc := webtest.Doc(t, env.Get(hr, page))
	if href, _ := doc.Find(`[data-testid="asked-upload"]`).Attr("href"); href != kycPath(e, "") {
		t.Fatalf("no upload offered for a document: %q (%s)", href, webtest.TestID(doc, "action-required-panel"))
	}
	if webtest.TestID(doc, "asked-selfie") != "" {
		t.Error("a document request is said to be a selfie")
	}
	if doc := webtest.Doc(t, env.Get(support, page)); doc.Find(`[data-testid="asked-upload"]`).Length() != 0 {
		t.Error("support is offered the upload")
	}

	deliver("wh-selfie", map[string]any{"serviceUserId": e.ServiceUserID, "action": "selfie", "reason": "A selfie is needed in the app to complete identity verification"})
	doc = webtest.Doc(t, env.Get(hr, page))
	if got := webtest.TestID(doc, "asked-selfie"); !strings.Contains(got, "employee's own step") {
		t.Fatalf("selfie request says %q", got)
	}
	if doc.Find(`[data-testid="asked-upload"]`).Length() != 0 {
		t.Error("an upload is offered for a selfie")
	}
}

// TestNINLookupBeforeFirstCard: the NIN lookup shows the holder's name and
// leads to the card form; the number is not drawn back or kept; an unknown
// NIN is said so.
func TestNINLookupBeforeFirstCard(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, hr, "emeka@acme.example", "Emeka", "Nwosu")
	resp := env.PostForm(hr, kycPath(e, "/nin-lookup"), webtest.WithFormToken(url.Values{"nin": {sandboxBVN}}))
	wantStatus(t, resp, http.StatusOK)
	doc := webtest.Doc(t, resp)
	if name := webtest.TestID(doc, "nin-holder-name"); name != "Chioma Adaeze Okonkwo" {
		t.Fatalf("holder %q", name)
	}
	if !strings.Contains(webtest.TestID(doc, "nin-holder"), "not the name on this employee's record") {
		t.Error("a holder who is not the employee is not flagged")
	}
	if href, _ := doc.Find(`[data-testid="to-card-issue"]`).Attr("href"); href != "/cards/issue" {
		t.Errorf("no way on to the card: %q", href)
	}
	if strings.Contains(doc.Text(), sandboxBVN) {
		t.Error("the NIN is drawn back")
	}
	resp = env.PostForm(hr, kycPath(e, "/nin-lookup"), webtest.WithFormToken(url.Values{"nin": {"12345678901"}}))
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	if got := webtest.TestID(webtest.Doc(t, resp), "nin-problem"); !strings.Contains(got, "knows no one with this NIN") {
		t.Fatalf("unknown NIN says %q", got)
	}
	for _, s := range []string{sandboxBVN, "12345678901", "Adaeze"} {
		if where := inDatabase(t, env, s); len(where) > 0 {
			t.Errorf("%q kept in %v", s, where)
		}
		if strings.Contains(env.Logs.String(), s) {
			t.Errorf("%q in the log", s)
		}
	}
}

// TestOccupationNotConfirmed: spec, employment can be "silently dropped
// while the call succeeds", so the profile's occupation is confirmed with
// GET /kyc; when that confirmation fails, the page says the occupation
// must be sent again, next to it, and the audit row says it was not
// confirmed.
func TestOccupationNotConfirmed(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, hr, "occ@acme.example", "Chioma", "Okonkwo")
	webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": "/v1/users/{userId}/kyc", "status": 500})
	resp := env.PostForm(hr, kycPath(e, "/profile"), webtest.WithFormToken(nigerianProfile()))
	webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
	wantStatus(t, resp, http.StatusOK)
	doc := webtest.Doc(t, resp)
	if webtest.TestID(doc, "occupation-not-landed") == "" || !strings.Contains(doc.Find(`#f-occupation_code-error`).Text(), "choose it from the list again") {
		t.Fatalf("not said: %q", webtest.TestID(doc, "step-profile"))
	}
	rows := auditRows(t, env, "employee.kyc.profile")
	if len(rows) != 1 || !strings.Contains(rows[0].Detail, "could not be confirmed") {
		t.Fatalf("audit %+v", rows)
	}
}
