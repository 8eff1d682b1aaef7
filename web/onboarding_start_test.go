package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/employees"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The persona BVN the sandbox accepts (spec: "the digit 2 eleven times").
const testBVN = "22222222222"

// startRoutes are the spec's rail start endpoints by currency.
var startRoutes = map[string]string{
	"USD": "/v1/users/{userId}/onboarding/start-usa",
	"EUR": "/v1/users/{userId}/onboarding/start-eur-provider",
	"NGN": "/v1/users/{userId}/onboarding/start-nigeria",
	"MXN": "/v1/users/{userId}/onboarding/start-mexico",
	"CAD": "/v1/users/{userId}/onboarding/start-canada",
}

const (
	routeActivate   = "/v1/users/{userId}/kyc/activate"
	routeMXActivate = "/v1/users/{userId}/latam/mx/kyc/activate"
	routeMXLaunch   = "/v1/users/{userId}/latam/mx/kyc/launch/agreements"
)

func testPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

func testJPEG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(2, 2, color.RGBA{10, 200, 10, 255})
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, nil)
	return b.Bytes()
}

// readyEmployee makes, at the sandbox, a user of the country with a smart
// wallet in each coin and the KYC the country's rail needs, then imports
// them into the app (which reads their onboarding): they are "ready".
func readyEmployee(t *testing.T, env *webtest.Env, email, country string, coins ...apiclient.Stablecoin) store.Employee {
	t.Helper()
	ctx := context.Background()
	api := env.API
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	first, last := "Test", strings.ToUpper(country[:1])+strings.ToLower(country[1:])
	u, err := api.CreateUser(ctx, apiclient.CreateUserRequest{Email: email, FirstName: first, LastName: last})
	must(err)
	id := u.ServiceUserID
	key, err := ethsig.GenerateKey()
	must(err)
	owner := ethsig.KeyAddress(key).Hex()
	seen := map[apiclient.Stablecoin]bool{}
	for _, coin := range coins {
		if seen[coin] {
			continue
		}
		seen[coin] = true
		ch, err := api.CreateOwnerProofChallenge(ctx, id, apiclient.OwnerProofChallengeRequest{Currency: coin, UserOwnerAddress: owner})
		must(err)
		_, err = api.CreateManagedWallet(ctx, id, apiclient.CreateManagedWalletRequest{Currency: coin, UserOwnerAddress: owner,
			OwnerProofChallengeID: ch.ChallengeID, OwnerProofSignature: ethsig.SignMessage(key, []byte(ch.Message)).Hex()})
		must(err)
	}
	// spec rule 1: the lookups come first.
	_, err = api.GetKYCOptions(ctx, id)
	must(err)
	occ, err := api.SearchOccupations(ctx, id, "software engineer")
	must(err)
	personal := &apiclient.KYCPersonalProfile{PersonalInfo: &apiclient.PersonalInfo{FirstName: first, LastName: last, DateOfBirth: "1990-05-17",
		PhoneNumber: "08031234567"}}
	switch country {
	case "NGA":
		must(api.UpdateKYC(ctx, id, apiclient.KYCProfile{Profile: personal, BVN: testBVN,
			Address: &apiclient.KYCAddress{StreetLine1: "12 Admiralty Way", City: "Lekki", State: "Lagos", PostalCode: "106104", CountryCode: "NGA"}}))
	case "CAN":
		must(api.UploadIdentification(ctx, id, apiclient.IdentificationUpload{Type: apiclient.DocumentDriversLicense,
			DocumentNumber: "T1234-56789-01234", IssuingCountry: "CAN", Front: &apiclient.File{Data: testPNG()}, Back: &apiclient.File{Data: testPNG()}}))
		must(api.UpdateKYC(ctx, id, apiclient.KYCProfile{Profile: personal,
			Address: &apiclient.KYCAddress{StreetLine1: "100 Rue Sainte-Catherine", City: "Montréal", State: "QC", PostalCode: "H2X 1Z6", CountryCode: "CAN"}}))
	default: // the Global path: GBR or MEX
		must(api.UploadIdentification(ctx, id, apiclient.IdentificationUpload{Type: apiclient.DocumentPassport,
			DocumentNumber: "P" + strings.ToUpper(id[:8]), IssuingCountry: country, ExpirationDate: "2031-01-01",
			Front: &apiclient.File{Name: "passport.jpg", Data: testJPEG()}}))
		must(api.UploadProofOfAddress(ctx, id, apiclient.ProofOfAddressUpload{Type: "utility_bill", File: &apiclient.File{Name: "bill.png", Data: testPNG()}}))
		must(api.UploadBiometric(ctx, id, apiclient.BiometricUpload{Selfie: &apiclient.File{Name: "selfie.jpg", Data: testJPEG()}}))
		p := apiclient.KYCProfile{Profile: personal, SourceOfFunds: "salary",
			Employment:            &apiclient.KYCEmployment{EmploymentStatus: "employed", OccupationCode: occ[0].Code, EmployerName: "Acme"},
			Address:               &apiclient.KYCAddress{StreetLine1: "1 High St", City: "London", State: "London", PostalCode: "SW1A 1AA", CountryCode: "GBR"},
			IdentificationNumbers: []apiclient.IdentificationNumber{{Type: "nino", Number: "AB123456C", IssuingCountryCode: "GBR"}}}
		if country == "MEX" {
			p.Address = &apiclient.KYCAddress{StreetLine1: "Av. Reforma 100", City: "Ciudad de México", State: "CDMX", PostalCode: "06600", CountryCode: "MEX"}
			p.IdentificationNumbers = []apiclient.IdentificationNumber{{Type: "rfc", Number: "HELU900517AB1", IssuingCountryCode: "MEX"}}
		}
		must(api.UpdateKYC(ctx, id, p))
	}
	syncer := &userstate.Syncer{API: api, Store: env.Store, Now: time.Now}
	if _, err := syncer.Import(ctx, []store.Employee{{ServiceUserID: id, Email: email, FirstName: first, LastName: last, Country: country,
		InviteState: store.InviteLinked}}); err != nil {
		t.Fatal(err)
	}
	e, err := env.Store.EmployeeByEmail(ctx, email)
	must(err)
	return e
}

