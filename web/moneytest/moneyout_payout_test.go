package moneytest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// sandboxPayoutAmount is the amount field of the payout the sandbox
// recorded, as it read it from the request body.
func sandboxPayoutAmount(t *testing.T, env *webtest.Env, id string) string {
	t.Helper()
	var state map[string]any
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/state", nil), &state); err != nil {
		t.Fatal(err)
	}
	var find func(any) string
	find = func(x any) string {
		switch m := x.(type) {
		case map[string]any:
			if ps, ok := m["payouts"].(map[string]any); ok {
				if p, ok := ps[id].(map[string]any); ok {
					b, _ := json.Marshal(p["amount"])
					return string(b)
				}
			}
			for _, v := range m {
				if s := find(v); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return find(state)
}

// TestMoneyOutPayoutJourney: a payout to a bank with branches, the branch
// asked, a bad account refused at the field, the USD decimal shown with
// what leaves the USDB wallet (read back from the request) and sent as exactly that; five confirms
// send one payout; signed on the owner's device, the wallet falls by the
// amount and the page follows the payout to completed.
func TestMoneyOutPayoutJourney(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env) // the app verifies the sandbox's webhooks
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB")

	if doc := webtest.Doc(t, env.Get(c, "/money-out")); doc.Find(`a[href="/money-out/payout"]`).Length() != 1 {
		t.Fatal("no bank payout in the money-out index")
	}
	doc := webtest.Doc(t, env.Get(c, "/money-out/payout"))
	if doc.Find(`#f-country option[value="CAN"]`).Length() != 1 || doc.Find(`#f-country option[value="USA"]`).Length() != 0 {
		t.Fatalf("countries: %q", doc.Find("#f-country").Text())
	}
	// A bank with branches asks for one.
	doc = webtest.PayoutStep(t, env, c, url.Values{"step": {"branch"}, "country": {"CAN"}, "bank_id": {"can-rbc"}}, http.StatusUnprocessableEntity)
	if !strings.Contains(webtest.TestID(doc, "f-branch_id-error"), "branch") {
		t.Fatalf("branch: %q", webtest.TestID(doc, "f-branch_id-error"))
	}
	// An account the API says does not exist: its words at the field.
	doc = webtest.PayoutStep(t, env, c, url.Values{"step": {"account"}, "country": {"CAN"}, "bank_id": {"can-rbc"}, "branch_id": {"can-rbc-00002"},
		"account_number": {"1234560000"}}, http.StatusUnprocessableEntity)

	if !strings.Contains(webtest.TestID(doc, "f-account_number-error"), "No account") || doc.Find("#f-account_number").AttrOr("value", "") != "1234560000" {
		t.Fatalf("bad account: %q", webtest.TestID(doc, "f-account_number-error"))
	}
	webtest.FieldProblem(t, doc, "f-account_number", "No account")
	if n := env.Sandbox.RequestCount("POST", webtest.PayoutRoute); n != 0 {
		t.Fatalf("%d payouts sent before confirming", n)
	}

	form, doc := webtest.PayoutReview(t, env, c, "CAN", "can-rbc", "can-rbc-00002", "1234567", "1,250.50")
	if got, sent := webtest.TestID(doc, "payout-review-amount"), webtest.TestID(doc, "payout-review-sent"); got != "1,250.50 USD (USDB)" || sent != "1,250.50 USDB" {
		t.Fatalf("review amount %q, leaving the wallet %q", got, sent)
	}
	noMinorUnits(t, doc, "the payout review")
	if !strings.Contains(webtest.TestID(doc, "payout-review-to"), "Toronto Main") {
		t.Fatalf("review to %q", webtest.TestID(doc, "payout-review-to"))
	}
	// An amount with a cent fraction USDB cannot carry: at the amount field
	// and in the summary, in people's words, with what was typed kept.
	bad := url.Values{"step": {"amount"}, "amount": {"12.345"}, "note": {"Rent, November"}}
	for _, k := range []string{"country", "bank_id", "branch_id", "account_number", "holder"} {
		bad.Set(k, form.Get(k))
	}
	doc = webtest.PayoutStep(t, env, c, bad, http.StatusUnprocessableEntity)
	webtest.FieldProblem(t, doc, "f-amount", "")
	noMinorUnits(t, doc, "the payout amount step")
	if doc.Find("#f-amount").AttrOr("value", "") != "12.345" || doc.Find("#f-note").Text() != "Rent, November" {
		t.Fatalf("typed amount or note lost: %q %q", doc.Find("#f-amount").AttrOr("value", ""), doc.Find("#f-note").Text())
	}
	if label := doc.Find(`label[for="f-amount"]`).Text(); label != "Amount (USD)" {
		t.Fatalf("amount label %q", label)
	}

	// Five confirms at once: one payout upstream, one audit row.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var created []byte
	codes := make([]int, 5)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp := env.PostForm(c, "/money-out/payout/confirm", form)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
			if resp.StatusCode == http.StatusCreated {
				mu.Lock()
				created = b
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if n := env.Sandbox.RequestCount("POST", webtest.PayoutRoute); n != 1 || created == nil {
		t.Fatalf("%d payout calls, codes %v", n, codes)
	}
	if n := npAuditCount(t, env, "bank_payout.create"); n != 1 {
		t.Fatalf("%d payout audit rows", n)
	}
	page, err := goquery.NewDocumentFromReader(strings.NewReader(string(created)))
	if err != nil {
		t.Fatal(err)
	}
	var p store.BankPayout
	if err := env.Store.Pool().QueryRow(ctx, `SELECT id, upstream_id FROM payouts`).Scan(&p.ID, &p.UpstreamID); err != nil {
		t.Fatal(err)
	}
	// The amount the sandbox read from the request body: minor units.
	if got := sandboxPayoutAmount(t, env, p.UpstreamID); got != "125050" && got != `"125050"` {
		t.Fatalf("sandbox payout amount %s, want 125050 minor units", got)
	}
	if page.Find(`[data-testid="payout-quote-expiry"] [data-countdown]`).Length() != 1 ||
		!strings.Contains(webtest.TestID(page, "payout-quote-to"), "CAD") {
		t.Fatalf("quote: %q %q", webtest.TestID(page, "payout-quote-expiry"), webtest.TestID(page, "payout-quote-to"))
	}
	// The payout's page, what its signing link shows in a browser and the
	// audit row speak of dollars and USDB, never of minor units.
	noMinorUnits(t, page, "the payout's page")
	if got := webtest.TestID(page, "payout-sent"); got != "1,250.50 USDB" {
		t.Fatalf("leaves the wallet %q", got)
	}
	if id := page.Find(`#payout-upstream-id`); id.AttrOr("data-full", "") != p.UpstreamID {
		t.Fatalf("payout id %q, want %q shortened with its whole value", id.Text(), p.UpstreamID)
	}
	link := page.Find(`[data-testid="sign-link"]`).AttrOr("value", "")
	u, _ := url.Parse(link)
	noMinorUnits(t, webtest.Doc(t, env.Get(env.Client(), u.Path)), "the payout's signing link in a browser")
	if rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Action: "bank_payout.create"}); err != nil || len(rows) != 1 ||
		strings.Contains(rows[0].Detail, "minor unit") || !strings.Contains(rows[0].Detail, "1,250.50 USDB") {
		t.Fatalf("payout audit %+v %v", rows, err)
	}
	code, req := webtest.DeviceGet(t, env, u.Path)
	if code != http.StatusOK {
		t.Fatalf("device get: %d", code)
	}
	if code, ans := webtest.DevicePost(t, env, u.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex()); code != http.StatusOK {
		t.Fatalf("device post: %d %v", code, ans)
	}
	after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB")
	if !before.Sub(after).Equal(decimal.RequireFromString("1250.50")) {
		t.Fatalf("USDB %s → %s, want a fall of 1250.50", before, after)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", nil)
	pagePath := "/money-out/payouts/" + strings.TrimSpace(strings.TrimPrefix(page.Find("h1").Text(), "Bank payout "))
	webtest.WaitFor(t, "payout completed", 30*time.Second, func() bool {
		d := webtest.Doc(t, env.Get(c, pagePath))
		return d.Find(`[data-testid="payout-state"][data-state="completed"]`).Length() == 1
	})

	if n := npAuditCount(t, env, "bank_payout.settle"); n != 1 {
		t.Fatalf("%d settle audit rows", n)
	}
}

// TestMoneyOutPayoutNoBranchRefusalAndLostAnswer: a bank without branches
// is not asked for one; the API's refusal is shown at the amount; a lost
// answer is never sent again and the page says what to check; HR admins
// and support get 403.
func TestMoneyOutPayoutNoBranchRefusalAndLostAnswer(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	form, doc := webtest.PayoutReview(t, env, c, "GBR", "gbr-barclays", "", "12345678", "0.50")
	if !strings.Contains(webtest.TestID(doc, "payout-branch-name"), "none needed") {
		t.Fatalf("branch: %q", webtest.TestID(doc, "payout-branch-name"))
	}
	resp := env.PostForm(c, "/money-out/payout/confirm", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-amount-error"), "fee") {
		t.Fatalf("refused: %d %q %q", resp.StatusCode, webtest.TestID(doc, "f-amount-error"), doc.Find(`[data-testid="payout-error"]`).Text())
	}

	form, _ = webtest.PayoutReview(t, env, c, "GBR", "gbr-barclays", "", "12345678", "100")
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.PayoutRoute, "drop": true, "after": true, "times": 1})
	resp = env.PostForm(c, "/money-out/payout/confirm", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "payout-error"), "no read of a payout") {
		t.Fatalf("lost: %d %q", resp.StatusCode, webtest.TestID(doc, "payout-error"))
	}
	// The same form again sends nothing: the page of the first says what
	// to check.
	resp = env.PostForm(c, "/money-out/payout/confirm", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("repeat: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
	if webtest.TestID(doc, "payout-state") != "outcome unknown" || !strings.Contains(webtest.TestID(doc, "payout-record-error"), "no read of a payout") {
		t.Fatalf("unknown payout page: %q %q", webtest.TestID(doc, "payout-state"), webtest.TestID(doc, "payout-record-error"))
	}
	if n := env.Sandbox.RequestCount("POST", webtest.PayoutRoute); n != 2 {
		t.Fatalf("%d payout calls, want 2 (the refused one and the lost one)", n)
	}
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		rc, _ := env.SignedIn(role)
		for _, path := range []string{"/money-out/payout", "/money-out/payout/confirm"} {
			resp := env.PostForm(rc, path, form)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s %s: %d", role, path, resp.StatusCode)
			}
		}
	}
}

