package approvaltest

import (
	"context"
	"encoding/base64"
	_ "image/png"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

func TestSignRequestFromQRToCompleted(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Team lunch")
	key := webtest.OwnerKey(t, env, "treasury")
	emily := ""
	for _, e := range env.Demo.Employees {
		if e.FirstName == "Emily" {
			emily = e.ServiceUserID
		}
	}
	before := webtest.CoinBalance(t, env, emily, "USDB")

	l := webtest.IssueSignLink(t, env, c, id)
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignWaiting {
		t.Fatalf("state %q", st)
	}
	// A browser gets a page that says to use the wallet app.
	resp := env.Get(env.Client(), l.Path)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "sign-device"), "wallet app") {
		t.Fatalf("browser page: %d", resp.StatusCode)
	}
	code, req := webtest.DeviceGet(t, env, l.Path)
	if code != http.StatusOK || req["kind"] != "proposal" {
		t.Fatalf("device get: %d %v", code, req)
	}
	sum, _ := req["summary"].(map[string]any)
	if sum["amount"] != "75.25" || sum["currency"] != "USD" || !strings.Contains(sum["to"].(string), "Emily") {
		t.Fatalf("summary %v", sum)
	}
	if owner, _ := req["ownerAddress"].(string); !strings.EqualFold(owner, ethsig.KeyAddress(key).Hex()) {
		t.Fatalf("owner %v", req["ownerAddress"])
	}
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignOpened {
		t.Fatalf("state after GET %q", st)
	}
	// v of 0/1 is normalised before relaying.
	sig := webtest.SignHash(t, key, req["hashToSign"])
	sig[64] -= 27
	code, ans := webtest.DevicePost(t, env, l.Path, sig.Hex())
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post: %d %v", code, ans)
	}
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignSubmitted {
		t.Fatalf("state after post %q", st)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignCompleted {
		t.Fatalf("state after settle %q", st)
	}
	// The lunch moved from the treasury to Emily.
	if got := webtest.CoinBalance(t, env, emily, "USDB"); !got.Sub(before).Equal(decimal.RequireFromString("75.25")) {
		t.Fatalf("Emily's balance %s → %s", before, got)
	}
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if p.Status != store.ProposalCompleted {
		t.Fatalf("mirror status %s", p.Status)
	}
	// The used link answers 410 and sends nothing.
	if code, _ := webtest.DevicePost(t, env, l.Path, sig.Hex()); code != http.StatusGone {
		t.Fatalf("reuse: %d", code)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "sign_request.submit"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit %+v", rows)
	}
	if n := env.Sandbox.RequestCount("POST", webtest.SignRoute); n != 1 {
		t.Fatalf("%d sign calls upstream", n)
	}
	// Only approvers create sign requests.
	sup, _ := env.SignedIn(store.RoleSupport)
	if resp := env.PostForm(sup, "/approvals/"+id+"/sign-requests", webtest.WithFormToken(url.Values{})); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support: %d", resp.StatusCode)
	}
}

