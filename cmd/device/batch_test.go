package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

const signRoute = "/v1/users/{userId}/smart-wallets/proposals/{proposalId}/sign"

// batchEnv is the app with the demo company, a finance approver and the
// demo owner keys in a keystore file.
func batchEnv(t *testing.T, opts webtest.Options) (*webtest.Env, *http.Client, string) {
	t.Helper()
	env := webtest.New(t, opts)
	ks := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: ks}); err != nil {
		t.Fatal(err)
	}
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	return env, c, ks
}

// issueBatch ticks the proposals on the approval queue and posts its "Sign
// selected" form; it returns the link, the QR code's text and the batch
// page's address.
func issueBatch(t *testing.T, env *webtest.Env, c *http.Client, ids []string) (string, string, string) {
	t.Helper()
	doc := webtest.Doc(t, env.Get(c, "/approvals?status=PENDING_SIGNATURES"))
	form := doc.Find(`[data-testid="sign-batch-form"]`)
	tok, _ := form.Find(`input[name="form_token"]`).Attr("value")
	v := url.Values{"form_token": {tok}, "return_to": {"/approvals"}}
	for _, id := range ids {
		box := doc.Find(`[data-testid="proposal-select"][value="` + id + `"]`)
		if box.Length() != 1 {
			t.Fatalf("no checkbox for %s on the queue", id)
		}
		v.Add("proposal_id", id)
	}
	resp := env.PostForm(c, "/approvals/sign-batch", v)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create batch: %d", resp.StatusCode)
	}
	page := webtest.Doc(t, resp)
	link, _ := page.Find(`[data-testid="sign-link"]`).Attr("value")
	poll, _ := page.Find(`#sign-batch-state`).Attr("hx-get")
	src, _ := page.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(t.TempDir(), "qr.png")
	if err := os.WriteFile(img, png, 0o600); err != nil {
		t.Fatal(err)
	}
	text, err := decodeQRFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return link, text, poll
}

func upstreamStatus(t *testing.T, env *webtest.Env, id string) apiclient.ProposalStatus {
	t.Helper()
	p, err := env.API.GetProposal(context.Background(), env.Demo.TreasuryUserID, id)
	if err != nil {
		t.Fatal(err)
	}
	return p.Status
}

func TestBatchLinkSignedByTheDeviceRelaysEveryItemOnce(t *testing.T) {
	env, c, ks := batchEnv(t, webtest.Options{})
	ids := env.ProposalsAwaitingSignature(4, "12.50")
	link, qr, _ := issueBatch(t, env, c, ids)
	if qr != link {
		t.Fatalf("QR code %q, link %q", qr, link)
	}

	// Declined: nothing signed, and every item's summary was shown first.
	r := device(t, "n\n", "sign", "--keystore", ks, link)
	if r.code != exitDeclined || strings.Count(r.stdout, "12.50 USD (USDB) to Emily") != 4 || !strings.Contains(r.stdout, "Batch item 4") ||
		strings.Count(r.stdout, "Sign these 4 proposals?") != 1 {
		t.Fatalf("declined: %+v", r)
	}
	if n := env.Sandbox.RequestCount("POST", signRoute); n != 0 {
		t.Fatalf("%d sign calls after declining", n)
	}

	r = device(t, "y\n", "sign", "--keystore", ks, link)
	if r.code != exitOK || strings.Count(r.stdout, "signed ") != 4 {
		t.Fatalf("sign: %+v", r)
	}
	if n := env.Sandbox.RequestCount("POST", signRoute); n != 4 {
		t.Fatalf("%d sign calls upstream, want 4", n)
	}
	for _, id := range ids {
		if st := upstreamStatus(t, env, id); st != apiclient.ProposalSubmitted {
			t.Fatalf("proposal %s is %s upstream", id, st)
		}
		if p, err := env.Store.ProposalByID(context.Background(), id); err != nil || p.Status != store.ProposalSubmitted {
			t.Fatalf("mirror: %s %v", p.Status, err)
		}
	}
	// Used up: the device is told so and nothing is sent again.
	r = device(t, "", "sign", "--keystore", ks, "--yes", link)
	if r.code != exitGone || !strings.Contains(r.stderr, "already used") {
		t.Fatalf("reuse: %+v", r)
	}
	if n := env.Sandbox.RequestCount("POST", signRoute); n != 4 {
		t.Fatalf("%d sign calls after reuse", n)
	}
}

