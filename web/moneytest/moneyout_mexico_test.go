package moneytest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// mxOrderID is the id of the newest offramp order in the store.
func mxOrderID(t *testing.T, env *webtest.Env) int64 {
	t.Helper()
	var id int64
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT max(id) FROM sepa_mxn_orders WHERE rail = 'mxn'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// mxSteps polls the order page as htmx does and returns the steps.
func mxSteps(t *testing.T, env *webtest.Env, c *http.Client, id int64) *goquery.Document {
	t.Helper()
	resp := env.Do(c, http.MethodGet, "/money-out/mexico/"+strconv.FormatInt(id, 10), nil, http.Header{"HX-Request": {"true"}})
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="mx-steps"]`).Length() != 1 || doc.Find("h1").Length() != 0 {
		t.Fatalf("steps fragment: %d", resp.StatusCode)
	}
	return doc
}

func mxAttr(doc *goquery.Document, testID, attr string) string {
	v, _ := doc.Find(`[data-testid="` + testID + `"]`).Attr(attr)
	return v
}

// TestMoneyOutMexicoTwoSignaturesEndToEnd: what is missing is said (no
// wallet, KYC not activated, KYC undecided); bad input is refused before
// any call; a quote shows its rate, fee in basis points, amounts and a
// countdown; the owner's device signs the allowance from its QR code; the
// page waits for the burn request (and says so while the API does not
// answer), then shows it; the device signs the burn; the order is funded
// and completes, and the MEXe balance falls by the amount.
func TestMoneyOutMexicoTwoSignaturesEndToEnd(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)

	doc := webtest.Doc(t, env.Get(c, "/money-out/mexico"))
	if doc.Find(`[data-testid="mx-no-wallet"]`).Length() != 1 || doc.Find(`[data-testid="mx-form"]`).Length() != 0 {
		t.Fatal("no wallet: the page should say so")
	}
	if webtest.Doc(t, env.Get(c, "/money-out")).Find(`[data-testid="rail"] a[href="/money-out/mexico"]`).Length() != 1 {
		t.Fatal("Money out does not list the Mexican offramp")
	}
	webtest.FundedTreasuryWallet(t, env, "MEXe", "5000.00")
	doc = webtest.Doc(t, env.Get(c, "/money-out/mexico"))
	if !strings.Contains(webtest.TestID(doc, "mx-kyc-words"), "not been activated") || doc.Find(`[data-testid="mx-form"]`).Length() != 0 {
		t.Fatalf("kyc not activated: %q", webtest.TestID(doc, "mx-kyc-words"))
	}
	webtest.SandboxControl(t, env, http.MethodPut, "/_sandbox/users/"+env.Demo.TreasuryUserID+"/mx/kyc", map[string]any{"status": "proposed"})
	doc = webtest.Doc(t, env.Get(c, "/money-out/mexico"))
	if !strings.Contains(webtest.TestID(doc, "mx-kyc-words"), "hosted verification") || doc.Find(`[data-testid="mx-form"]`).Length() != 0 {
		t.Fatalf("kyc proposed: %q", webtest.TestID(doc, "mx-kyc-words"))
	}
	webtest.SandboxControl(t, env, http.MethodPut, "/_sandbox/users/"+env.Demo.TreasuryUserID+"/mx/kyc", map[string]any{"status": "approved"})
	form := webtest.MexicoQuoteForm(t, env, c, "1000")
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe")

	// Bad input: at the field and in the summary, kept, nothing sent.
	for _, tc := range []struct{ field, value, id, want string }{
		{"amount", "1,50", "f-amount-error", "use a point"},
		{"amount", "5000.01", "f-amount-error", "More than the wallet holds"},
		{"amount", "10.001", "f-amount-error", "at most 2 decimal"},
		{"note", strings.Repeat("n", 501), "f-note-error", "500 characters"},
	} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set(tc.field, tc.value)
		resp := env.PostForm(c, "/money-out/mexico", bad)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, tc.id), tc.want) ||
			!strings.Contains(webtest.TestID(doc, "error-summary"), tc.want) {
			t.Fatalf("%s %q: %d %q", tc.field, tc.value, resp.StatusCode, webtest.TestID(doc, tc.id))
		}
		if tc.field == "amount" && doc.Find("#f-amount").AttrOr("value", "") != tc.value {
			t.Fatalf("typed amount lost")
		}
		webtest.FieldProblem(t, doc, "f-"+tc.field, tc.want)
		if doc.Find(`label[for="f-amount"]`).Text() != "Amount to sell (MXN)" {
			t.Fatalf("amount label %q", doc.Find(`label[for="f-amount"]`).Text())
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoQuoteRoute); n != 0 {
		t.Fatalf("bad input sent %d quotes", n)
	}

	// The quote, and the first signature's QR code.
	resp := env.PostForm(c, "/money-out/mexico", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("quote: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-error"))
	}
	if webtest.TestID(doc, "mx-quote-source") != "1,000.00 MXN (MEXe)" || webtest.TestID(doc, "mx-quote-rate") != "1 MEXe = 1 MXN" ||
		webtest.TestID(doc, "mx-quote-fee") != "5.00 MXN (50 basis points)" || webtest.TestID(doc, "mx-quote-destination") == "" ||
		!strings.HasPrefix(webtest.TestID(doc, "mx-quote-destination"), "995.00 MXN") {
		t.Fatalf("quote shown: %q %q %q %q", webtest.TestID(doc, "mx-quote-source"), webtest.TestID(doc, "mx-quote-rate"),
			webtest.TestID(doc, "mx-quote-fee"), webtest.TestID(doc, "mx-quote-destination"))
	}
	cd := mxAttr(doc, "mx-quote-countdown", "data-countdown")
	exp, err := time.Parse(time.RFC3339, cd)
	if err != nil || !exp.After(time.Now()) || exp.After(time.Now().Add(5*time.Minute)) {
		t.Fatalf("countdown %q: %v", cd, err)
	}
	firstLink := sepaMXNQRLink(t, env, doc)
	if mxAttr(doc, "mx-step-first", "data-state") != store.SignWaiting || mxAttr(doc, "mx-step-burn", "data-state") != "not_yet" ||
		!strings.Contains(webtest.TestID(doc, "mx-waiting"), "first signature") {
		t.Fatalf("steps after the quote: %q %q %q", mxAttr(doc, "mx-step-first", "data-state"), mxAttr(doc, "mx-step-burn", "data-state"),
			webtest.TestID(doc, "mx-waiting"))
	}
	id := mxOrderID(t, env)
	page := "/money-out/mexico/" + strconv.FormatInt(id, 10)
	if a := sepaMXNAudit(t, env, "mx_offramp.quote"); len(a) != 1 || a[0].Outcome != store.OutcomeOK || a[0].Target != "mx_offramp:"+strconv.FormatInt(id, 10) {
		t.Fatalf("audit %+v", a)
	}
	// The same form again sends nothing and leads to the order.
	resp = env.PostForm(c, "/money-out/mexico", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page || env.Sandbox.RequestCount("POST", webtest.MexicoQuoteRoute) != 1 {
		t.Fatalf("second post: %d %q, %d quotes", resp.StatusCode, resp.Header.Get("Location"), env.Sandbox.RequestCount("POST", webtest.MexicoQuoteRoute))
	}
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		other, _ := env.SignedIn(role)
		for _, r := range []*http.Response{env.Get(other, "/money-out/mexico"), env.PostForm(other, "/money-out/mexico", form),
			env.Get(other, page), env.PostForm(other, page+"/sign-request", url.Values{})} {
			r.Body.Close()
			if r.StatusCode != http.StatusForbidden {
				t.Fatalf("%s: %d", role, r.StatusCode)
			}
		}
	}

	// The first signature (the allowance), from the device.
	if code, ans := webtest.SignOnDevice(t, env, firstLink, "treasury"); code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("first signature: %d %v", code, ans)
	}

	// While the API does not answer, the page says what it waits for and
	// what to do.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": webtest.MexicoOrderRoute, "status": 503})
	doc = mxSteps(t, env, c, id)
	if webtest.TestID(doc, "mx-read-error") == "" || !strings.Contains(webtest.TestID(doc, "mx-waiting"), "Waiting for the API to ask for the second (burn) signature") ||
		!strings.Contains(webtest.TestID(doc, "mx-waiting"), "get a new quote") || mxAttr(doc, "mx-step-burn", "data-state") != "not_yet" {
		t.Fatalf("waiting for the burn: %q / %q", webtest.TestID(doc, "mx-read-error"), webtest.TestID(doc, "mx-waiting"))
	}
	if doc.Find(`#mx-steps[hx-get]`).Length() != 1 {
		t.Fatal("the steps must keep polling while the order is open")
	}
	webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)

	// The poll finds the burn request; the second signature's QR code.
	doc = mxSteps(t, env, c, id)
	if mxAttr(doc, "mx-step-first", "data-state") != store.SignSubmitted || mxAttr(doc, "mx-step-burn", "data-state") != "not_issued" ||
		!strings.Contains(webtest.TestID(doc, "mx-link-submit"), "second signature") ||
		!strings.Contains(webtest.TestID(doc, "mx-waiting"), "asks for the second (burn) signature") {
		t.Fatalf("burn request: %q %q %q", mxAttr(doc, "mx-step-burn", "data-state"), webtest.TestID(doc, "mx-link-submit"), webtest.TestID(doc, "mx-waiting"))
	}
	if mid := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe"); !mid.Equal(before) {
		t.Fatalf("MEXe moved before the burn: %s", mid)
	}
	resp = env.PostForm(c, page+"/sign-request", url.Values{})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("burn link: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-order-error"))
	}
	burnLink := sepaMXNQRLink(t, env, doc)
	// Until the owner signs it, the page says it waits for the second
	// signature, and until when.
	if w := webtest.TestID(mxSteps(t, env, c, id), "mx-waiting"); !strings.Contains(w, "Waiting for the owner to sign the second (burn) signature") ||
		!strings.Contains(w, "before the quote expires at") {
		t.Fatalf("waiting for the burn signature: %q", w)
	}
	u, _ := url.Parse(burnLink)
	if code, req := webtest.DeviceGet(t, env, u.Path); code != http.StatusOK || !strings.Contains(req["summary"].(map[string]any)["title"].(string), "burn") {
		t.Fatalf("device sees %d %v", code, req)
	}
	if code, ans := webtest.SignOnDevice(t, env, burnLink, "treasury"); code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("burn signature: %d %v", code, ans)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoSubmitRoute); n != 2 {
		t.Fatalf("%d signature submissions, want 2", n)
	}
	doc = mxSteps(t, env, c, id)
	if mxAttr(doc, "mx-order-status", "data-state") != "funded" || mxAttr(doc, "mx-step-burn", "data-state") != store.SignSubmitted {
		t.Fatalf("after the burn: %q %q", mxAttr(doc, "mx-order-status", "data-state"), mxAttr(doc, "mx-step-burn", "data-state"))
	}
	if mid := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe"); !mid.Equal(before.Sub(decimal.RequireFromString("1000"))) {
		t.Fatalf("MEXe after the burn %s", mid)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
	doc = webtest.Doc(t, env.Get(c, page))
	if mxAttr(doc, "mx-order-status", "data-state") != "completed" || mxAttr(doc, "mx-step-payout", "data-state") != "completed" ||
		doc.Find(`#mx-steps[hx-get]`).Length() != 0 || doc.Find(`[data-testid="mx-link-form"]`).Length() != 0 {
		t.Fatalf("completed: %q", mxAttr(doc, "mx-order-status", "data-state"))
	}
	if after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe"); !after.Equal(before.Sub(decimal.RequireFromString("1000"))) {
		t.Fatalf("MEXe after %s, want %s", after, before.Sub(decimal.RequireFromString("1000")))
	}
}

