package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// ownerKey reads the demo treasury's owner key from the device keystore the
// sandbox writes.
func ownerKey(t testing.TB, env *webtest.Env, label string) *secp256k1.PrivateKey {
	t.Helper()
	path := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: path}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ks sandbox.KeystoreFile
	if err := json.Unmarshal(b, &ks); err != nil {
		t.Fatal(err)
	}
	for _, k := range ks.Keys {
		if k.Label == label {
			key, err := ethsig.ParsePrivateKey(k.PrivateKey)
			if err != nil {
				t.Fatal(err)
			}
			return key
		}
	}
	t.Fatalf("no key %q in the keystore", label)
	return nil
}

// decodeQR reads the text of a PNG QR code.
func decodeQR(t *testing.T, png []byte) string {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	// A generated code is a pure barcode; a screenshot may need the
	// harder search.
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		res, err = qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	}
	if err != nil {
		t.Fatalf("decode qr: %v", err)
	}
	return res.GetText()
}

type signLink struct {
	URL    string // absolute link from the QR code
	Path   string // /sign/<token>
	PollID string
}

// issueLink creates a sign request for a proposal and returns its link,
// checking that the QR code carries the same link.
func issueLink(t *testing.T, env *webtest.Env, c *http.Client, proposal string) signLink {
	t.Helper()
	resp := env.PostForm(c, "/approvals/"+proposal+"/sign-requests", freshToken(url.Values{}))
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("create sign request: %d %s", resp.StatusCode, b)
	}
	doc := webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	src, _ := doc.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(src, "data:image/png;base64,") {
		t.Fatalf("qr src %.40q: %v", src, err)
	}
	if got := decodeQR(t, png); got != link {
		t.Fatalf("qr says %q, link is %q", got, link)
	}
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(link, env.Config.PublicOrigin+"/sign/") || len(strings.TrimPrefix(u.Path, "/sign/")) != 43 {
		t.Fatalf("link %q", link)
	}
	poll, _ := doc.Find(`#sign-state`).Attr("hx-get")
	return signLink{URL: link, Path: u.Path, PollID: poll}
}

// device is a minimal device: GET as JSON, POST a signature.
func deviceGet(t testing.TB, env *webtest.Env, path string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, env.URL(path), nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func devicePost(t *testing.T, env *webtest.Env, path, signature string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"signature": signature})
	resp, err := http.Post(env.URL(path), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func signHash(t testing.TB, k *secp256k1.PrivateKey, hashHex any) ethsig.Signature {
	t.Helper()
	s, _ := hashHex.(string)
	h, err := ethsig.ParseHash(s)
	if err != nil {
		t.Fatalf("hashToSign %q: %v", s, err)
	}
	return ethsig.Sign(k, h)
}

// collected is the proposal's signature count upstream.
func collected(t *testing.T, env *webtest.Env, proposal string) int {
	t.Helper()
	p, err := env.Store.ProposalByID(context.Background(), proposal)
	if err != nil {
		t.Fatal(err)
	}
	up, err := env.API.GetProposal(context.Background(), p.OwnerUserID, proposal)
	if err != nil {
		t.Fatal(err)
	}
	return up.CollectedSignatures
}

func signState(t *testing.T, env *webtest.Env, c *http.Client, l signLink) (string, string) {
	t.Helper()
	doc := webtest.Doc(t, env.Do(c, http.MethodGet, l.PollID, nil, http.Header{"HX-Request": {"true"}}))
	st, _ := doc.Find(`[data-testid="sign-state"]`).Attr("data-state")
	return st, webtest.TestID(doc, "sign-error")
}

func control(t testing.TB, env *webtest.Env, method, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, env.SandboxURL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("control %s %s: %d", method, path, resp.StatusCode)
	}
}