func TestSignRequestRefusalsSendNothing(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	env := webtest.New(t, webtest.Options{Now: now})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Team lunch")
	key := webtest.OwnerKey(t, env, "treasury")
	other, _ := ethsig.GenerateKey()

	refusals := []struct {
		name  string
		sign  func(hash any) string
		state string
		want  string
	}{
		{"not hex", func(any) string { return "0x" + strings.Repeat("zz", 65) }, store.SignRefused, "130 hex"},
		{"too short", func(any) string { return "0x" + strings.Repeat("ab", 64) }, store.SignRefused, "130 hex"},
		{"base64", func(h any) string {
			return base64.StdEncoding.EncodeToString(func() []byte { s := webtest.SignHash(t, key, h); return s[:] }())
		}, store.SignRefused, "130 hex"},
		{"bad v", func(h any) string { s := webtest.SignHash(t, key, h); s[64] = 9; return s.Hex() }, store.SignRefused, "130 hex"},
		{"message prefix", func(h any) string {
			hh, _ := ethsig.ParseHash(h.(string))
			return ethsig.SignMessage(key, hh[:]).Hex()
		}, store.SignRefused, "signed-message prefix"},
		{"another key", func(h any) string { return webtest.SignHash(t, other, h).Hex() }, store.SignRefused, "not from the wallet's registered owner"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			l := webtest.IssueSignLink(t, env, c, id)
			code, req := webtest.DeviceGet(t, env, l.Path)
			if code != http.StatusOK {
				t.Fatalf("get: %d", code)
			}
			code, ans := webtest.DevicePost(t, env, l.Path, tc.sign(req["hashToSign"]))
			if code != http.StatusUnprocessableEntity || !strings.Contains(ans["error"].(string), tc.want) {
				t.Fatalf("post: %d %v", code, ans)
			}
			st, msg := webtest.SignState(t, env, c, l)
			if st != tc.state || !strings.Contains(msg, tc.want) {
				t.Fatalf("approver sees %q %q", st, msg)
			}
			if n := webtest.CollectedSignatures(t, env, id); n != 0 {
				t.Fatalf("upstream got %d signatures", n)
			}
		})
	}

	t.Run("unknown token", func(t *testing.T) {
		if code, _ := webtest.DevicePost(t, env, "/sign/"+strings.Repeat("A", 43), "0x00"); code != http.StatusNotFound {
			t.Fatalf("post: %d", code)
		}
		if code, _ := webtest.DeviceGet(t, env, "/sign/nope"); code != http.StatusNotFound {
			t.Fatalf("get: %d", code)
		}
	})
	t.Run("reissued link replaces the old one", func(t *testing.T) {
		old := webtest.IssueSignLink(t, env, c, id)
		_, req := webtest.DeviceGet(t, env, old.Path)
		webtest.IssueSignLink(t, env, c, id)
		code, ans := webtest.DevicePost(t, env, old.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
		if code != http.StatusGone || !strings.Contains(ans["error"].(string), "replaced") {
			t.Fatalf("old link: %d %v", code, ans)
		}
		if st, _ := webtest.SignState(t, env, c, old); st != store.SignSuperseded {
			t.Fatalf("old state %q", st)
		}
	})
	t.Run("expired link", func(t *testing.T) {
		l := webtest.IssueSignLink(t, env, c, id)
		_, req := webtest.DeviceGet(t, env, l.Path)
		offset.Store(int64(16 * time.Minute))
		defer offset.Store(0)
		code, ans := webtest.DevicePost(t, env, l.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
		if code != http.StatusGone || !strings.Contains(ans["error"].(string), "expired") {
			t.Fatalf("expired: %d %v", code, ans)
		}
		if code, _ := webtest.DeviceGet(t, env, l.Path); code != http.StatusGone {
			t.Fatalf("get expired: %d", code)
		}
		if st, _ := webtest.SignState(t, env, c, l); st != store.SignExpired {
			t.Fatalf("state %q", st)
		}
	})
	if n := webtest.CollectedSignatures(t, env, id); n != 0 {
		t.Fatalf("upstream got %d signatures", n)
	}

	t.Run("upstream refuses: words on both sides", func(t *testing.T) {
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST",
			"route": webtest.SignRoute, "status": 500, "message": "Point is not on curve", "times": 1})

		l := webtest.IssueSignLink(t, env, c, id)
		_, req := webtest.DeviceGet(t, env, l.Path)
		code, ans := webtest.DevicePost(t, env, l.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
		if code != http.StatusBadGateway || !strings.Contains(ans["error"].(string), "Point is not on curve") {
			t.Fatalf("post: %d %v", code, ans)
		}
		if st, msg := webtest.SignState(t, env, c, l); st != store.SignRefused || !strings.Contains(msg, "65 bytes") {
			t.Fatalf("approver sees %q %q", st, msg)
		}
	})
	t.Run("upstream does not answer and recorded nothing: unknown, then not done", func(t *testing.T) {
		calls := env.Sandbox.RequestCount("POST", webtest.SignRoute)
		webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": webtest.SignRoute, "drop": true, "times": 1})
		l := webtest.IssueSignLink(t, env, c, id)
		_, req := webtest.DeviceGet(t, env, l.Path)
		sig := webtest.SignHash(t, key, req["hashToSign"]).Hex()
		code, ans := webtest.DevicePost(t, env, l.Path, sig)
		if code != http.StatusBadGateway || ans["state"] != store.SignRelayPending {
			t.Fatalf("post: %d %v", code, ans)
		}
		if st, _ := webtest.SignState(t, env, c, l); st != store.SignRelayPending {
			t.Fatalf("approver sees %q", st)
		}
		// The device posting again sends nothing.
		if code, _ := webtest.DevicePost(t, env, l.Path, sig); code != http.StatusGone {
			t.Fatalf("second post: %d", code)
		}
		if n := env.Sandbox.RequestCount("POST", webtest.SignRoute) - calls; n != 1 || webtest.CollectedSignatures(t, env, id) != 0 {
			t.Fatalf("%d sign calls, %d signatures upstream", n, webtest.CollectedSignatures(t, env, id))
		}
		// The recovery job reads the proposal back: not recorded.
		if _, err := env.App.Actions().Recover(context.Background(), now().Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if st, msg := webtest.SignState(t, env, c, l); st != store.SignRefused || !strings.Contains(msg, "not recorded") {
			t.Fatalf("after recovery: %q %q", st, msg)
		}
		if n := env.Sandbox.RequestCount("POST", webtest.SignRoute) - calls; n != 1 {
			t.Fatalf("%d sign calls after recovery", n)
		}
	})
}

func TestParallelPostsToOneTokenMakeOneUpstreamCall(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	admins := webtest.TreasuryAdmins(t, env)
	c, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Team lunch")
	key := webtest.OwnerKey(t, env, "treasury")
	l := webtest.IssueSignLink(t, env, c, id)
	_, req := webtest.DeviceGet(t, env, l.Path)
	sig := webtest.SignHash(t, key, req["hashToSign"]).Hex()

	const n = 8
	got := webtest.AtOnce(n, func(int) int {
		code, _ := webtest.DevicePost(t, env, l.Path, sig)
		return code
	})
	ok, gone := got[http.StatusOK], got[http.StatusGone]
	if ok != 1 || gone != n-1 {
		t.Fatalf("%d ok, %d gone", ok, gone)
	}
	if got := webtest.CollectedSignatures(t, env, id); got != 1 || env.Sandbox.RequestCount("POST", webtest.SignRoute) != 1 {
		t.Fatalf("upstream signatures %d, sign calls %d", got, env.Sandbox.RequestCount("POST", webtest.SignRoute))
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "sign_request.submit"})
	if len(rows) != 1 {
		t.Fatalf("%d submit audit rows", len(rows))
	}
}