// TestMoneyOutMexicoFiveConcurrentQuotesAskOnce: five posts of one form at
// once ask for one quote and write one audit row; a quote whose answer is
// lost after the API recorded it stays unknown (the API lists no orders)
// and the same form again sends nothing.
func TestMoneyOutMexicoFiveConcurrentQuotesAskOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	webtest.MexicoReady(t, env)
	form := webtest.MexicoQuoteForm(t, env, c, "100")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.MexicoQuoteRoute, "latencyMs": 300, "times": 1})
	got := env.PostFormAtOnce(c, "/money-out/mexico", form, 5)
	if got[http.StatusCreated] != 1 || got[http.StatusSeeOther] != 4 {
		t.Fatalf("answers %v, want one 201 and four 303", got)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoQuoteRoute); n != 1 {
		t.Fatalf("%d quotes", n)
	}
	if a := sepaMXNAudit(t, env, "mx_offramp.quote"); len(a) != 1 {
		t.Fatalf("%d audit rows", len(a))
	}

	// A lost answer.
	form = webtest.MexicoQuoteForm(t, env, c, "200")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.MexicoQuoteRoute, "after": true, "drop": true, "times": 1})
	resp := env.PostForm(c, "/money-out/mexico", form)
	doc := webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "mx-error"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(msg, "cannot be read back") ||
		!strings.Contains(msg, "expires by itself") || doc.Find("#f-amount").AttrOr("value", "") != "200" {
		t.Fatalf("lost answer: %d %q", resp.StatusCode, msg)
	}
	if a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); err != nil || a.State != store.ActionUnknown {
		t.Fatalf("action %+v %v", a, err)
	}
	resp = env.PostForm(c, "/money-out/mexico", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("repost: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
	if mxAttr(doc, "sepa-mxn-request-state", "data-state") != string(store.ActionUnknown) {
		t.Fatalf("request page: %q", mxAttr(doc, "sepa-mxn-request-state", "data-state"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoQuoteRoute); n != 2 {
		t.Fatalf("%d quotes, want 2 (one per form)", n)
	}
}

// TestMoneyOutMexicoExpiredQuoteIsNeverSigned: once the quote's expiry has
// passed, no link is issued, the device's signature is refused without
// anything sent, the page says the quote expired and offers a new quote
// for the same amount; the API then cancels the order.
func TestMoneyOutMexicoExpiredQuoteIsNeverSigned(t *testing.T) {
	t.Parallel()
	var skew atomic.Int64
	env := webtest.New(t, webtest.Options{Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.MexicoReady(t, env)
	resp := env.PostForm(c, "/money-out/mexico", webtest.MexicoQuoteForm(t, env, c, "250.75"))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("quote: %d", resp.StatusCode)
	}
	link := sepaMXNQRLink(t, env, doc)
	id := mxOrderID(t, env)
	page := "/money-out/mexico/" + strconv.FormatInt(id, 10)

	skew.Store(int64(3 * time.Minute))
	doc = mxSteps(t, env, c, id)
	if !strings.Contains(webtest.TestID(doc, "mx-waiting"), "quote expired") || doc.Find(`[data-testid="mx-link-form"]`).Length() != 0 {
		t.Fatalf("expired: %q", webtest.TestID(doc, "mx-waiting"))
	}
	requote := mxAttr(doc, "mx-requote", "href")
	resp = env.PostForm(c, page+"/sign-request", url.Values{})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "mx-order-error"), "no signature is asked for an expired quote") {
		t.Fatalf("link for an expired quote: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-order-error"))
	}
	if doc.Find(`[data-testid="mx-quote-countdown"]`).Length() != 0 {
		t.Fatal("an expired quote shows no countdown")
	}
	u, _ := url.Parse(link)
	code, _ := webtest.DevicePost(t, env, u.Path, "0x"+strings.Repeat("11", 65))
	if code != http.StatusGone {
		t.Fatalf("device after expiry: %d", code)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoSubmitRoute); n != 0 {
		t.Fatalf("%d signatures submitted for an expired quote", n)
	}
	// The API cancels the order at its expiry.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"seconds": 180})
	doc = webtest.Doc(t, env.Get(c, page))
	if mxAttr(doc, "mx-order-status", "data-state") != "canceled" || doc.Find(`#mx-steps[hx-get]`).Length() != 0 {
		t.Fatalf("canceled: %q", mxAttr(doc, "mx-order-status", "data-state"))
	}
	// A new quote for the same amount: the form comes filled, and lists
	// the canceled offramp.
	skew.Store(0)
	doc = webtest.Doc(t, env.Get(c, requote))
	if doc.Find(`[data-testid="sepa-mxn-recent"] a[href="`+page+`"]`).Length() != 1 {
		t.Fatal("the offramp page does not link the recent offramp")
	}
	if doc.Find("#f-amount").AttrOr("value", "") != "250.75" || doc.Find("#f-note").AttrOr("value", "") != "Payroll November" {
		t.Fatalf("re-quote form %q: amount %q", requote, doc.Find("#f-amount").AttrOr("value", ""))
	}
}

// TestMoneyOutMexicoRefusedSignatureAndFailedOrder: a signature made with
// the wrong key is refused and shown, a new link is issued and signed; the
// provider's payout fails (fail-next mx-offramp) and the order ends
// refunded with the tokens back. A second quote needs no allowance
// signature but still the burn.
func TestMoneyOutMexicoRefusedSignatureAndFailedOrder(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.MexicoReady(t, env)
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe")
	resp := env.PostForm(c, "/money-out/mexico", webtest.MexicoQuoteForm(t, env, c, "400"))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("quote: %d", resp.StatusCode)
	}
	link := sepaMXNQRLink(t, env, doc)
	id := mxOrderID(t, env)
	page := "/money-out/mexico/" + strconv.FormatInt(id, 10)

	// The wrong key: refused on the device, nothing sent, shown on the page.
	if code, _ := webtest.SignOnDevice(t, env, link, "legacy"); code != http.StatusUnprocessableEntity {
		t.Fatalf("wrong key: %d", code)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoSubmitRoute); n != 0 {
		t.Fatalf("a refused signature was sent: %d", n)
	}
	doc = webtest.Doc(t, env.Get(c, page))
	if mxAttr(doc, "mx-step-first", "data-state") != store.SignRefused || webtest.TestID(doc, "sign-error") == "" ||
		!strings.Contains(webtest.TestID(doc, "mx-link-submit"), "new link for the first signature") {
		t.Fatalf("refused: %q %q %q", mxAttr(doc, "mx-step-first", "data-state"), webtest.TestID(doc, "sign-error"), webtest.TestID(doc, "mx-link-submit"))
	}
	resp = env.PostForm(c, page+"/sign-request", url.Values{})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("new link: %d", resp.StatusCode)
	}
	if code, _ := webtest.SignOnDevice(t, env, sepaMXNQRLink(t, env, doc), "treasury"); code != http.StatusOK {
		t.Fatalf("first signature: %d", code)
	}
	mxSteps(t, env, c, id) // the poll that finds the burn request
	resp = env.PostForm(c, page+"/sign-request", url.Values{})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("burn link: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-order-error"))
	}
	if code, _ := webtest.SignOnDevice(t, env, sepaMXNQRLink(t, env, doc), "treasury"); code != http.StatusOK {
		t.Fatalf("burn: %d", code)
	}
	if mid := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe"); !mid.Equal(before.Sub(decimal.RequireFromString("400"))) {
		t.Fatalf("MEXe after the burn %s", mid)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/fail-next", map[string]any{"rail": "mx-offramp"})
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
	doc = webtest.Doc(t, env.Get(c, page))
	if mxAttr(doc, "mx-order-status", "data-state") != "refunded" || !strings.Contains(webtest.TestID(doc, "mx-waiting"), "tokens went back") ||
		doc.Find(`[data-testid="mx-requote"]`).Length() != 1 {
		t.Fatalf("refunded: %q %q", mxAttr(doc, "mx-order-status", "data-state"), webtest.TestID(doc, "mx-waiting"))
	}
	if after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "MEXe"); !after.Equal(before) {
		t.Fatalf("MEXe after the refund %s, want %s", after, before)
	}

	// The allowance now covers the amount: no first signature, but the burn.
	resp = env.PostForm(c, "/money-out/mexico", webtest.MexicoQuoteForm(t, env, c, "100"))
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated || mxAttr(doc, "mx-step-first", "data-state") != "not_needed" ||
		doc.Find(`[data-testid="sign-qr"]`).Length() != 0 {
		t.Fatalf("second quote: %d %q", resp.StatusCode, mxAttr(doc, "mx-step-first", "data-state"))
	}
	id2 := mxOrderID(t, env)
	doc = mxSteps(t, env, c, id2)
	if mxAttr(doc, "mx-step-burn", "data-state") != "not_issued" || !strings.Contains(webtest.TestID(doc, "mx-link-submit"), "second signature") {
		t.Fatalf("second quote's burn: %q", mxAttr(doc, "mx-step-burn", "data-state"))
	}
}