// usdBalance is a user's USDB balance upstream.
func usdBalance(t *testing.T, env *webtest.Env, userID string) decimal.Decimal {
	t.Helper()
	ws, err := env.API.ListWallets(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Currency == "USDB" {
			return w.Balance
		}
	}
	t.Fatal("no USDB wallet")
	return decimal.Zero
}

func TestSignRequestFromQRToCompleted(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	admins := treasuryAdmins(t, env)
	c, _ := approver(t, env, admins[0])
	syncQueue(t, env, c)
	id := proposalID(t, env, "Team lunch")
	key := ownerKey(t, env, "treasury")
	emily := ""
	for _, e := range env.Demo.Employees {
		if e.FirstName == "Emily" {
			emily = e.ServiceUserID
		}
	}
	before := usdBalance(t, env, emily)

	l := issueLink(t, env, c, id)
	if st, _ := signState(t, env, c, l); st != store.SignWaiting {
		t.Fatalf("state %q", st)
	}
	// A browser gets a page that says to use the wallet app.
	resp := env.Get(env.Client(), l.Path)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(webtest.TestID(doc, "sign-device"), "wallet app") {
		t.Fatalf("browser page: %d", resp.StatusCode)
	}
	code, req := deviceGet(t, env, l.Path)
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
	if st, _ := signState(t, env, c, l); st != store.SignOpened {
		t.Fatalf("state after GET %q", st)
	}
	// v of 0/1 is normalised before relaying.
	sig := signHash(t, key, req["hashToSign"])
	sig[64] -= 27
	code, ans := devicePost(t, env, l.Path, sig.Hex())
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post: %d %v", code, ans)
	}
	if st, _ := signState(t, env, c, l); st != store.SignSubmitted {
		t.Fatalf("state after post %q", st)
	}
	control(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	if st, _ := signState(t, env, c, l); st != store.SignCompleted {
		t.Fatalf("state after settle %q", st)
	}
	// The lunch moved from the treasury to Emily.
	if got := usdBalance(t, env, emily); !got.Sub(before).Equal(decimal.RequireFromString("75.25")) {
		t.Fatalf("Emily's balance %s → %s", before, got)
	}
	p, _ := env.Store.ProposalByID(context.Background(), id)
	if p.Status != store.ProposalCompleted {
		t.Fatalf("mirror status %s", p.Status)
	}
	// The used link answers 410 and sends nothing.
	if code, _ := devicePost(t, env, l.Path, sig.Hex()); code != http.StatusGone {
		t.Fatalf("reuse: %d", code)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "sign_request.submit"})
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit %+v", rows)
	}
	if n := env.Sandbox.RequestCount("POST", signRoute); n != 1 {
		t.Fatalf("%d sign calls upstream", n)
	}
	// Only approvers create sign requests.
	sup, _ := env.SignedIn(store.RoleSupport)
	if resp := env.PostForm(sup, "/approvals/"+id+"/sign-requests", freshToken(url.Values{})); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support: %d", resp.StatusCode)
	}
}

