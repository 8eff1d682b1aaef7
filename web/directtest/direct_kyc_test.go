package directtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// nigerianProfile is a complete profile of someone living in Nigeria, with
// the sandbox's test BVN.
func nigerianProfile() url.Values {
	return url.Values{"first_name": {"Chioma"}, "last_name": {"Okonkwo"}, "date_of_birth": {"1990-01-15"}, "nationality": {"NG"},
		"phone_number": {"+2348031234567"}, "country_code": {"NGA"}, "street_line1": {"12 Marina Road"}, "city": {"Lagos"},
		"state": {"Lagos"}, "postal_code": {"100001"}, "employment_status": {"employed"}, "occupation_code": {"29-1141"},
		"source_of_funds": {"salary"}, "estimated_monthly_volume": {"1500"}, "account_purpose": {"personal"}, "bvn": {sandboxBVN}}
}

// sandboxBVN is the spec's sandbox test BVN: "the digit 2 eleven times".
const sandboxBVN = "22222222222"

// TestKYCWalkUploadsAndNigeriaStart walks a directly added employee through
// the spec's fixed order: the page makes the lookups; the identity
// document, proof of address and selfie are uploaded as multipart files
// whose bytes reach the sandbox unchanged (its digests) while nothing of
// them — bytes, document number — is in any table or the log; the profile
// is sent and its occupation confirmed; the readiness says ready; the NGN
// start needs the BVN lookup, which shows the holder's name, the holder's
// confirmation and the BVN typed again; then the KYC activation and
// start-nigeria are sent once. The BVN is in no table and no log.
func TestKYCWalkUploadsAndNigeriaStart(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	ctx := context.Background()
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := addDirect(t, env, hr, "chioma@acme.example", "Chioma", "Okonkwo")

	doc := webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	if webtest.TestID(doc, "lookups-done") == "" {
		t.Fatalf("lookups not made: %s", webtest.TestID(doc, "lookups-problem"))
	}
	if env.Sandbox.RequestCount("GET", "/v1/users/{userId}/kyc/options") != 1 || env.Sandbox.RequestCount("GET", "/v1/users/{userId}/kyc/occupations") != 1 {
		t.Fatal("the page did not make the options and occupations lookups")
	}

	const docNumber = "A7731QZ9"
	front, poa, selfie := jpegWith("FRONTMARK-41x9"), pngWith("POAMARK-77k2"), jpegWith("SELFIEMARK-03m5")
	resp := postMultipart(t, env, hr, kycPath(e, "/identification"),
		map[string]string{"type": "passport", "document_number": docNumber, "issuing_country": "NGA"}, filePart{"front", "chioma-passport.jpg", front})
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	resp = postMultipart(t, env, hr, kycPath(e, "/proof-of-address"), map[string]string{"type": "utility_bill"}, filePart{"file", "bill.png", poa})
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	resp = postMultipart(t, env, hr, kycPath(e, "/biometric"), nil, filePart{"selfie", "me.jpg", selfie})
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()

	// Once a document is on file the order is kept: a view makes no more
	// occupations lookups (the profile's picker searches them).
	occupations := env.Sandbox.RequestCount("GET", "/v1/users/{userId}/kyc/occupations")
	doc = webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	if n := env.Sandbox.RequestCount("GET", "/v1/users/{userId}/kyc/occupations") - occupations; n != 0 || webtest.TestID(doc, "lookups-done") == "" {
		t.Fatalf("a view after the uploads made %d occupations lookups", n)
	}
	if doc.Find(`[data-testid="profile-form"] [hx-get="/employees/occupations"]`).Length() != 1 {
		t.Fatal("the profile has no occupation picker")
	}
	k := sandboxKYC(t, env, e.ServiceUserID)
	id, _ := k["identification"].(map[string]any)
	if id == nil || id["documentNumber"] != docNumber {
		t.Fatalf("identification at the sandbox: %v", k["identification"])
	}
	if got, _ := id["sha256"].([]any); len(got) != 1 || got[0] != digest(front) {
		t.Errorf("front's bytes changed on the way: %v", id["sha256"])
	}
	for name, want := range map[string][]byte{"proofOfAddress": poa, "biometric": selfie} {
		f, _ := k[name].(map[string]any)
		if f == nil || f["sha256"] != digest(want) {
			t.Errorf("%s's bytes changed on the way: %v", name, k[name])
		}
	}
	for _, secret := range []string{docNumber, "FRONTMARK-41x9", "POAMARK-77k2", "SELFIEMARK-03m5", digest(front), "chioma-passport"} {
		if tables := inDatabase(t, env, secret); len(tables) > 0 {
			t.Errorf("%q is kept in %v", secret, tables)
		}
		if strings.Contains(env.Logs.String(), secret) {
			t.Errorf("%q is in the log", secret)
		}
	}
	rows := auditRows(t, env, "employee.kyc.document")
	if len(rows) != 3 {
		t.Fatalf("audit rows %+v", rows)
	}
	doc = webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	for _, id := range []string{"identification-on-file", "proof-of-address-on-file", "biometric-on-file"} {
		if webtest.TestID(doc, id) == "" {
			t.Errorf("%s not said", id)
		}
	}
	if strings.Contains(doc.Text(), docNumber) {
		t.Error("the document number is drawn back into the page")
	}

	resp = env.PostForm(hr, kycPath(e, "/profile"), webtest.WithFormToken(nigerianProfile()))
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	if rows := auditRows(t, env, "employee.kyc.profile"); len(rows) != 1 || !strings.Contains(rows[0].Detail, "confirmed by GET /kyc") {
		t.Fatalf("profile audit %+v", rows)
	}
	doc = webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	if webtest.TestID(doc, "readiness-ready") == "" {
		t.Fatalf("readiness: %q %q", webtest.TestID(doc, "readiness-missing"), webtest.TestID(doc, "readiness-problem"))
	}
	if why := webtest.TestID(doc, "direct-rail-why-NGN"); !strings.Contains(why, "no CNGN wallet") {
		t.Fatalf("NGN without a wallet says %q", why)
	}

	createWallet(t, env, e.ServiceUserID, apiclient.CNGN)
	resp = env.PostForm(hr, "/employees/"+itoa(e.ID)+"/refresh", webtest.WithFormToken(url.Values{}))
	resp.Body.Close()
	doc = webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	if doc.Find(`[data-testid="bvn-form"]`).Length() != 1 || doc.Find(`[data-testid="ngn-start-form"]`).Length() != 0 {
		t.Fatal("the NGN start is offered before the BVN lookup")
	}

	// A mistyped BVN is said next to the field and never drawn back.
	resp = env.PostForm(hr, kycPath(e, "/bvn-lookup"), webtest.WithFormToken(url.Values{"bvn": {"2222"}}))
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	doc = webtest.Doc(t, resp)
	if msg := doc.Find(`#f-bvn-lookup-error`).Text(); !strings.Contains(msg, "11 digits") {
		t.Fatalf("BVN field says %q", msg)
	}
	resp = env.PostForm(hr, kycPath(e, "/bvn-lookup"), webtest.WithFormToken(url.Values{"bvn": {sandboxBVN}}))
	wantStatus(t, resp, http.StatusOK)
	doc = webtest.Doc(t, resp)
	if name := webtest.TestID(doc, "bvn-holder-name"); name != "Chioma Adaeze Okonkwo" {
		t.Fatalf("holder %q", name)
	}
	start := doc.Find(`[data-testid="ngn-start-form"]`)
	if start.Length() != 1 {
		t.Fatal("no NGN start after the lookup")
	}
	if v, _ := start.Find(`input[name="bvn"]`).Attr("value"); v != "" || strings.Contains(doc.Text(), sandboxBVN) {
		t.Fatal("the BVN is drawn back into the page")
	}
	token, _ := start.Find(`input[name="form_token"]`).Attr("value")
	holder, _ := start.Find(`input[name="holder"]`).Attr("value")

	// Not confirmed: nothing is sent.
	starts := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/onboarding/start-nigeria")
	resp = env.PostForm(hr, kycPath(e, "/nigeria/start"), url.Values{"form_token": {token}, "holder": {holder}, "bvn": {sandboxBVN}})
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	doc = webtest.Doc(t, resp)
	if msg := doc.Find(`#f-holder-confirm-error`).Text(); !strings.Contains(msg, "Tick the box") {
		t.Fatalf("confirmation field says %q", msg)
	}
	resp = env.PostForm(hr, kycPath(e, "/nigeria/start"), url.Values{"form_token": {token}, "holder": {holder}, "bvn": {sandboxBVN}, "holder_confirmed": {"1"}})
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	if n := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/onboarding/start-nigeria") - starts; n != 1 {
		t.Fatalf("%d start-nigeria calls", n)
	}
	st, err := env.API.GetOnboardingStatus(ctx, e.ServiceUserID)
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Currencies[apiclient.NGN]; !s.Active && !strings.EqualFold(s.Status, "active") {
		t.Fatalf("NGN after the start: %+v", s)
	}
	if rows := auditRows(t, env, "employee.onboarding.start"); len(rows) != 1 || !strings.Contains(rows[0].Detail, "start-nigeria") {
		t.Fatalf("start audit %+v", rows)
	}
	for _, where := range inDatabase(t, env, sandboxBVN) {
		t.Errorf("the BVN is kept in %s", where)
	}
	if strings.Contains(env.Logs.String(), sandboxBVN) || strings.Contains(env.Logs.String(), "Adaeze") {
		t.Error("the BVN or its holder is in the log")
	}

	// spec rule 4: another currency is activated again before its start,
	// without repeating the wizard: USD from the same page.
	createWallet(t, env, e.ServiceUserID, apiclient.USDB)
	resp = env.PostForm(hr, "/employees/"+itoa(e.ID)+"/refresh", webtest.WithFormToken(url.Values{}))
	resp.Body.Close()
	doc = webtest.Doc(t, env.Get(hr, kycPath(e, "")))
	usd := doc.Find(`[data-testid="start-form-USD"]`)
	if usd.Length() != 1 {
		t.Fatalf("no USD start on the KYC page: %q", webtest.TestID(doc, "direct-rail-USD"))
	}
	token, _ = usd.Find(`input[name="form_token"]`).Attr("value")
	activations := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/kyc/activate")
	resp = env.PostForm(hr, "/employees/"+itoa(e.ID)+"/onboarding/USD/start", url.Values{"form_token": {token}, "identity_level": {apiclient.IdentityLevelIDAndLiveness}})
	wantStatus(t, resp, http.StatusSeeOther)
	resp.Body.Close()
	if env.Sandbox.RequestCount("POST", "/v1/users/{userId}/kyc/activate")-activations != 1 || env.Sandbox.RequestCount("POST", "/v1/users/{userId}/onboarding/start-usa") != 1 {
		t.Fatal("USD was not activated and started once")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
