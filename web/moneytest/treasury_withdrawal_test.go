package moneytest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/views"
	"partneradmin/web/webtest"
)

// cryptoWorkflows lists the sandbox's crypto withdrawal workflows.
func cryptoWorkflows(t *testing.T, env *webtest.Env) []map[string]any {
	t.Helper()
	var out struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodGet, "/_sandbox/rails/workflows", nil), &out); err != nil {
		t.Fatal(err)
	}
	var cw []map[string]any
	for _, wf := range out.Data {
		if wf["kind"] == "crypto_withdrawal" {
			cw = append(cw, wf)
		}
	}
	return cw
}

// TestCryptoWithdrawalFromTheTreasuryIsSignedOnTheDevice: an owner starts a
// crypto withdrawal of the treasury's USDB wallet; bad input is refused at
// the fields with nothing sent; the API's signatureRequest becomes a QR code;
// posting the same form again sends nothing; the owner's device signs it
// and the rail completes it, taking the wallet's whole balance.
func TestCryptoWithdrawalFromTheTreasuryIsSignedOnTheDevice(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	webtest.SettleInFlight(t, env)
	before := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB")
	if !before.IsPositive() {
		t.Fatalf("treasury USDB balance %s", before)
	}

	// The treasury page links to the form; the form lists the wallets and
	// the API's routes for the chosen one.
	if doc := webtest.Doc(t, env.Get(c, "/treasury")); doc.Find(`[data-testid="withdrawal-link"]`).Length() != 1 {
		t.Fatal("no link to the crypto withdrawal from /treasury")
	}
	form, doc := webtest.WithdrawalForm(t, env, c, usd)
	if !strings.Contains(doc.Find("#f-wallet_id option[selected]").Text(), "USD (USDB)") {
		t.Fatalf("wallet choice: %q", doc.Find("#f-wallet_id option[selected]").Text())
	}
	if doc.Find(`#f-route option[value="base:USDC"]`).Length() != 1 {
		t.Fatalf("routes: %q", doc.Find("#f-route").Text())
	}
	// Choosing another wallet swaps the routes (htmx fragment).
	ngn := webtest.TreasuryWallet(t, env, "CNGN").ID
	resp := env.Do(c, http.MethodGet, "/treasury/withdrawal/routes?wallet_id="+ngn, nil, http.Header{"HX-Request": {"true"}})
	frag := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || frag.Find(`option[value="base:USDC"]`).Length() != 1 || frag.Find(`option[value="base:USDB"]`).Length() != 0 ||
		frag.Find("form, h1").Length() != 0 {
		t.Fatalf("CNGN routes: %d %q", resp.StatusCode, frag.Text())
	}

	// Bad input: 422, messages at the fields, the typed values kept, nothing
	// stored or sent upstream.
	for _, tc := range []struct{ addr, want string }{
		{"0x12", "40 hex characters"},
		{strings.Replace(webtest.WithdrawalDestination, "E", "e", 1), "EIP-55 checksum"},
		{"0x" + strings.Repeat("0", 40), "zero address"},
		{"0x2c7536E3605D9C16a7a3D7b1898e529396a65cZZ", "hex characters"},
	} {
		bad := url.Values{"form_token": form["form_token"], "wallet_id": {usd}, "route": {"base:USDC"}, "address": {tc.addr}}
		resp := env.PostForm(c, "/treasury/withdrawal", bad)
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-address-error"), tc.want) {
			t.Fatalf("address %q: %d %q", tc.addr, resp.StatusCode, webtest.TestID(doc, "f-address-error"))
		}
		if v, _ := doc.Find("#f-address").Attr("value"); v != tc.addr {
			t.Fatalf("typed address lost: %q", v)
		}
		if doc.Find(`#f-route option[value="base:USDC"][selected]`).Length() != 1 {
			t.Fatal("chosen route lost")
		}
		webtest.FieldProblem(t, doc, "f-address", tc.want)
	}
	resp = env.PostForm(c, "/treasury/withdrawal", url.Values{"form_token": form["form_token"], "wallet_id": {usd},
		"route": {"polygon:DAI"}, "address": {webtest.WithdrawalDestination}})
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-route-error"), "does not take USDB to DAI on polygon") {
		t.Fatalf("unsupported route: %d %q", resp.StatusCode, webtest.TestID(doc, "f-route-error"))
	}
	// An all-lower-case address has no checksum to check: accepted below.
	if n := len(cryptoWorkflows(t, env)); n != 0 || webtest.WithdrawalRows(t, env) != 0 {
		t.Fatalf("bad input sent %d withdrawals upstream, stored %d", n, webtest.WithdrawalRows(t, env))
	}

	// A good form is shown for review first: the whole balance read now,
	// the address in its checksummed form, and a warning that an address
	// in one case carries no checksum. Nothing is sent.
	form.Set("route", "base:USDC")
	form.Set("address", "0x"+strings.ToUpper(webtest.WithdrawalDestination[2:]))
	resp = env.PostForm(c, "/treasury/withdrawal", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="withdrawal-review"]`).Length() != 1 {
		t.Fatalf("review: %d", resp.StatusCode)
	}
	if got := webtest.TestID(doc, "review-amount"); !strings.HasPrefix(got, views.FormatDecimal(before, 2)+" USD (USDB) (read just now)") {
		t.Errorf("review amount %q", got)
	}
	if webtest.TestID(doc, "review-address") != webtest.WithdrawalDestination || webtest.TestID(doc, "review-route") != "USDC on base" ||
		webtest.TestID(doc, "review-no-checksum") == "" {
		t.Errorf("review: %q %q no-checksum %q", webtest.TestID(doc, "review-address"), webtest.TestID(doc, "review-route"),
			webtest.TestID(doc, "review-no-checksum"))
	}
	// The wrong end of the address: refused at the field, nothing sent.
	form.Set("confirm_tail", "c23abc")
	resp = env.PostForm(c, "/treasury/withdrawal", form)
	doc = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.TestID(doc, "f-confirm_tail-error"), "not the address's last 6") {
		t.Fatalf("wrong tail: %d %q", resp.StatusCode, webtest.TestID(doc, "f-confirm_tail-error"))
	}
	// "Change something" brings the form back as typed.
	edit := url.Values{"edit": {"1"}}
	for k, v := range form {
		edit[k] = v
	}
	doc = webtest.Doc(t, env.PostForm(c, "/treasury/withdrawal", edit))
	if doc.Find("#f-address").AttrOr("value", "") != form.Get("address") {
		t.Fatalf("edit lost the address: %q", doc.Find("#f-address").AttrOr("value", ""))
	}
	if n := len(cryptoWorkflows(t, env)); n != 0 || webtest.WithdrawalRows(t, env) != 0 {
		t.Fatalf("review sent %d withdrawals upstream, stored %d", n, webtest.WithdrawalRows(t, env))
	}

	// Confirmed (the tail in any case): 201 with the QR code of the device link.
	form.Set("address", strings.ToLower(webtest.WithdrawalDestination))
	form.Set("confirm_tail", strings.ToUpper(webtest.WithdrawalAddressTail(form.Get("address"))))
	resp = env.PostForm(c, "/treasury/withdrawal", form)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("withdraw: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	src, _ := doc.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil || webtest.DecodeQR(t, png) != link || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") {
		t.Fatalf("qr %.40q, link %q: %v", src, link, err)
	}
	poll, _ := doc.Find(`#sign-state`).Attr("hx-get")
	if !strings.HasPrefix(poll, "/sign-requests/") || doc.Find(`[data-testid="sign-countdown"]`).Length() != 1 {
		t.Fatalf("poll %q", poll)
	}
	if got := webtest.TestID(doc, "withdrawal-to"); got != webtest.WithdrawalDestination {
		t.Fatalf("destination shown %q, want the checksummed %q", got, webtest.WithdrawalDestination)
	}
	rid, _ := strconv.ParseInt(strings.TrimPrefix(poll, "/sign-requests/"), 10, 64)
	sr, err := env.Store.SignRequestByID(ctx, rid)
	if err != nil || sr.Kind != store.SignKindWorkflow || sr.WalletID != usd || sr.State != store.SignWaiting {
		t.Fatalf("sign request: %+v %v", sr, err)
	}
	wfs := cryptoWorkflows(t, env)
	if len(wfs) != 1 || wfs[0]["id"] != sr.WorkflowID || !strings.Contains(wfs[0]["destination"].(string), "base:USDC:"+webtest.WithdrawalDestination) {
		t.Fatalf("upstream workflows %v (sign request for %s)", wfs, sr.WorkflowID)
	}
	var wid int64
	var state string
	if err := env.Store.Pool().QueryRow(ctx, `SELECT id, state FROM crypto_withdrawals WHERE sign_request_id = $1`, rid).Scan(&wid, &state); err != nil || state != string(store.WithdrawalAwaitingSignature) {
		t.Fatalf("withdrawal row: %s %v", state, err)
	}
	audit, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "crypto_withdrawal.create"})
	if len(audit) != 1 || audit[0].Outcome != store.OutcomeOK || audit[0].Target != "crypto_withdrawal:"+strconv.FormatInt(wid, 10) {
		t.Fatalf("audit %+v", audit)
	}

	// The same form posted again (a double click, a reload): nothing is
	// sent; it leads to the withdrawal the first post started.
	resp = env.PostForm(c, "/treasury/withdrawal", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/treasury/withdrawal/"+strconv.FormatInt(wid, 10) {
		t.Fatalf("second post: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := len(cryptoWorkflows(t, env)); n != 1 || webtest.WithdrawalRows(t, env) != 1 {
		t.Fatalf("second post: %d withdrawals upstream, %d stored", n, webtest.WithdrawalRows(t, env))
	}

	// Refused as a role without the treasury permission; nothing sent.
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	for _, r := range []*http.Response{env.Get(hr, "/treasury/withdrawal"), env.PostForm(hr, "/treasury/withdrawal", form),
		env.Get(hr, "/treasury/withdrawal/"+strconv.FormatInt(wid, 10))} {
		r.Body.Close()
		if r.StatusCode != http.StatusForbidden {
			t.Fatalf("hr_admin: %d", r.StatusCode)
		}
	}
	if n := len(cryptoWorkflows(t, env)); n != 1 {
		t.Fatalf("hr_admin sent a withdrawal: %d", n)
	}

	// The owner's device signs the hash; the app relays it once.
	u, _ := url.Parse(link)
	code, req := webtest.DeviceGet(t, env, u.Path)
	if code != http.StatusOK || req["kind"] != "workflow" || req["hashToSign"] != wfs[0]["hashToSign"] ||
		!strings.Contains(req["summary"].(map[string]any)["title"].(string), webtest.WithdrawalDestination) {
		t.Fatalf("device get: %d %v", code, req)
	}
	code, ans := webtest.DevicePost(t, env, u.Path, webtest.SignHash(t, webtest.OwnerKey(t, env, "treasury"), req["hashToSign"]).Hex())
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post: %d %v", code, ans)
	}
	if st, _ := webtest.SignState(t, env, c, webtest.SignLink{PollID: poll}); st != store.SignSubmitted {
		t.Fatalf("sign state %q", st)
	}

	// The rail settles: the workflow is completed and the wallet's whole
	// balance has left it.
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	wfs = cryptoWorkflows(t, env)
	if len(wfs) != 1 || wfs[0]["status"] != "completed" || wfs[0]["amount"] != before.String() {
		t.Fatalf("after settle: %v (balance before %s)", wfs, before)
	}
	if after := webtest.CoinBalance(t, env, env.Demo.TreasuryUserID, "USDB"); !after.IsZero() {
		t.Fatalf("USDB balance after the withdrawal %s", after)
	}

	// The withdrawal's page shows it signed, with no new link to issue.
	doc = webtest.Doc(t, env.Get(c, "/treasury/withdrawal/"+strconv.FormatInt(wid, 10)))
	if st, _ := doc.Find(`[data-testid="withdrawal-state"]`).Attr("data-state"); st != string(store.WithdrawalAwaitingSignature) ||
		!strings.Contains(webtest.TestID(doc, "withdrawal-state"), "signed") || doc.Find(`[data-testid="withdrawal-link-form"]`).Length() != 0 {
		t.Fatalf("record page: %q %q", st, webtest.TestID(doc, "withdrawal-state"))
	}
	resp = env.PostForm(c, "/treasury/withdrawal/"+strconv.FormatInt(wid, 10)+"/sign-request", url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("new link after signing: %d", resp.StatusCode)
	}
}