func TestBatchWithOneWrongSignatureRefusesOnlyThatItem(t *testing.T) {
	app, c, ks := batchEnv(t, webtest.Options{})
	ids := app.ProposalsAwaitingSignature(3, "7.00")
	link, _, page := issueBatch(t, app, c, ids)

	var out, errb bytes.Buffer
	e := &env{stdin: bufio.NewReader(strings.NewReader("")), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	req, code := e.fetch(context.Background(), link)
	if code != exitOK || req.Kind != "batch" || len(req.Items) != 3 {
		t.Fatalf("fetch: %d %+v", code, req)
	}
	keys, err := loadKeystore(ks)
	if err != nil {
		t.Fatal(err)
	}
	key, ok := keys.find(req.OwnerAddress)
	if !ok {
		t.Fatalf("no key for %s", req.OwnerAddress)
	}
	sigs, err := signBatchItems(key, req.Items, false)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := signBatchItems(key, req.Items, true) // the signed-message prefix
	if err != nil {
		t.Fatal(err)
	}
	sigs[1] = wrong[1]
	ans, code := e.postBatch(context.Background(), link, sigs)
	if code != exitOK || len(ans.Items) != 3 {
		t.Fatalf("post: %d %+v %s", code, ans, errb.String())
	}
	if code := e.reportBatch(ans); code != exitRefused {
		t.Fatalf("exit %d, want %d: %s", code, exitRefused, errb.String())
	}
	for i, it := range ans.Items {
		if it.ProposalID != sigs[i].ProposalID {
			t.Fatalf("answer %d is for %s", i, it.ProposalID)
		}
		if i == 1 {
			if it.State != store.SignRefused || it.Relayed || !strings.Contains(it.Error, "signed-message prefix") {
				t.Fatalf("wrong item: %+v", it)
			}
			continue
		}
		if it.State != store.SignSubmitted || !it.Relayed {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
	if n := app.Sandbox.RequestCount("POST", signRoute); n != 2 {
		t.Fatalf("%d sign calls upstream, want 2", n)
	}
	if st := upstreamStatus(t, app, sigs[1].ProposalID); st != apiclient.ProposalPendingSignatures {
		t.Fatalf("refused item is %s upstream", st)
	}
	// The approver's page says which one and why.
	doc := webtest.Doc(t, app.Get(c, page))
	row := doc.Find(`[data-testid="sign-batch-item"][data-id="` + sigs[1].ProposalID + `"]`)
	if st, _ := row.Attr("data-state"); st != store.SignRefused || !strings.Contains(row.Find(`[data-testid="sign-batch-item-error"]`).Text(), "signed-message prefix") {
		t.Fatalf("approver sees %q: %q", st, row.Text())
	}
}

func TestBatchDeviceTakesACustomSchemeLink(t *testing.T) {
	env, c, ks := batchEnv(t, webtest.Options{SignLinkTemplate: "myapp://sign?link={link}"})
	ids := env.ProposalsAwaitingSignature(2, "3.00")
	link, qr, _ := issueBatch(t, env, c, ids)
	if want := "myapp://sign?link=" + url.QueryEscape(link); qr != want {
		t.Fatalf("QR code %q, want %q", qr, want)
	}
	r := device(t, "", "sign", "--keystore", ks, "--yes", qr)
	if r.code != exitOK || strings.Count(r.stdout, "signed ") != 2 {
		t.Fatalf("custom-scheme link: %+v", r)
	}
	if n := env.Sandbox.RequestCount("POST", signRoute); n != 2 {
		t.Fatalf("%d sign calls upstream", n)
	}
}

func TestBatchSignLinkFindsTheLinkInAnAppLink(t *testing.T) {
	https := "https://admin.example.com/sign/abcDEF123"
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{https, https, true},
		{"http://127.0.0.1:8080/sign/tok", "http://127.0.0.1:8080/sign/tok", true},
		{"myapp://sign?link=" + url.QueryEscape(https), https, true},
		{"myapp:sign?other=1&link=" + url.QueryEscape(https), https, true},
		{"myapp://sign?link=" + url.QueryEscape("javascript:alert(1)"), "", false},
		{"myapp://sign?link=" + url.QueryEscape("https://admin.example.com/other"), "", false},
		{"https://admin.example.com/sign/", "", false},
		{"not a link", "", false},
	} {
		got, ok := signLink(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("signLink(%q) = %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