func TestOwnerProofThroughTheDeviceCreatesATreasuryWallet(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	key, _ := ethsig.GenerateKey()
	owner := ethsig.KeyAddress(key).Hex()

	// Bad input: messages at the fields, nothing asked upstream.
	resp := env.PostForm(c, "/treasury/wallets", webtest.WithFormToken(url.Values{"currency": {"USDB"}, "owner": {"0x12"}}))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "wallet-currency-error") == "" || webtest.TestID(doc, "wallet-owner-error") == "" {
		t.Fatalf("bad wallet form: %d", resp.StatusCode)
	}

	issue := func() webtest.SignLink {
		t.Helper()
		resp := env.PostForm(c, "/treasury/wallets", webtest.WithFormToken(url.Values{"currency": {"EURe"}, "owner": {owner}}))
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("owner proof: %d", resp.StatusCode)
		}
		doc := webtest.Doc(t, resp)
		link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
		poll, _ := doc.Find(`#sign-state`).Attr("hx-get")
		u, _ := url.Parse(link)
		if !strings.HasPrefix(poll, "/sign-requests/") {
			t.Fatalf("poll %q", poll)
		}
		return webtest.SignLink{URL: link, Path: u.Path, PollID: poll}
	}
	// Signed raw (no prefix): refused here, nothing sent.
	l := issue()
	code, req := webtest.DeviceGet(t, env, l.Path)
	if code != http.StatusOK || req["kind"] != "owner_proof" || !strings.Contains(req["message"].(string), owner) {
		t.Fatalf("device get: %d %v", code, req)
	}
	raw := ethsig.Sign(key, ethsig.Keccak256([]byte(req["message"].(string))))
	code, ans := webtest.DevicePost(t, env, l.Path, raw.Hex())
	if code != http.StatusUnprocessableEntity || !strings.Contains(ans["error"].(string), "without the signed-message prefix") {
		t.Fatalf("raw-signed proof: %d %v", code, ans)
	}
	// Signed as a message: the wallet is created, once.
	l = issue()
	_, req = webtest.DeviceGet(t, env, l.Path)
	code, ans = webtest.DevicePost(t, env, l.Path, ethsig.SignMessage(key, []byte(req["message"].(string))).Hex())
	if code != http.StatusOK || ans["state"] != store.SignCompleted {
		t.Fatalf("proof: %d %v", code, ans)
	}
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignCompleted {
		t.Fatalf("state %q", st)
	}
	ws, err := env.API.ListWallets(context.Background(), env.Demo.TreasuryUserID)
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	for _, w := range ws {
		if w.Currency == "EURe" && strings.EqualFold(w.UserOwnerAddress, owner) {
			found = w.ID
		}
	}
	if found == "" {
		t.Fatalf("no EURe wallet upstream: %+v", ws)
	}
	if w, err := env.Store.WalletByID(context.Background(), found); err != nil || !strings.EqualFold(w.OwnerAddress, owner) {
		t.Fatalf("mirror: %+v %v", w, err)
	}
	// Support may not ask for wallets.
	sup, _ := env.SignedIn(store.RoleSupport)
	if resp := env.PostForm(sup, "/treasury/wallets", webtest.WithFormToken(url.Values{"currency": {"GBPe"}, "owner": {owner}})); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support: %d", resp.StatusCode)
	}
}