// TestMoneyOutPayoutQuoteExpiryIsEnforced: once the payout's quote (and its
// signing deadline) has passed, the page says so and offers a new payout
// for a fresh quote, no new signing link is issued, and the device's link
// no longer works: nothing is submitted upstream.
func TestMoneyOutPayoutQuoteExpiryIsEnforced(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	env := webtest.New(t, webtest.Options{Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	c, _ := env.SignedIn(store.RoleOwner)
	form, _ := webtest.PayoutReview(t, env, c, "KEN", "ken-kcb", "", "1234567890", "75")
	resp := env.PostForm(c, "/money-out/payout/confirm", form)
	page := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated || page.Find(`[data-testid="payout-quote-expiry"] [data-countdown]`).Length() != 1 {
		t.Fatalf("confirm: %d %q", resp.StatusCode, webtest.TestID(page, "payout-quote-expiry"))
	}
	link, _ := url.Parse(page.Find(`[data-testid="sign-link"]`).AttrOr("value", ""))
	path := "/money-out/payouts/" + strings.TrimPrefix(page.Find("h1").Text(), "Bank payout ")

	offset.Store(int64(11 * time.Minute))
	doc := webtest.Doc(t, env.Get(c, path))
	if doc.Find(`[data-testid="payout-quote-expired"]`).Length() != 1 || doc.Find(`[data-testid="payout-requote"] a[href="/money-out/payout"]`).Length() != 1 ||
		doc.Find(`[data-testid="payout-link-form"]`).Length() != 0 || doc.Find(`#payout-record[hx-get]`).Length() != 0 {
		t.Fatalf("expired page: %q", webtest.TestID(doc, "payout-record-error"))
	}
	resp = env.PostForm(c, path+"/sign-request", url.Values{})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "payout-record-error"), "quote expired") {
		t.Fatalf("new link after expiry: %d %q", resp.StatusCode, webtest.TestID(doc, "payout-record-error"))
	}
	if code, _ := webtest.DeviceGet(t, env, link.Path); code != http.StatusGone {
		t.Fatalf("device get after expiry: %d", code)
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/users/{userId}/wallets/submit-signature"); n != 0 {
		t.Fatalf("%d signatures submitted after expiry", n)
	}
}