func TestSignRequestRefusalsSendNothing(t *testing.T) {
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	env := webtest.New(t, webtest.Options{Now: now})
	admins := treasuryAdmins(t, env)
	c, _ := approver(t, env, admins[0])
	syncQueue(t, env, c)
	id := proposalID(t, env, "Team lunch")
	key := ownerKey(t, env, "treasury")
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
			return base64.StdEncoding.EncodeToString(func() []byte { s := signHash(t, key, h); return s[:] }())
		}, store.SignRefused, "130 hex"},
		{"bad v", func(h any) string { s := signHash(t, key, h); s[64] = 9; return s.Hex() }, store.SignRefused, "130 hex"},
		{"message prefix", func(h any) string {
			hh, _ := ethsig.ParseHash(h.(string))
			return ethsig.SignMessage(key, hh[:]).Hex()
		}, store.SignRefused, "signed-message prefix"},
		{"another key", func(h any) string { return signHash(t, other, h).Hex() }, store.SignRefused, "not from the wallet's registered owner"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			l := issueLink(t, env, c, id)
			code, req := deviceGet(t, env, l.Path)
			if code != http.StatusOK {
				t.Fatalf("get: %d", code)
			}
			code, ans := devicePost(t, env, l.Path, tc.sign(req["hashToSign"]))
			if code != http.StatusUnprocessableEntity || !strings.Contains(ans["error"].(string), tc.want) {
				t.Fatalf("post: %d %v", code, ans)
			}
			st, msg := signState(t, env, c, l)
			if st != tc.state || !strings.Contains(msg, tc.want) {
				t.Fatalf("approver sees %q %q", st, msg)
			}
			if n := collected(t, env, id); n != 0 {
				t.Fatalf("upstream got %d signatures", n)
			}
		})
	}

	t.Run("unknown token", func(t *testing.T) {
		if code, _ := devicePost(t, env, "/sign/"+strings.Repeat("A", 43), "0x00"); code != http.StatusNotFound {
			t.Fatalf("post: %d", code)
		}
		if code, _ := deviceGet(t, env, "/sign/nope"); code != http.StatusNotFound {
			t.Fatalf("get: %d", code)
		}
	})
	t.Run("reissued link replaces the old one", func(t *testing.T) {
		old := issueLink(t, env, c, id)
		_, req := deviceGet(t, env, old.Path)
		issueLink(t, env, c, id)
		code, ans := devicePost(t, env, old.Path, signHash(t, key, req["hashToSign"]).Hex())
		if code != http.StatusGone || !strings.Contains(ans["error"].(string), "replaced") {
			t.Fatalf("old link: %d %v", code, ans)
		}
		if st, _ := signState(t, env, c, old); st != store.SignSuperseded {
			t.Fatalf("old state %q", st)
		}
	})
	t.Run("expired link", func(t *testing.T) {
		l := issueLink(t, env, c, id)
		_, req := deviceGet(t, env, l.Path)
		offset.Store(int64(16 * time.Minute))
		defer offset.Store(0)
		code, ans := devicePost(t, env, l.Path, signHash(t, key, req["hashToSign"]).Hex())
		if code != http.StatusGone || !strings.Contains(ans["error"].(string), "expired") {
			t.Fatalf("expired: %d %v", code, ans)
		}
		if code, _ := deviceGet(t, env, l.Path); code != http.StatusGone {
			t.Fatalf("get expired: %d", code)
		}
		if st, _ := signState(t, env, c, l); st != store.SignExpired {
			t.Fatalf("state %q", st)
		}
	})
	if n := collected(t, env, id); n != 0 {
		t.Fatalf("upstream got %d signatures", n)
	}

	t.Run("upstream refuses: words on both sides", func(t *testing.T) {
		control(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST",
			"route": signRoute, "status": 500, "message": "Point is not on curve", "times": 1})
		l := issueLink(t, env, c, id)
		_, req := deviceGet(t, env, l.Path)
		code, ans := devicePost(t, env, l.Path, signHash(t, key, req["hashToSign"]).Hex())
		if code != http.StatusBadGateway || !strings.Contains(ans["error"].(string), "Point is not on curve") {
			t.Fatalf("post: %d %v", code, ans)
		}
		if st, msg := signState(t, env, c, l); st != store.SignRefused || !strings.Contains(msg, "65 bytes") {
			t.Fatalf("approver sees %q %q", st, msg)
		}
	})
	t.Run("upstream does not answer and recorded nothing: unknown, then not done", func(t *testing.T) {
		calls := env.Sandbox.RequestCount("POST", signRoute)
		control(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": signRoute, "drop": true, "times": 1})
		l := issueLink(t, env, c, id)
		_, req := deviceGet(t, env, l.Path)
		sig := signHash(t, key, req["hashToSign"]).Hex()
		code, ans := devicePost(t, env, l.Path, sig)
		if code != http.StatusBadGateway || ans["state"] != store.SignRelayPending {
			t.Fatalf("post: %d %v", code, ans)
		}
		if st, _ := signState(t, env, c, l); st != store.SignRelayPending {
			t.Fatalf("approver sees %q", st)
		}
		// The device posting again sends nothing.
		if code, _ := devicePost(t, env, l.Path, sig); code != http.StatusGone {
			t.Fatalf("second post: %d", code)
		}
		if n := env.Sandbox.RequestCount("POST", signRoute) - calls; n != 1 || collected(t, env, id) != 0 {
			t.Fatalf("%d sign calls, %d signatures upstream", n, collected(t, env, id))
		}
		// The recovery job reads the proposal back: not recorded.
		if _, err := env.App.Actions().Recover(context.Background(), now().Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if st, msg := signState(t, env, c, l); st != store.SignRefused || !strings.Contains(msg, "not recorded") {
			t.Fatalf("after recovery: %q %q", st, msg)
		}
		if n := env.Sandbox.RequestCount("POST", signRoute) - calls; n != 1 {
			t.Fatalf("%d sign calls after recovery", n)
		}
	})
}

func TestParallelPostsToOneTokenMakeOneUpstreamCall(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	admins := treasuryAdmins(t, env)
	c, _ := approver(t, env, admins[0])
	syncQueue(t, env, c)
	id := proposalID(t, env, "Team lunch")
	key := ownerKey(t, env, "treasury")
	l := issueLink(t, env, c, id)
	_, req := deviceGet(t, env, l.Path)
	sig := signHash(t, key, req["hashToSign"]).Hex()

	const n = 8
	var wg sync.WaitGroup
	codes := make(chan int, n)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			code, _ := devicePost(t, env, l.Path, sig)
			codes <- code
		}()
	}
	close(start)
	wg.Wait()
	close(codes)
	ok, gone := 0, 0
	for code := range codes {
		switch code {
		case http.StatusOK:
			ok++
		case http.StatusGone:
			gone++
		}
	}
	if ok != 1 || gone != n-1 {
		t.Fatalf("%d ok, %d gone", ok, gone)
	}
	if got := collected(t, env, id); got != 1 || env.Sandbox.RequestCount("POST", signRoute) != 1 {
		t.Fatalf("upstream signatures %d, sign calls %d", got, env.Sandbox.RequestCount("POST", signRoute))
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "sign_request.submit"})
	if len(rows) != 1 {
		t.Fatalf("%d submit audit rows", len(rows))
	}
}