func TestRailSignatureRequestIsSignedOnTheDeviceAndSubmittedOnce(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	key := webtest.OwnerKey(t, env, "treasury")
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	support, err := env.API.GetCryptoWithdrawalSupport(ctx, env.Demo.TreasuryUserID, "USDB")
	if err != nil || len(support.Routes) == 0 {
		t.Fatalf("routes: %+v %v", support, err)
	}
	rt := support.Routes[0]
	cw, err := env.API.CreateCryptoWithdrawal(ctx, env.Demo.TreasuryUserID, apiclient.CryptoWithdrawalRequest{
		SourceSmartWalletID: usd, DestinationChain: rt.Chain, DestinationCurrency: rt.Currency,
		DestinationAddress: "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23",
	})
	if err != nil || cw.SignatureRequest == nil {
		t.Fatalf("withdrawal: %+v %v", cw, err)
	}
	_, staff := env.SignedIn(store.RoleFinanceApprover)
	panel, err := env.App.Sign().IssueWorkflow(ctx, staff.Actor(), env.Demo.TreasuryUserID, usd, *cw.SignatureRequest, "Crypto withdrawal of the treasury's USDB")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(panel.Link)
	code, req := webtest.DeviceGet(t, env, u.Path)
	if code != http.StatusOK || req["kind"] != "workflow" || req["hashToSign"] != cw.SignatureRequest.HashToSign {
		t.Fatalf("device get: %d %v", code, req)
	}
	// Another key: refused here, nothing sent.
	other, _ := ethsig.GenerateKey()
	if code, ans := webtest.DevicePost(t, env, u.Path, webtest.SignHash(t, other, req["hashToSign"]).Hex()); code != http.StatusUnprocessableEntity {
		t.Fatalf("other key: %d %v", code, ans)
	}
	panel, err = env.App.Sign().IssueWorkflow(ctx, staff.Actor(), env.Demo.TreasuryUserID, usd, *cw.SignatureRequest, "Crypto withdrawal of the treasury's USDB")
	if err != nil {
		t.Fatal(err)
	}
	u, _ = url.Parse(panel.Link)
	_, req = webtest.DeviceGet(t, env, u.Path)
	code, ans := webtest.DevicePost(t, env, u.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post: %d %v", code, ans)
	}
	// The workflow was completed upstream: a second submission is refused
	// there, which shows the first one landed.
	_, err = env.API.SubmitSignature(ctx, env.Demo.TreasuryUserID, apiclient.SubmitSignatureRequest{
		WorkflowID: cw.SignatureRequest.WorkflowID, Signature: webtest.SignHash(t, key, req["hashToSign"]).Hex()})
	if !apiclient.IsConflict(err) {
		t.Fatalf("second submission: %v", err)
	}
}

func TestCardIssuanceIsSignedOnTheDeviceToo(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SyncQueue(t, env, c)
	id := webtest.ProposalID(t, env, "Card issuance: Subscriptions")
	key := webtest.OwnerKey(t, env, "adaeze.okafor@acme-payroll.example")
	l := webtest.IssueSignLink(t, env, c, id)
	code, req := webtest.DeviceGet(t, env, l.Path)
	if code != http.StatusOK || !strings.Contains(req["summary"].(map[string]any)["to"].(string), "new card") {
		t.Fatalf("device get: %d %v", code, req)
	}
	code, ans := webtest.DevicePost(t, env, l.Path, webtest.SignHash(t, key, req["hashToSign"]).Hex())
	if code != http.StatusOK {
		t.Fatalf("device post: %d %v", code, ans)
	}
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	if st, _ := webtest.SignState(t, env, c, l); st != store.SignCompleted {
		t.Fatalf("state %q", st)
	}
}

// TestDeviceLinksAreRateLimitedPerClient: the public signing links take 60
// requests a minute from one address (counted in PostgreSQL, so the limit
// holds across replicas), then answer 429 without touching anything.
func TestDeviceLinksAreRateLimitedPerClient(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c := env.Client()
	h := http.Header{"Accept": {"application/json"}}
	for i := range 60 {
		resp := env.Do(c, http.MethodGet, "/sign/not-a-real-token", nil, h)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("request %d: %d, want 404", i+1, resp.StatusCode)
		}
	}
	resp := env.Do(c, http.MethodGet, "/sign/not-a-real-token", nil, h)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("61st request: %d, want 429", resp.StatusCode)
	}
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM rate_limit_hits WHERE key LIKE 'sign:%'`).Scan(&n); err != nil || n != 61 {
		t.Fatalf("hits stored: %d %v", n, err)
	}
}