// TestMoneyOutPayoutFailedOnTheRail: a signed payout the beneficiary bank
// returns is followed to failed with the rail's reason, once (one audit
// row however often the page polls), and the USDB balance is whole again.
func TestMoneyOutPayoutFailedOnTheRail(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{StartWorkers: true})
	webtest.AdoptWebhookSecret(t, env)
	c, _ := env.SignedIn(store.RoleOwner)
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB")
	form, _ := webtest.PayoutReview(t, env, c, "IND", "ind-hdfc", "ind-hdfc-0000240", "123456789", "99.99")
	resp := env.PostForm(c, "/money-out/payout/confirm", form)
	page := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("confirm: %d %q", resp.StatusCode, webtest.TestID(page, "payout-error"))
	}
	path := "/money-out/payouts/" + strings.TrimPrefix(page.Find("h1").Text(), "Bank payout ")
	link, _ := url.Parse(page.Find(`[data-testid="sign-link"]`).AttrOr("value", ""))
	_, req := webtest.DeviceGet(t, env, link.Path)
	if code, ans := webtest.DevicePost(t, env, link.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex()); code != http.StatusOK {
		t.Fatalf("device post: %d %v", code, ans)
	}
	if got := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB"); !before.Sub(got).Equal(decimal.RequireFromString("99.99")) {
		t.Fatalf("USDB after signing %s, before %s", got, before)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/fail-next", map[string]any{"rail": "payout"})
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/rails/settle", nil)

	// The record's poll (htmx) answers the fragment, and stops once final.
	var frag *goquery.Document
	webtest.WaitFor(t, "payout failed", 30*time.Second, func() bool {
		resp := env.Do(c, http.MethodGet, path, nil, http.Header{"HX-Request": {"true"}})
		frag = webtest.Doc(t, resp)
		return frag.Find(`[data-testid="payout-state"][data-state="failed"]`).Length() == 1
	})

	if frag.Find("h1").Length() != 0 || frag.Find(`#payout-record[hx-get]`).Length() != 0 ||
		!strings.Contains(webtest.TestID(frag, "payout-record-error"), "returned the payout") {
		t.Fatalf("failed fragment: %q", webtest.TestID(frag, "payout-record-error"))
	}
	for range 3 {
		env.Get(c, path).Body.Close()
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "bank_payout.settle"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeFailed {
		t.Fatalf("settle audit %+v", rows)
	}
	if got := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB"); !got.Equal(before) {
		t.Fatalf("USDB after the refund %s, want %s", got, before)
	}
}

