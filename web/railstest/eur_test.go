package railstest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestRailsEURToSEPA: a finance approver follows the EUR page from "no
// wallet" to SEPA payouts: a bad identity level and an empty code are
// refused at their fields with nothing sent; the start activates and starts
// the provider once; the code goes to the owner's device as a QR code; a
// signature from another key is refused with nothing sent to /eu/kyc; the
// owner's signature makes the provider active, and the SEPA form appears.
func TestRailsEURToSEPA(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)

	doc := page(t, env, c, "/treasury/funding")
	if doc.Find(`[data-testid="funding-rails-link"] a[href="/treasury/rails"]`).Length() != 1 {
		t.Fatal("the funding page does not lead to the rail setup")
	}
	doc = page(t, env, c, "/treasury/rails")
	if st, _ := doc.Find(`[data-testid="rail-eur"]`).Attr("data-state"); st != "next" ||
		!strings.Contains(webtest.TestID(doc, "rail-eur-next"), "EURe") {
		t.Fatalf("overview EUR %q: %q", st, webtest.TestID(doc, "rail-eur-next"))
	}
	doc = page(t, env, c, "/treasury/rails/eur")
	if stepState(doc, "wallet") != "next" || doc.Find(`[data-testid="eur-start-form"]`).Length() != 0 {
		t.Fatalf("without a wallet: wallet %q, start form %d", stepState(doc, "wallet"), doc.Find(`[data-testid="eur-start-form"]`).Length())
	}
	if href, _ := doc.Find(`[data-testid="step-wallet-go"]`).Attr("href"); href != "/treasury#new-wallet" {
		t.Fatalf("wallet step link %q", href)
	}

	webtest.FundedTreasuryWallet(t, env, "EURe", "1000.00")
	doc = page(t, env, c, "/treasury/rails/eur")
	if stepState(doc, "wallet") != "done" || stepState(doc, "start") != "next" {
		t.Fatalf("with a wallet: %q %q", stepState(doc, "wallet"), stepState(doc, "start"))
	}

	// A level the spec does not name: refused at the field, nothing sent.
	resp := post(t, env, c, doc, "eur-start-form", "/treasury/rails/eur/start", url.Values{"identity_level": {"whatever"}})
	bad := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(bad, "f-identity_level-error") == "" {
		t.Fatalf("bad level: %d %q", resp.StatusCode, bad.Find(".field-error").Text())
	}
	if n := len(audits(t, env, "treasury.rail.start")); n != 0 || onboarding(t, env).EURProviderStatus == "pending" {
		t.Fatalf("a refused form sent something: %d audit rows", n)
	}

	resp = post(t, env, c, doc, "eur-start-form", "/treasury/rails/eur/start", url.Values{"identity_level": {apiclient.IdentityLevelIDOnly}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/treasury/rails/eur" {
		t.Fatalf("start: %d %q %q", resp.StatusCode, resp.Header.Get("Location"), webtest.Doc(t, resp).Find(".field-error").Text())
	}
	if got := onboarding(t, env).EURProviderStatus; got != "pending" {
		t.Fatalf("provider after start %q", got)
	}
	if a := audits(t, env, "treasury.rail.start"); a[store.OutcomeOK] != 1 {
		t.Fatalf("start audit %v", a)
	}

	doc = page(t, env, c, "/treasury/rails/eur")
	if stepState(doc, "start") != "done" || stepState(doc, "authorize") != "next" || webtest.TestID(doc, "eur-sandbox-codes") == "" {
		t.Fatalf("after start: %q %q, sandbox codes %q", stepState(doc, "start"), stepState(doc, "authorize"), webtest.TestID(doc, "eur-sandbox-codes"))
	}
	// While the provider waits for the owner's device the page re-reads
	// itself; nothing changed, nothing is swapped.
	live := doc.Find(`[data-testid="eur-live"]`)
	poll := live.AttrOr("hx-get", "")
	if poll == "" || live.AttrOr("hx-trigger", "") != "every 2s" {
		t.Fatalf("the waiting EUR page does not re-read itself: %q %q", poll, live.AttrOr("hx-trigger", ""))
	}
	if resp := env.Do(c, http.MethodGet, poll, nil, http.Header{"HX-Request": {"true"}}); resp.StatusCode != http.StatusNoContent {
		resp.Body.Close()
		t.Fatalf("a poll while nothing changed: %d, want 204", resp.StatusCode)
	}
	resp = post(t, env, c, doc, "eur-authorize-form", "/treasury/rails/eur/authorize", url.Values{"code": {"  "}})
	bad = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(bad, "f-code-error") == "" || signRequests(t, env, store.SignKindEURAuthorization) != 0 {
		t.Fatalf("empty code: %d %q", resp.StatusCode, webtest.TestID(bad, "f-code-error"))
	}

	// The code goes to the device; another key's signature is refused
	// here, and the provider still waits.
	link := authorize(t, env, c, "SANDBOX-EUR-1")
	u, _ := url.Parse(link)
	code, req := webtest.DeviceGet(t, env, u.Path)
	if code != http.StatusOK || req["kind"] != store.SignKindEURAuthorization || req["message"] != "EUR provider authorization: SANDBOX-EUR-1" {
		t.Fatalf("device get: %d %v", code, req)
	}
	stranger, err := ethsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	code, ans := webtest.DevicePost(t, env, u.Path, ethsig.SignMessage(stranger, []byte(req["message"].(string))).Hex())
	if code != http.StatusUnprocessableEntity || !strings.Contains(ans["error"].(string), "owner key") {
		t.Fatalf("stranger's signature: %d %v", code, ans)
	}
	if got := onboarding(t, env).EURProviderStatus; got != "pending" {
		t.Fatalf("provider after a refused signature %q", got)
	}

	// A new link, signed by the owner: the provider is active.
	link = authorize(t, env, c, "SANDBOX-EUR-1")
	u, _ = url.Parse(link)
	_, req = webtest.DeviceGet(t, env, u.Path)
	owner := webtest.OwnerKey(t, env, "treasury")
	code, ans = webtest.DevicePost(t, env, u.Path, ethsig.SignMessage(owner, []byte(req["message"].(string))).Hex())
	if code != http.StatusOK || ans["state"] != store.SignCompleted {
		t.Fatalf("owner's signature: %d %v", code, ans)
	}
	if got := onboarding(t, env).EURProviderStatus; got != "active" {
		t.Fatalf("provider after the owner's signature %q", got)
	}
	// The page left open sees it by itself, and stops re-reading.
	resp = env.Do(c, http.MethodGet, poll, nil, http.Header{"HX-Request": {"true"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || stepState(doc, "authorize") != "done" || doc.Find(`[data-testid="eur-send"]`).Length() != 1 ||
		doc.Find(`[hx-trigger]`).Length() != 0 || doc.Find("h1").Length() != 0 {
		t.Fatalf("the poll after the signature: %d, authorize %q", resp.StatusCode, stepState(doc, "authorize"))
	}
	doc = page(t, env, c, "/treasury/rails/eur")
	if stepState(doc, "authorize") != "done" || doc.Find(`[data-testid="eur-send"]`).Length() != 1 {
		t.Fatalf("after authorization: %q", stepState(doc, "authorize"))
	}
	doc = page(t, env, c, "/money-out/sepa")
	if doc.Find(`[data-testid="sepa-form"]`).Length() != 1 {
		t.Fatal("the SEPA form does not appear once the provider is active")
	}
	doc = page(t, env, c, "/treasury/rails")
	if st, _ := doc.Find(`[data-testid="rail-eur"]`).Attr("data-state"); st != "ready" {
		t.Fatalf("overview EUR after setup %q", st)
	}
	// Never the code in the ledger or the audit log.
	for _, kind := range []string{"treasury.rail.eur_authorize", "sign_request.submit"} {
		for _, r := range webtest.AuditRows(t, env, kind) {
			if strings.Contains(r.Detail, "SANDBOX-EUR-1") {
				t.Fatalf("%s audit names the code: %q", kind, r.Detail)
			}
		}
	}
}

// authorize sends a code from the EUR page and returns the QR code's link.
func authorize(t *testing.T, env *webtest.Env, c *http.Client, code string) string {
	t.Helper()
	doc := page(t, env, c, "/treasury/rails/eur")
	resp := post(t, env, c, doc, "eur-authorize-form", "/treasury/rails/eur/authorize", url.Values{"code": {code}})
	doc = webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	if resp.StatusCode != http.StatusCreated || link == "" || doc.Find(`[data-testid="sign-qr"]`).Length() != 1 {
		t.Fatalf("authorize: %d %q", resp.StatusCode, doc.Find(".field-error").Text())
	}
	return link
}