// TestMoneyOutMexicoRefusedQuoteIsExplained: a quote the API refuses (the
// wallet holds less than the mirror last read) comes back with the API's
// words, the input kept and a fresh token; it is audited as refused and
// nothing is recorded.
func TestMoneyOutMexicoRefusedQuoteIsExplained(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.MexicoReady(t, env)
	var w store.Wallet
	users, _ := env.Store.TreasuryUsers(context.Background())
	ws, _ := env.Store.WalletsByEmployee(context.Background(), users[0].ID)
	for _, x := range ws {
		if x.Currency == "MEXe" {
			w = x
		}
	}
	w.Balance = decimal.NullDecimal{Decimal: decimal.RequireFromString("9000"), Valid: true}
	if err := env.Store.UpsertWallet(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	// A pre-migration MXNe wallet is flagged, and not sold.
	legacy := store.Wallet{ID: "legacy-mxne-1", EmployeeID: users[0].ID, Currency: "MXNe", DisplayCurrency: "MXN", Legacy: true,
		Balance: decimal.NullDecimal{Decimal: decimal.RequireFromString("125.40"), Valid: true}}
	if err := env.Store.UpsertWallet(context.Background(), legacy); err != nil {
		t.Fatal(err)
	}
	doc := webtest.Doc(t, env.Get(c, "/money-out/mexico"))
	if got := webtest.TestID(doc, "mx-legacy"); !strings.Contains(got, "MXNe") || !strings.Contains(got, "125.40") ||
		!strings.Contains(webtest.TestID(doc, "mx-wallet"), "MEXe") {
		t.Fatalf("legacy flag %q, wallet %q", got, webtest.TestID(doc, "mx-wallet"))
	}
	form := webtest.MexicoQuoteForm(t, env, c, "8000")
	resp := env.PostForm(c, "/money-out/mexico", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "mx-error"), "Insufficient balance") {
		t.Fatalf("refused: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-error"))
	}
	if doc.Find("#f-amount").AttrOr("value", "") != "8000" || doc.Find("#f-note").AttrOr("value", "") != "Payroll November" {
		t.Fatal("input lost")
	}
	if tok := doc.Find(`[data-testid="mx-form"] input[name="form_token"]`).AttrOr("value", ""); tok == "" || tok == form.Get("form_token") {
		t.Fatal("a refused form must come back with a fresh token")
	}
	if a := sepaMXNAudit(t, env, "mx_offramp.quote"); len(a) != 1 || a[0].Outcome != store.OutcomeRefused {
		t.Fatalf("audit %+v", a)
	}
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM sepa_mxn_orders`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d orders recorded: %v", n, err)
	}
}

// TestMoneyOutMexicoLostRelayIsReadBack: the API takes a signature but its
// answer is lost. Nothing is ever sent twice: the order is read back. The
// first signature's answer is lost while the order cannot be read either,
// so it stays "on its way" until the recovery job reads the burn request
// the order now shows; the burn signature's lost answer is read back at
// once (the order is funded).
func TestMoneyOutMexicoLostRelayIsReadBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.MexicoReady(t, env)
	resp := env.PostForm(c, "/money-out/mexico", webtest.MexicoQuoteForm(t, env, c, "250"))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("quote: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-error"))
	}
	link := sepaMXNQRLink(t, env, doc)
	id := mxOrderID(t, env)
	page := "/money-out/mexico/" + strconv.FormatInt(id, 10)

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.MexicoSubmitRoute,
		"drop": true, "after": true, "times": 1})

	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": webtest.MexicoOrderRoute, "status": 503})
	if code, ans := webtest.SignOnDevice(t, env, link, "treasury"); code != http.StatusBadGateway || ans["state"] != store.SignRelayPending {
		t.Fatalf("lost answer: %d %v", code, ans)
	}
	if st := mxAttr(mxSteps(t, env, c, id), "mx-step-first", "data-state"); st != store.SignRelayPending {
		t.Fatalf("first step %q, want %q", st, store.SignRelayPending)
	}
	webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
	if _, err := env.App.Actions().Recover(context.Background(), time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	doc = mxSteps(t, env, c, id)
	if st := mxAttr(doc, "mx-step-first", "data-state"); st != store.SignSubmitted {
		t.Fatalf("first step after the read-back %q, want %q", st, store.SignSubmitted)
	}
	if st := mxAttr(doc, "mx-step-burn", "data-state"); st != "not_issued" {
		t.Fatalf("burn step %q", st)
	}

	resp = env.PostForm(c, page+"/sign-request", url.Values{})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("burn link: %d %q", resp.StatusCode, webtest.TestID(doc, "mx-order-error"))
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.MexicoSubmitRoute,
		"drop": true, "after": true, "times": 1})

	if code, ans := webtest.SignOnDevice(t, env, sepaMXNQRLink(t, env, doc), "treasury"); code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("burn with its answer lost: %d %v", code, ans)
	}
	if st := mxAttr(mxSteps(t, env, c, id), "mx-order-status", "data-state"); st != "funded" {
		t.Fatalf("order %q, want funded", st)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.MexicoSubmitRoute); n != 2 {
		t.Fatalf("%d signature submissions, want 2", n)
	}
}