// TestMoneyOutListsTheAPIDoesNotAnswer: when a list the step needs cannot
// be read, the page says so (never a 500) and keeps what was chosen.
func TestMoneyOutListsTheAPIDoesNotAnswer(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	for _, route := range []string{"/v1/users/{userId}/bank-accounts/nigerian-banks", "/v1/users/{userId}/payouts/countries",
		"/v1/users/{userId}/payouts/banks"} {
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": route, "status": 503, "times": 0})
	}
	resp := env.Get(c, "/money-out/nigeria")
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "ngn-banks-unavailable"), "did not list the banks") {
		t.Fatalf("nigeria: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-banks-unavailable"))
	}
	resp = env.PostForm(c, "/money-out/nigeria/verify", url.Values{"bank_code": {webtest.NigeriaTreasuryBank}, "account_number": {webtest.NigeriaTreasuryNUBAN}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || doc.Find("#f-account_number").AttrOr("value", "") != webtest.NigeriaTreasuryNUBAN ||
		env.Sandbox.RequestCount("POST", webtest.NigeriaVerifyRoute) != 0 {
		t.Fatalf("verify without banks: %d %q", resp.StatusCode, webtest.TestID(doc, "ngn-error"))
	}
	resp = env.Get(c, "/money-out/payout")
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "payout-unavailable"), "did not list the payout countries") {
		t.Fatalf("payout: %d %q", resp.StatusCode, webtest.TestID(doc, "payout-unavailable"))
	}
	webtest.SandboxControl(t, env, http.MethodDelete, "/_sandbox/faults", nil)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "GET", "route": "/v1/users/{userId}/payouts/banks", "status": 503, "times": 0})
	resp = env.PostForm(c, "/money-out/payout", url.Values{"step": {"country"}, "country": {"GHA"}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(webtest.TestID(doc, "payout-unavailable"), "did not list the banks of Ghana") {
		t.Fatalf("payout banks: %d %q", resp.StatusCode, webtest.TestID(doc, "payout-unavailable"))
	}
}
