package moneytest

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Helpers of the EUR SEPA and Mexican offramp tests (prefixed sepaMXN:
// other rails' tests share the package).

// sepaMXNQRLink checks that a page's QR code carries its signing link and
// returns the link.
func sepaMXNQRLink(t *testing.T, env *webtest.Env, doc *goquery.Document) string {
	t.Helper()
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	src, _ := doc.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil || link == "" || webtest.DecodeQR(t, png) != link || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") {
		t.Fatalf("qr %.40q, link %q: %v", src, link, err)
	}
	return link
}

func sepaMXNAudit(t *testing.T, env *webtest.Env, action string) []store.AuditEntry {
	t.Helper()
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestMoneyOutSEPAJourney: the owner finds the rail, is told the EUR
// provider is not set up and starts it (the API refuses: its words are
// shown); once active, bad IBANs are refused at the field before any call;
// a good payout is reviewed (IBAN in groups of four), prepared once,
// signed on the device from the QR code, and followed to completed; the
// EURe balance falls by the amount.
func TestMoneyOutSEPAJourney(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)

	// No EURe wallet: the page says so and offers nothing to send.
	doc := webtest.Doc(t, env.Get(c, "/money-out/sepa"))
	if doc.Find(`[data-testid="sepa-no-wallet"]`).Length() != 1 || doc.Find(`[data-testid="sepa-form"]`).Length() != 0 {
		t.Fatal("no wallet: the page should say so and show no form")
	}
	idx := webtest.Doc(t, env.Get(c, "/money-out"))
	if idx.Find(`[data-testid="rail"] a[href="/money-out/sepa"]`).Length() != 1 {
		t.Fatal("Money out does not list the SEPA payout")
	}

	webtest.FundedTreasuryWallet(t, env, "EURe", "1000.00")
	doc = webtest.Doc(t, env.Get(c, "/money-out/sepa"))
	if st, _ := doc.Find(`[data-testid="sepa-provider"]`).Attr("data-status"); st != "none" || doc.Find(`[data-testid="sepa-form"]`).Length() != 0 {
		t.Fatalf("provider %q, form %d", st, doc.Find(`[data-testid="sepa-form"]`).Length())
	}
	if !strings.Contains(webtest.TestID(doc, "sepa-provider-words"), "not set up") {
		t.Fatalf("provider words %q", webtest.TestID(doc, "sepa-provider-words"))
	}
	// What is missing leads to the one place the EUR provider is set up;
	// the page has no start form of its own.
	assertSEPASetupLink(t, doc)

	webtest.SetSandboxState(t, env, "active", "users", env.Demo.TreasuryUserID, "onboarding", "eurProviderStatus")
	form := webtest.SEPAForm(t, env, c)
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "EURe")
	if !before.Equal(decimal.RequireFromString("1000")) {
		t.Fatalf("EURe before %s", before)
	}

	// Bad IBANs: refused at the field, in the summary, the input kept,
	// nothing sent.
	for _, tc := range []struct{ iban, want string }{
		{"DE89 3704 0044 0532 0130 01", "check digits do not match"}, // one digit changed
		{"DE89 3704 0044 0532 0130 0", "has 22 characters; this one has 21"},
		{"DE89 3704 0044 0532 0130 0A", "check digits do not match"},
		{"DEAB 3704 0044 0532 0130 00", "two check digits"},
		{"DE89-3704-0044-0532-0130-00", "only letters and digits"},
	} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set("iban", tc.iban)
		resp := env.PostForm(c, "/money-out/sepa", bad)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-iban-error"), tc.want) {
			t.Fatalf("iban %q: %d %q", tc.iban, resp.StatusCode, webtest.TestID(doc, "f-iban-error"))
		}
		if !strings.Contains(webtest.TestID(doc, "error-summary"), tc.want) || doc.Find(`[data-testid="error-summary"] a[href="#f-iban"]`).Length() != 1 {
			t.Fatalf("iban %q: summary %q", tc.iban, webtest.TestID(doc, "error-summary"))
		}
		webtest.FieldProblem(t, doc, "f-iban", tc.want)
		if doc.Find("#f-iban").AttrOr("value", "") != tc.iban || doc.Find("#f-beneficiary").AttrOr("value", "") != "Lena Schmidt" ||
			doc.Find("#f-amount").AttrOr("value", "") != "250.50" {
			t.Fatalf("iban %q: input lost", tc.iban)
		}
	}
	// Amounts: a comma that is not a thousands separator, cents beyond two
	// places and more than the wallet holds are refused at the field.
	for _, tc := range []struct{ amount, want string }{{"250,50", "use a point"}, {"1.005", "at most 2 decimal"}, {"1,000.01", "More than the wallet holds"}} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set("amount", tc.amount)
		resp := env.PostForm(c, "/money-out/sepa", bad)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), tc.want) {
			t.Fatalf("amount %q: %d %q", tc.amount, resp.StatusCode, webtest.TestID(doc, "f-amount-error"))
		}
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SEPAPrepareRoute); n != 0 {
		t.Fatalf("bad input sent %d prepares", n)
	}

	// Review: the IBAN in groups of four, the amount with its currency;
	// nothing sent.
	resp := env.PostForm(c, "/money-out/sepa", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || webtest.TestID(doc, "review-iban") != "DE89 3704 0044 0532 0130 00" ||
		webtest.TestID(doc, "review-amount") != "250.50 EUR (EURe)" {
		t.Fatalf("review: %d %q %q", resp.StatusCode, webtest.TestID(doc, "review-iban"), webtest.TestID(doc, "review-amount"))
	}
	if v, _ := doc.Find(`[data-testid="sepa-confirm-form"] input[name="reference"]`).Attr("value"); v != "Invoice 2026-11" {
		t.Fatalf("reference not carried: %q", v)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SEPAPrepareRoute); n != 0 {
		t.Fatalf("review sent %d prepares", n)
	}

	// Confirmed: 201 with the QR code of the device link.
	form.Set("confirm", "1")
	resp = env.PostForm(c, "/money-out/sepa", form)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("confirm: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	link := sepaMXNQRLink(t, env, doc)
	if st, _ := doc.Find(`[data-testid="sepa-order-state"]`).Attr("data-state"); st != "prepared" {
		t.Fatalf("order state %q", st)
	}
	if got := webtest.TestID(doc, "sepa-order-iban"); got != "DE•• … 3000" {
		t.Fatalf("order page IBAN %q (masked expected)", got)
	}
	var orderID int64
	var ibanMasked string
	if err := env.Store.Pool().QueryRow(ctx, `SELECT id, iban_masked FROM sepa_mxn_orders WHERE rail = 'sepa'`).Scan(&orderID, &ibanMasked); err != nil || ibanMasked != "DE•• … 3000" {
		t.Fatalf("order row: %q %v", ibanMasked, err)
	}
	page := "/money-out/sepa/" + strconv.FormatInt(orderID, 10)
	if a := sepaMXNAudit(t, env, "sepa_payout.prepare"); len(a) != 1 || a[0].Outcome != store.OutcomeOK || a[0].Target != "sepa_payout:"+strconv.FormatInt(orderID, 10) {
		t.Fatalf("audit %+v", a)
	}
	// The whole IBAN is kept nowhere: not in the ledger, the audit, or the logs.
	var ledger string
	_ = env.Store.Pool().QueryRow(ctx, `SELECT request::text FROM actions WHERE kind = 'sepa_payout.prepare'`).Scan(&ledger)
	if strings.Contains(ledger, "370400440532013000") || strings.Contains(env.Logs.String(), "370400440532013000") {
		t.Fatal("the IBAN was stored in the ledger or logged")
	}

	// The same form again: nothing sent, it leads to the order.
	resp = env.PostForm(c, "/money-out/sepa", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("second post: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SEPAPrepareRoute); n != 1 {
		t.Fatalf("%d prepares", n)
	}

	// Refused for HR and support; nothing sent.
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		other, _ := env.SignedIn(role)
		for _, r := range []*http.Response{env.Get(other, "/money-out/sepa"), env.PostForm(other, "/money-out/sepa", form),
			env.Get(other, page), env.PostForm(other, page+"/sign-request", url.Values{})} {
			r.Body.Close()
			if r.StatusCode != http.StatusForbidden {
				t.Fatalf("%s: %d", role, r.StatusCode)
			}
		}
	}

	// The owner's device signs; the app relays it once; the amount leaves
	// the wallet.
	code, ans := webtest.SignOnDevice(t, env, link, "treasury")
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device: %d %v", code, ans)
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/wallets/submit-signature"); n != 1 {
		t.Fatalf("%d signature submissions", n)
	}
	doc = webtest.Doc(t, env.Get(c, page))
	if st, _ := doc.Find(`[data-testid="sepa-order-state"]`).Attr("data-state"); st != "processing" || doc.Find(`[data-testid="sepa-link-form"]`).Length() != 0 {
		t.Fatalf("after signing: %q", st)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
	resp = env.Do(c, http.MethodGet, page, nil, http.Header{"HX-Request": {"true"}})
	doc = webtest.Doc(t, resp)
	if st, _ := doc.Find(`[data-testid="sepa-order-state"]`).Attr("data-state"); st != "completed" || doc.Find("#sepa-order-state[hx-get]").Length() != 0 {
		t.Fatalf("after settle: %q (the poll should stop)", st)
	}
	after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "EURe")
	if want := before.Sub(decimal.RequireFromString("250.50")); !after.Equal(want) {
		t.Fatalf("EURe after %s, want %s", after, want)
	}
}