// TestCryptoWithdrawalUpstreamFailuresKeepTheInputAndSendOnce: a 5xx and a
// dropped connection leave the outcome unknown (the API has no way to read
// a withdrawal back): the form is shown again with what was typed, the
// request is audited as unknown, and the same form posted again sends
// nothing and shows the request; a new post (its fresh token) sends exactly
// one withdrawal.
func TestCryptoWithdrawalUpstreamFailuresKeepTheInputAndSendOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	route := "/v1/users/{userId}/withdrawal/smart-wallet/crypto"

	for i, fault := range []map[string]any{
		{"method": "POST", "route": route, "status": 503, "times": 1},
		{"method": "POST", "route": route, "drop": true, "times": 1},
	} {
		form, _ := webtest.WithdrawalForm(t, env, c, usd)
		form.Set("route", "ethereum:USDT")
		form.Set("address", webtest.WithdrawalDestination)
		form.Set("confirm_tail", webtest.WithdrawalAddressTail(form.Get("address")))
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", fault)
		resp := env.PostForm(c, "/treasury/withdrawal", form)
		doc := webtest.Doc(t, resp)
		if msg := webtest.TestID(doc, "withdrawal-error"); resp.StatusCode != http.StatusBadGateway ||
			!strings.Contains(msg, "cannot be read back") || !strings.Contains(msg, "expires by itself") {
			t.Fatalf("fault %d: %d %q", i, resp.StatusCode, msg)
		}
		if v, _ := doc.Find("#f-address").Attr("value"); v != webtest.WithdrawalDestination {
			t.Fatalf("fault %d: address lost: %q", i, v)
		}
		if doc.Find(`#f-route option[value="ethereum:USDT"][selected]`).Length() != 1 {
			t.Fatalf("fault %d: route lost", i)
		}
		fresh, _ := doc.Find(`input[name="form_token"]`).Attr("value")
		if fresh == "" || fresh == form.Get("form_token") {
			t.Fatalf("fault %d: the spent token is offered again", i)
		}
		if a, err := env.Store.ActionByKey(ctx, "form:"+form.Get("form_token")); err != nil || a.State != store.ActionUnknown {
			t.Fatalf("fault %d: action %+v %v", i, a, err)
		}
		// The spent form again: nothing sent, the request is shown.
		resp = env.PostForm(c, "/treasury/withdrawal", form)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("fault %d: repost %d", i, resp.StatusCode)
		}
		doc = webtest.Doc(t, env.Get(c, resp.Header.Get("Location")))
		if st, _ := doc.Find(`[data-testid="withdrawal-state"]`).Attr("data-state"); st != string(store.ActionUnknown) ||
			!strings.Contains(webtest.TestID(doc, "flash"), "already sent") || !strings.Contains(webtest.TestID(doc, "withdrawal-record-error"), "expires by itself") {
			t.Fatalf("fault %d: record %q %q", i, st, webtest.TestID(doc, "flash"))
		}
		if n := len(cryptoWorkflows(t, env)); n != 0 || webtest.WithdrawalRows(t, env) != 0 {
			t.Fatalf("fault %d: %d withdrawals upstream, %d stored", i, n, webtest.WithdrawalRows(t, env))
		}
	}
	if n := env.Sandbox.RequestCount("POST", route); n != 2 {
		t.Fatalf("%d withdrawal calls, want 2 (one per form)", n)
	}
	audit, _ := env.Store.ListAudit(ctx, store.AuditFilter{Action: "crypto_withdrawal.create"})
	if len(audit) != 2 || audit[0].Outcome != store.OutcomeUnknown || audit[1].Outcome != store.OutcomeUnknown {
		t.Fatalf("audit %+v", audit)
	}

	// The API is back: the fresh form sends one withdrawal.
	form, _ := webtest.WithdrawalForm(t, env, c, usd)
	form.Set("route", "ethereum:USDT")
	form.Set("address", webtest.WithdrawalDestination)
	form.Set("confirm_tail", webtest.WithdrawalAddressTail(form.Get("address")))
	resp := env.PostForm(c, "/treasury/withdrawal", form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || len(cryptoWorkflows(t, env)) != 1 {
		t.Fatalf("after the faults: %d, %d upstream", resp.StatusCode, len(cryptoWorkflows(t, env)))
	}
}

// TestCryptoWithdrawalDoubleClickSendsOne: two posts of the same form at
// once (the second while the API is still answering the first) open one
// withdrawal; the second answer leads to it.
func TestCryptoWithdrawalDoubleClickSendsOne(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	form, _ := webtest.WithdrawalForm(t, env, c, usd)
	form.Set("route", "base:USDB")
	form.Set("address", webtest.WithdrawalDestination)
	form.Set("confirm_tail", webtest.WithdrawalAddressTail(form.Get("address")))
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST",
		"route": "/v1/users/{userId}/withdrawal/smart-wallet/crypto", "latencyMs": 400, "times": 1})

	got := env.PostFormAtOnce(c, "/treasury/withdrawal", form, 2)
	if got[http.StatusCreated] != 1 || got[http.StatusSeeOther] != 1 {
		t.Fatalf("answers %v, want one 201 and one 303", got)
	}
	if n := len(cryptoWorkflows(t, env)); n != 1 || webtest.WithdrawalRows(t, env) != 1 {
		t.Fatalf("%d withdrawals upstream, %d stored", n, webtest.WithdrawalRows(t, env))
	}
}