func TestOwnerProofThroughTheDeviceCreatesATreasuryWallet(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	key, _ := ethsig.GenerateKey()
	owner := ethsig.KeyAddress(key).Hex()

	// Bad input: messages at the fields, nothing asked upstream.
	resp := env.PostForm(c, "/treasury/wallets", freshToken(url.Values{"currency": {"USDB"}, "owner": {"0x12"}}))
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "wallet-currency-error") == "" || webtest.TestID(doc, "wallet-owner-error") == "" {
		t.Fatalf("bad wallet form: %d", resp.StatusCode)
	}

	issue := func() signLink {
		t.Helper()
		resp := env.PostForm(c, "/treasury/wallets", freshToken(url.Values{"currency": {"EURe"}, "owner": {owner}}))
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
		return signLink{URL: link, Path: u.Path, PollID: poll}
	}
	// Signed raw (no prefix): refused here, nothing sent.
	l := issue()
	code, req := deviceGet(t, env, l.Path)
	if code != http.StatusOK || req["kind"] != "owner_proof" || !strings.Contains(req["message"].(string), owner) {
		t.Fatalf("device get: %d %v", code, req)
	}
	raw := ethsig.Sign(key, ethsig.Keccak256([]byte(req["message"].(string))))
	code, ans := devicePost(t, env, l.Path, raw.Hex())
	if code != http.StatusUnprocessableEntity || !strings.Contains(ans["error"].(string), "without the signed-message prefix") {
		t.Fatalf("raw-signed proof: %d %v", code, ans)
	}
	// Signed as a message: the wallet is created, once.
	l = issue()
	_, req = deviceGet(t, env, l.Path)
	code, ans = devicePost(t, env, l.Path, ethsig.SignMessage(key, []byte(req["message"].(string))).Hex())
	if code != http.StatusOK || ans["state"] != store.SignCompleted {
		t.Fatalf("proof: %d %v", code, ans)
	}
	if st, _ := signState(t, env, c, l); st != store.SignCompleted {
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
	if resp := env.PostForm(sup, "/treasury/wallets", freshToken(url.Values{"currency": {"GBPe"}, "owner": {owner}})); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("support: %d", resp.StatusCode)
	}
}