// TestMoneyOutSEPAFiveConcurrentPostsPrepareOnce: five posts of one
// confirmed form at once (the API slow to answer) prepare one order and
// write one audit row; as a finance approver.
func TestMoneyOutSEPAFiveConcurrentPostsPrepareOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	webtest.SEPAReady(t, env)
	form := webtest.SEPAForm(t, env, c)
	form.Set("confirm", "1")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.SEPAPrepareRoute, "latencyMs": 300, "times": 1})
	got := env.PostFormAtOnce(c, "/money-out/sepa", form, 5)
	if got[http.StatusCreated] != 1 || got[http.StatusSeeOther] != 4 {
		t.Fatalf("answers %v, want one 201 and four 303", got)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SEPAPrepareRoute); n != 1 {
		t.Fatalf("%d prepares", n)
	}
	if a := sepaMXNAudit(t, env, "sepa_payout.prepare"); len(a) != 1 {
		t.Fatalf("%d audit rows", len(a))
	}
}

// TestMoneyOutSEPALostAnswersAreNotSentTwice: a prepare whose answer is
// lost after the API recorded it cannot be read back (the API lists no EUR
// orders): it stays unknown, the input is kept, and posting the same form
// again sends nothing.
func TestMoneyOutSEPALostAnswersAreNotSentTwice(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SEPAReady(t, env)
	form := webtest.SEPAForm(t, env, c)
	form.Set("confirm", "1")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.SEPAPrepareRoute, "after": true, "drop": true, "times": 1})
	resp := env.PostForm(c, "/money-out/sepa", form)
	doc := webtest.Doc(t, resp)
	if msg := webtest.TestID(doc, "sepa-error"); resp.StatusCode != http.StatusBadGateway || !strings.Contains(msg, "cannot be read back") ||
		!strings.Contains(msg, "expires by itself") {
		t.Fatalf("lost answer: %d %q", resp.StatusCode, msg)
	}
	if doc.Find("#f-iban").AttrOr("value", "") != webtest.SEPAIBAN || doc.Find("#f-amount").AttrOr("value", "") != "250.50" {
		t.Fatal("input lost")
	}
	if a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); err != nil || a.State != store.ActionUnknown {
		t.Fatalf("action %+v %v", a, err)
	}
	resp = env.PostForm(c, "/money-out/sepa", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("repost: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
	if st, _ := doc.Find(`[data-testid="sepa-mxn-request-state"]`).Attr("data-state"); st != string(store.ActionUnknown) ||
		!strings.Contains(webtest.TestID(doc, "flash"), "already sent") {
		t.Fatalf("request page: %q %q", st, webtest.TestID(doc, "flash"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SEPAPrepareRoute); n != 1 {
		t.Fatalf("%d prepares", n)
	}
	if a := sepaMXNAudit(t, env, "sepa_payout.prepare"); len(a) != 1 || a[0].Outcome != store.OutcomeUnknown {
		t.Fatalf("audit %+v", a)
	}

	// A failed onboarding: the page says so and leads to the set-up page,
	// where it is started again (its lost answer is railstest's).
	webtest.SetSandboxState(t, env, "failed", "users", env.Demo.TreasuryUserID, "onboarding", "eurProviderStatus")
	doc = webtest.Doc(t, env.Get(c, "/money-out/sepa"))
	if st, _ := doc.Find(`[data-testid="sepa-provider"]`).Attr("data-status"); st != "failed" ||
		!strings.Contains(webtest.TestID(doc, "sepa-provider-words"), "failed") {
		t.Fatalf("failed provider: %q %q", st, webtest.TestID(doc, "sepa-provider-words"))
	}
	assertSEPASetupLink(t, doc)
}

// assertSEPASetupLink: the SEPA page names what is missing and links to
// the rails' set-up page, with no start form (and no route) of its own.
func assertSEPASetupLink(t *testing.T, doc *goquery.Document) {
	t.Helper()
	link := doc.Find(`[data-testid="sepa-setup-link"]`)
	if href, _ := link.Attr("href"); href != "/treasury/rails/eur" || strings.TrimSpace(link.Text()) != "Set up EUR payouts" {
		t.Fatalf("set-up link %q %q", href, link.Text())
	}
	if doc.Find(`form[action="/money-out/sepa/onboarding"]`).Length() != 0 {
		t.Fatal("the SEPA page still has its own onboarding form")
	}
}

// TestMoneyOutSEPARefusalAndFailure: the API's refusal comes back at the
// field it names (a beneficiary name the API finds too long after the
// app's own check would be a defect, so an insufficient balance the
// mirror did not know is used), and a transfer the bank returns ends
// failed with the amount back in the wallet.
func TestMoneyOutSEPARefusalAndFailure(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	w := webtest.SEPAReady(t, env)
	// The mirror believes the wallet holds more than it does.
	w.Balance = decimal.NullDecimal{Decimal: decimal.RequireFromString("5000"), Valid: true}
	if err := env.Store.UpsertWallet(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	form := webtest.SEPAForm(t, env, c)
	form.Set("amount", "2000")
	form.Set("confirm", "1")
	resp := env.PostForm(c, "/money-out/sepa", form)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "sepa-error"), "Insufficient balance") {
		t.Fatalf("refused: %d %q", resp.StatusCode, webtest.TestID(doc, "sepa-error"))
	}
	if tok := doc.Find(`[data-testid="sepa-form"] input[name="form_token"]`).AttrOr("value", ""); tok == "" || tok == form.Get("form_token") {
		t.Fatal("a refused form must come back with a fresh token")
	}
	if a := sepaMXNAudit(t, env, "sepa_payout.prepare"); len(a) != 1 || a[0].Outcome != store.OutcomeRefused {
		t.Fatalf("audit %+v", a)
	}

	// The bank returns the transfer: failed, refunded.
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "EURe")
	form = webtest.SEPAForm(t, env, c)
	form.Set("confirm", "1")
	resp = env.PostForm(c, "/money-out/sepa", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("confirm: %d", resp.StatusCode)
	}
	link := sepaMXNQRLink(t, env, doc)
	if code, _ := webtest.SignOnDevice(t, env, link, "treasury"); code != http.StatusOK {
		t.Fatalf("device: %d", code)
	}
	if mid := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "EURe"); !mid.Equal(before.Sub(decimal.RequireFromString("250.50"))) {
		t.Fatalf("EURe while processing %s", mid)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/fail-next", map[string]any{"rail": "sepa"})
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", map[string]any{})
	var id int64
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT id FROM sepa_mxn_orders`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	doc = webtest.Doc(t, env.Get(c, "/money-out/sepa/"+strconv.FormatInt(id, 10)))
	if st, _ := doc.Find(`[data-testid="sepa-order-state"]`).Attr("data-state"); st != "failed" ||
		!strings.Contains(webtest.TestID(doc, "sepa-order-state"), "refunded") {
		t.Fatalf("failed order: %q %q", st, webtest.TestID(doc, "sepa-order-state"))
	}
	if after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "EURe"); !after.Equal(before) {
		t.Fatalf("EURe after the refund %s, want %s", after, before)
	}
}