func readiness(t *testing.T, env *webtest.Env, id int64, currency string) string {
	t.Helper()
	cells, err := env.Store.ReadinessOf(context.Background(), []int64{id})
	if err != nil {
		t.Fatal(err)
	}
	return cells[id][currency].State
}

func startPath(id int64, currency string) string {
	return fmt.Sprintf("/employees/%d/onboarding/%s/start", id, strings.ToLower(currency))
}

// grepDatabase counts the rows of every table of the app's schema whose
// text holds s.
func grepDatabase(t *testing.T, env *webtest.Env, s string) map[string]int {
	t.Helper()
	ctx := context.Background()
	rows, err := env.Store.Pool().Query(ctx, `SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, fmt.Sprintf("%q.%q", schema, name))
	}
	rows.Close()
	if len(tables) < 10 {
		t.Fatalf("only %d tables found", len(tables))
	}
	found := map[string]int{}
	for _, tbl := range tables {
		var n int
		if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM `+tbl+` t WHERE t::text LIKE '%' || $1 || '%'`, s).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			found[tbl] = n
		}
	}
	return found
}

// TestOnboardingStartEachCurrency: per currency, the employee page offers a
// start while the currency is ready; a double submit and a second form
// send one activation and one start; the cell then shows the rail begun.
func TestOnboardingStartEachCurrency(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	owner, _ := env.SignedIn(store.RoleOwner)
	cases := []struct {
		currency, country string
		coin              apiclient.Stablecoin
		by                *http.Client
		form              url.Values
		after             string
	}{
		{"USD", "GBR", apiclient.USDB, hr, url.Values{"identity_level": {"id-and-liveness"}}, store.ReadyOnboarding},
		{"EUR", "GBR", apiclient.EURe, owner, url.Values{"identity_level": {"id-only"}}, store.ReadyOnboarding},
		{"MXN", "MEX", apiclient.MEXe, hr, url.Values{"identity_level": {"idv-and-phone-verification"}}, store.ReadyOnboarding},
		{"CAD", "CAN", apiclient.CADC, owner, url.Values{}, store.ReadyOnboarding},
		{"NGN", "NGA", apiclient.CNGN, hr, url.Values{"bvn": {testBVN}}, store.ReadyActive},
	}
	for _, tc := range cases {
		t.Run(tc.currency, func(t *testing.T) {
			e := readyEmployee(t, env, strings.ToLower(tc.currency)+"@start.example", tc.country, tc.coin, apiclient.USDB)
			if got := readiness(t, env, e.ID, tc.currency); got != store.ReadyToActivate {
				t.Fatalf("%s readiness %q before the start, want ready", tc.currency, got)
			}
			page := fmt.Sprintf("/employees/%d", e.ID)
			doc := webtest.Doc(t, env.Get(tc.by, page))
			if doc.Find(`[data-testid="start-form-`+tc.currency+`"]`).Length() != 1 {
				t.Fatalf("no %s start form on the page", tc.currency)
			}
			form := url.Values{"form_token": {env.FormToken(tc.by, page, `[data-testid="start-form-`+tc.currency+`"]`)}}
			for k, v := range tc.form {
				form[k] = v
			}
			statuses := empPostConcurrently(t, env, tc.by, startPath(e.ID, tc.currency), form, 2)
			for _, s := range statuses {
				if s != http.StatusSeeOther {
					t.Fatalf("statuses %v", statuses)
				}
			}
			// A second form for the same start (another tab) sends nothing.
			again := url.Values{"form_token": {handlers.NewFormToken()}}
			for k, v := range tc.form {
				again[k] = v
			}
			resp := env.PostForm(tc.by, startPath(e.ID, tc.currency), again)
			resp.Body.Close()
			if n := env.Sandbox.RequestCount("POST", startRoutes[tc.currency]); n != 1 {
				t.Fatalf("%d POSTs to %s, want 1", n, startRoutes[tc.currency])
			}
			if got := readiness(t, env, e.ID, tc.currency); got != tc.after {
				t.Fatalf("%s readiness %q after the start, want %q", tc.currency, got, tc.after)
			}
			doc = webtest.Doc(t, env.Get(tc.by, page))
			if doc.Find(`[data-testid="start-form-`+tc.currency+`"]`).Length() != 0 {
				t.Fatal("the start form is still offered once started")
			}
			rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "employee.onboarding.start"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range rows {
				if r.Target == fmt.Sprintf("employee:%d", e.ID) && r.Outcome == store.OutcomeOK {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d audit rows of the start, want 1", n)
			}
		})
	}
	if n := env.Sandbox.RequestCount("POST", routeActivate); n != len(cases) {
		t.Fatalf("%d KYC activations, want one per start (%d)", n, len(cases))
	}
	// BVN: sent, never kept (DESIGN.md decision 8).
	if found := grepDatabase(t, env, testBVN); len(found) > 0 {
		t.Fatalf("the BVN is stored in %v", found)
	}
	if strings.Contains(env.Logs.String(), testBVN) {
		t.Fatal("the BVN is in the logs")
	}
}

// TestOnboardingStartBVNIsNeverEchoed: a BVN that is not 11 digits, or one
// the API refuses, gets its words next to the empty field; the typed value
// is not on the page, in the database or in the logs.
func TestOnboardingStartBVNIsNeverEchoed(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := readyEmployee(t, env, "ngn@bvn.example", "NGA", apiclient.CNGN)
	page := fmt.Sprintf("/employees/%d", e.ID)
	for _, tc := range []struct {
		bvn    string
		status int
		words  string
	}{
		{"8123456", http.StatusUnprocessableEntity, "exactly 11 digits"},
		{"81234567890", http.StatusUnprocessableEntity, "not kept"},
	} {
		form := url.Values{"form_token": {env.FormToken(hr, page, `[data-testid="start-form-NGN"]`)}, "bvn": {tc.bvn}}
		resp := env.PostForm(hr, startPath(e.ID, "NGN"), form)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status && resp.StatusCode != http.StatusConflict {
			t.Fatalf("bvn %s: status %d", tc.bvn, resp.StatusCode)
		}
		if bytes.Contains(body, []byte(tc.bvn)) {
			t.Fatalf("the page echoes the BVN %s", tc.bvn)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := doc.Find(`#start-bvn`).Attr("value"); v != "" {
			t.Fatalf("the BVN field keeps %q", v)
		}
		if msg := webtest.TestID(doc, "start-bvn-error"); !strings.Contains(msg, tc.words) {
			t.Fatalf("bvn %s: field message %q", tc.bvn, msg)
		}
	}
	// The 11-digit one reached the API, which refused it: one start, nothing kept.
	if n := env.Sandbox.RequestCount("POST", startRoutes["NGN"]); n != 1 {
		t.Fatalf("%d starts sent, want 1 (the short BVN is refused here)", n)
	}
	for _, bvn := range []string{"8123456", "81234567890"} {
		if found := grepDatabase(t, env, bvn); len(found) > 0 {
			t.Fatalf("BVN %s stored in %v", bvn, found)
		}
		if strings.Contains(env.Logs.String(), bvn) {
			t.Fatalf("BVN %s in the logs", bvn)
		}
	}
	if got := readiness(t, env, e.ID, "NGN"); got != store.ReadyToActivate {
		t.Fatalf("NGN readiness %q after refusals, want still ready", got)
	}
}

// TestOnboardingStartRoles: support and finance approvers are refused and
// nothing is sent; they see no start form.
func TestOnboardingStartRoles(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	e := readyEmployee(t, env, "cad@roles.example", "CAN", apiclient.CADC)
	for _, role := range []store.Role{store.RoleSupport, store.RoleFinanceApprover} {
		c, _ := env.SignedIn(role)
		resp := env.PostForm(c, startPath(e.ID, "CAD"), url.Values{"form_token": {handlers.NewFormToken()}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: status %d, want 403", role, resp.StatusCode)
		}
		resp = env.PostForm(c, "/employees/readiness/start", url.Values{"form_token": {handlers.NewFormToken()}, "currency": {"CAD"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s bulk: status %d, want 403", role, resp.StatusCode)
		}
	}
	if n := env.Sandbox.RequestCount("POST", startRoutes["CAD"]) + env.Sandbox.RequestCount("POST", routeActivate); n != 0 {
		t.Fatalf("%d writes sent for refused roles", n)
	}
	if got := readiness(t, env, e.ID, "CAD"); got != store.ReadyToActivate {
		t.Fatalf("readiness %q", got)
	}
}

// TestOnboardingMexicoLaunchFetchedAtClick: after start-mexico and the
// Mexican KYC activation, the page offers a button that opens a new tab;
// the launch payload is fetched at each click, never at page render.
func TestOnboardingMexicoLaunchFetchedAtClick(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := readyEmployee(t, env, "mxn@launch.example", "MEX", apiclient.MEXe)
	page := fmt.Sprintf("/employees/%d", e.ID)
	form := url.Values{"form_token": {env.FormToken(hr, page, `[data-testid="start-form-MXN"]`)}, "identity_level": {"id-and-liveness"}}
	resp := env.PostForm(hr, startPath(e.ID, "MXN"), form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	tok := env.FormToken(hr, page, `[data-testid="mx-kyc-activate-form"]`)
	resp = env.PostForm(hr, fmt.Sprintf("/employees/%d/onboarding/mxn/kyc-activate", e.ID), url.Values{"form_token": {tok}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || env.Sandbox.RequestCount("POST", routeMXActivate) != 1 {
		t.Fatalf("mx activate: %d, %d calls", resp.StatusCode, env.Sandbox.RequestCount("POST", routeMXActivate))
	}
	for range 2 {
		doc := webtest.Doc(t, env.Get(hr, page))
		open := doc.Find(`[data-testid="mx-launch-open-form"]`)
		if open.Length() != 1 {
			t.Fatal("no Open Mexican KYC button")
		}
		if tgt, _ := open.Attr("target"); tgt != "_blank" {
			t.Fatalf("target %q", tgt)
		}
		if rel, _ := open.Attr("rel"); !strings.Contains(rel, "noopener") {
			t.Fatalf("rel %q", rel)
		}
		if !strings.Contains(webtest.TestID(doc, "mx-launch-hint"), "5 minutes") {
			t.Fatal("the expiry is not explained")
		}
	}
	if n := env.Sandbox.RequestCount("GET", routeMXLaunch); n != 0 {
		t.Fatalf("the launch was fetched %d times before any click", n)
	}
	for click := 1; click <= 2; click++ {
		resp := env.PostForm(hr, fmt.Sprintf("/employees/%d/onboarding/mxn/launch", e.ID), nil)
		csp := resp.Header.Get("Content-Security-Policy")
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("launch: %d", resp.StatusCode)
		}
		if n := env.Sandbox.RequestCount("GET", routeMXLaunch); n != click {
			t.Fatalf("click %d: %d fetches, want one per click", click, n)
		}
		f := doc.Find(`[data-testid="mx-launch-form"]`)
		action, _ := f.Attr("action")
		if !strings.HasPrefix(action, "https://") || !strings.Contains(csp, "form-action 'self' https://") {
			t.Fatalf("form action %q, CSP %q", action, csp)
		}
		if a, _ := f.Find(`input[name="assertion"]`).Attr("value"); a == "" {
			t.Fatal("no assertion in the launch form")
		}
		cd, _ := doc.Find(`[data-testid="mx-countdown"]`).Attr("data-countdown")
		at, err := time.Parse(time.RFC3339, cd)
		if err != nil || !strings.Contains(webtest.TestID(doc, "mx-launch"), "5 minutes") {
			t.Fatalf("countdown %q %v", cd, err)
		}
		if d := at.Sub(env.Sandbox.Now()); d <= 0 || d > 5*time.Minute {
			t.Fatalf("expires in %s", d)
		}
		if doc.Find("script:not([src])").Length() != 0 {
			t.Fatal("inline script on the launch page")
		}
	}
}

// runJob runs a bulk start's job here, as river would (a retried or
// resumed job runs the same way).
func runJob(t *testing.T, env *webtest.Env, w *employees.OnboardingStartWorker, runID int64) {
	t.Helper()
	job := &river.Job[employees.OnboardingStartArgs]{JobRow: &rivertype.JobRow{ID: runID}, Args: employees.OnboardingStartArgs{RunID: runID}}
	if err := w.Work(context.Background(), job); err != nil {
		t.Fatal(err)
	}
}

func runRows(t *testing.T, env *webtest.Env, runID int64) map[int64]store.OnboardingRunRow {
	t.Helper()
	rows, err := env.Store.OnboardingRunRows(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]store.OnboardingRunRow{}
	for _, r := range rows {
		out[r.EmployeeID] = r
	}
	return out
}

func startBulk(t *testing.T, env *webtest.Env, c *http.Client, currency string) (int64, string) {
	t.Helper()
	tok := env.FormToken(c, "/employees/readiness", `[data-testid="bulk-start-`+currency+`"]`)
	resp := env.PostForm(c, "/employees/readiness/start", url.Values{"form_token": {tok}, "currency": {currency}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bulk start: %d", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	var id int64
	if _, err := fmt.Sscanf(loc, "/employees/onboarding-runs/%d", &id); err != nil {
		t.Fatalf("redirect %q", loc)
	}
	return id, tok
}

// TestOnboardingBulkRun: one action starts CAD for every ready employee:
// one refused by the API (an injected fault), one no longer ready when its
// turn comes (skipped), the others started; a second post of the form
// makes no second run; the page shows progress and each row's result, the
// CSV too; the webhook of the completed rail updates the cell.
func TestOnboardingBulkRun(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true, StartWorkers: true})
	if err := env.App.AdoptWebhookSecret(context.Background(), env.Demo.WebhookSecret); err != nil {
		t.Fatal(err)
	}
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	var list []store.Employee
	for i := range 4 {
		list = append(list, readyEmployee(t, env, fmt.Sprintf("cad%d@bulk.example", i), "CAN", apiclient.CADC))
	}
	doc := webtest.Doc(t, env.Get(hr, "/employees/readiness"))
	if got := webtest.TestID(doc, "bulk-start-submit-CAD"); !strings.Contains(got, "for the 4 employees who are ready") {
		t.Fatalf("offer %q", got)
	}
	if doc.Find(`[data-testid="bulk-start-NGN"]`).Length() != 0 || !strings.Contains(webtest.TestID(doc, "bulk-start"), "BVN") {
		t.Fatal("Nigeria is offered in bulk, or the page does not say why not")
	}
	// The last one starts elsewhere meanwhile: the app's cell still says ready.
	last := list[3]
	if _, err := env.API.ActivateKYC(context.Background(), last.ServiceUserID, apiclient.ActivateKYCRequest{Currency: apiclient.CAD}); err != nil {
		t.Fatal(err)
	}
	wallets, _ := env.Store.WalletsByEmployee(context.Background(), last.ID)
	if _, err := env.API.StartCanada(context.Background(), last.ServiceUserID, apiclient.StartCanadaRequest{CADWalletAddress: wallets[0].Address}); err != nil {
		t.Fatal(err)
	}
	// The first row sent is refused by the API.
	webtest.SandboxControlData(t, env, "POST", "/_sandbox/faults", map[string]any{"method": "POST", "route": startRoutes["CAD"], "status": 400,
		"message": "Canadian onboarding is closed for this user", "times": 1}, nil)

	runID, tok := startBulk(t, env, hr, "CAD")
	resp := env.PostForm(hr, "/employees/readiness/start", url.Values{"form_token": {tok}, "currency": {"CAD"}})
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != fmt.Sprintf("/employees/onboarding-runs/%d", runID) {
		t.Fatalf("a second post of the form went to %q", loc)
	}
	webtest.WaitFor(t, "the run to finish", 60*time.Second, func() bool {
		r, err := env.Store.OnboardingRunByID(context.Background(), runID)
		return err == nil && r.State == store.OnboardingRunDone
	})

	rows := runRows(t, env, runID)
	want := map[int64]string{list[0].ID: store.OnboardingRowRefused, list[1].ID: store.OnboardingRowStarted,
		list[2].ID: store.OnboardingRowStarted, last.ID: store.OnboardingRowSkipped}
	for id, state := range want {
		if rows[id].State != state {
			t.Errorf("employee %d: %s (%s), want %s", id, rows[id].State, rows[id].Detail, state)
		}
	}
	if !strings.Contains(rows[list[0].ID].Detail, "closed for this user") {
		t.Errorf("refusal reason %q", rows[list[0].ID].Detail)
	}
	// One POST per row sent (the refused one counts) and the one made elsewhere.
	if n := env.Sandbox.RequestCount("POST", startRoutes["CAD"]); n != 4 {
		t.Fatalf("%d start-canada POSTs, want 4", n)
	}
	var runs int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM onboarding_runs`).Scan(&runs); err != nil || runs != 1 {
		t.Fatalf("%d runs %v", runs, err)
	}
	doc = webtest.Doc(t, env.Get(hr, fmt.Sprintf("/employees/onboarding-runs/%d", runID)))
	if bar := doc.Find("progress#onboarding-run-bar"); bar.Length() != 1 || bar.AttrOr("value", "") != "4" {
		t.Fatal("no full progress bar")
	}
	if webtest.TestID(doc, "run-started") != "2" || webtest.TestID(doc, "run-refused") != "1" || webtest.TestID(doc, "run-skipped") != "1" {
		t.Fatalf("counts %q", webtest.TestID(doc, "onboarding-run-progress"))
	}
	resp = env.Get(hr, fmt.Sprintf("/employees/onboarding-runs/%d/result.csv", runID))
	records, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(records) != 5 {
		t.Fatalf("CSV %d rows %v", len(records), err)
	}
	outcomes := map[string]int{}
	for _, r := range records[1:] {
		outcomes[r[4]]++
	}
	if outcomes["started"] != 2 || outcomes["refused"] != 1 || outcomes["skipped: no longer ready"] != 1 {
		t.Fatalf("CSV outcomes %v", outcomes)
	}
	if got := readiness(t, env, list[1].ID, "CAD"); got != store.ReadyOnboarding {
		t.Fatalf("started row's cell %q", got)
	}
	// The CAD rail completes 5 minutes later: onboarding.completed reaches
	// the app, which reads the employee again.
	webtest.SandboxControlData(t, env, "POST", "/_sandbox/clock/advance", map[string]any{"seconds": 400}, nil)
	webtest.WaitFor(t, "the webhook to make the cell active", 60*time.Second, func() bool {
		return readiness(t, env, list[1].ID, "CAD") == store.ReadyActive
	})

}

// TestOnboardingRunResumes: a run whose process stopped after sending a
// row, before recording it, resumes without sending that row again; the
// recovery reads it back; running the job once more sends nothing.
func TestOnboardingRunResumes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, staff := env.SignedIn(store.RoleOwner)
	var list []store.Employee
	for i := range 3 {
		list = append(list, readyEmployee(t, env, fmt.Sprintf("cad%d@resume.example", i), "CAN", apiclient.CADC))
	}
	runID, _ := startBulk(t, env, hr, "CAD")
	// The first row was claimed, its action begun and the start sent; then
	// the process died.
	first := list[0]
	row, err := env.Store.NextOnboardingRow(ctx, runID, nil)
	if err != nil || row.EmployeeID != first.ID {
		t.Fatalf("claimed %+v %v", row, err)
	}
	if _, _, err := env.Store.BeginAction(ctx, store.NewAction{Key: fmt.Sprintf("onboarding-run:%d:%d", runID, first.ID), Kind: "employee.onboarding.start",
		Target: fmt.Sprintf("employee:%d", first.ID), Actor: store.Actor{Email: staff.Email},
		Request: map[string]any{"employeeId": first.ID, "serviceUserId": first.ServiceUserID, "currency": "CAD", "runId": runID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.API.ActivateKYC(ctx, first.ServiceUserID, apiclient.ActivateKYCRequest{Currency: apiclient.CAD}); err != nil {
		t.Fatal(err)
	}
	wallets, _ := env.Store.WalletsByEmployee(ctx, first.ID)
	if _, err := env.API.StartCanada(ctx, first.ServiceUserID, apiclient.StartCanadaRequest{CADWalletAddress: wallets[0].Address}); err != nil {
		t.Fatal(err)
	}
	w := &employees.OnboardingStartWorker{Store: env.Store, API: env.API, Logger: slog.New(slog.NewTextHandler(env.Logs, nil))}
	runJob(t, env, w, runID)
	if n := env.Sandbox.RequestCount("POST", startRoutes["CAD"]); n != 3 {
		t.Fatalf("%d start-canada POSTs after resuming, want 3 (the first not sent again)", n)
	}
	rows := runRows(t, env, runID)
	if rows[first.ID].State != store.OnboardingRowUnknown || rows[list[1].ID].State != store.OnboardingRowStarted || rows[list[2].ID].State != store.OnboardingRowStarted {
		t.Fatalf("rows %+v", rows)
	}
	if _, err := env.App.Actions().Recover(ctx, time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if r := runRows(t, env, runID)[first.ID]; r.State != store.OnboardingRowStarted {
		t.Fatalf("after the read-back the first row is %s (%s)", r.State, r.Detail)
	}
	runJob(t, env, w, runID)
	if n := env.Sandbox.RequestCount("POST", startRoutes["CAD"]); n != 3 {
		t.Fatalf("running the job again sent more: %d", n)
	}
	if r, err := env.Store.OnboardingRunByID(ctx, runID); err != nil || r.State != store.OnboardingRunDone {
		t.Fatalf("run %+v %v", r, err)
	}
}

// TestOnboardingStartWithoutIdentityLevel: a start posted without the
// identity level, or with one the activation does not know, is the
// person's input to correct (422, the words next to the field, the form
// still there), not a conflict with the employee's state; nothing is sent.
func TestOnboardingStartWithoutIdentityLevel(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := readyEmployee(t, env, "eur@level.example", "GBR", apiclient.EURe, apiclient.USDB)
	page := fmt.Sprintf("/employees/%d", e.ID)
	for _, level := range []string{"", "bogus"} {
		form := url.Values{"form_token": {env.FormToken(hr, page, `[data-testid="start-form-EUR"]`)}, "identity_level": {level}}
		resp := env.PostForm(hr, startPath(e.ID, "EUR"), form)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("identity level %q: status %d, want 422", level, resp.StatusCode)
		}
		if !strings.Contains(doc.Find(`.field-error`).Text(), "identity level") {
			t.Errorf("identity level %q: no words next to the field", level)
		}
		if doc.Find(`[data-testid="start-form-EUR"]`).Length() != 1 {
			t.Errorf("identity level %q: the form is gone", level)
		}
	}
	if n := env.Sandbox.RequestCount("POST", startRoutes["EUR"]) + env.Sandbox.RequestCount("POST", routeActivate); n != 0 {
		t.Fatalf("%d writes sent", n)
	}
}

// TestOnboardingMexicoLaunchBeforeActivation: the launch posted before the
// Mexican KYC is activated (a page left open, a second tab) is refused by
// the API with 400; that is the employee's state, said in words with 409,
// never a 5xx as if the API were down.
func TestOnboardingMexicoLaunchBeforeActivation(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	e := readyEmployee(t, env, "mxn@early.example", "MEX", apiclient.MEXe)
	resp := env.PostForm(hr, fmt.Sprintf("/employees/%d/onboarding/mxn/launch", e.ID), nil)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("launch before activation: %d, want 409", resp.StatusCode)
	}
	if text := doc.Find("main").Text(); !strings.Contains(text, "activate") || strings.Contains(text, "Correct the fields") {
		t.Fatalf("words: %q", text)
	}
}