func TestRailSignatureRequestIsSignedOnTheDeviceAndSubmittedOnce(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	key := ownerKey(t, env, "treasury")
	usd := treasuryWallet(t, env, "USDB")
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
	code, req := deviceGet(t, env, u.Path)
	if code != http.StatusOK || req["kind"] != "workflow" || req["hashToSign"] != cw.SignatureRequest.HashToSign {
		t.Fatalf("device get: %d %v", code, req)
	}
	// Another key: refused here, nothing sent.
	other, _ := ethsig.GenerateKey()
	if code, ans := devicePost(t, env, u.Path, signHash(t, other, req["hashToSign"]).Hex()); code != http.StatusUnprocessableEntity {
		t.Fatalf("other key: %d %v", code, ans)
	}
	panel, err = env.App.Sign().IssueWorkflow(ctx, staff.Actor(), env.Demo.TreasuryUserID, usd, *cw.SignatureRequest, "Crypto withdrawal of the treasury's USDB")
	if err != nil {
		t.Fatal(err)
	}
	u, _ = url.Parse(panel.Link)
	_, req = deviceGet(t, env, u.Path)
	code, ans := devicePost(t, env, u.Path, signHash(t, key, req["hashToSign"]).Hex())
	if code != http.StatusOK || ans["state"] != store.SignSubmitted {
		t.Fatalf("device post: %d %v", code, ans)
	}
	// The workflow was completed upstream: a second submission is refused
	// there, which shows the first one landed.
	_, err = env.API.SubmitSignature(ctx, env.Demo.TreasuryUserID, apiclient.SubmitSignatureRequest{
		WorkflowID: cw.SignatureRequest.WorkflowID, Signature: signHash(t, key, req["hashToSign"]).Hex()})
	if !apiclient.IsConflict(err) {
		t.Fatalf("second submission: %v", err)
	}
}

func TestCardIssuanceIsSignedOnTheDeviceToo(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	syncQueue(t, env, c)
	id := proposalID(t, env, "Card issuance: Subscriptions")
	key := ownerKey(t, env, "adaeze.okafor@acme-payroll.example")
	l := issueLink(t, env, c, id)
	code, req := deviceGet(t, env, l.Path)
	if code != http.StatusOK || !strings.Contains(req["summary"].(map[string]any)["to"].(string), "new card") {
		t.Fatalf("device get: %d %v", code, req)
	}
	code, ans := devicePost(t, env, l.Path, signHash(t, key, req["hashToSign"]).Hex())
	if code != http.StatusOK {
		t.Fatalf("device post: %d %v", code, ans)
	}
	control(t, env, http.MethodPost, "/_sandbox/settle", map[string]any{})
	if st, _ := signState(t, env, c, l); st != store.SignCompleted {
		t.Fatalf("state %q", st)
	}
}

// TestDeviceLinksAreRateLimitedPerClient: the public signing links take 60
// requests a minute from one address (counted in PostgreSQL, so the limit
// holds across replicas), then answer 429 without touching anything.
func TestDeviceLinksAreRateLimitedPerClient(t *testing.T) {
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
