package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"partneradmin/apiclient/sandbox"
	"partneradmin/store"
	"partneradmin/store/pgtest"
	"partneradmin/web/webtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type result struct {
	code           int
	stdout, stderr string
}

func device(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"device"}, args...), strings.NewReader(stdin), &out, &errb,
		func(string) string { return "" })
	return result{code, out.String(), errb.String()}
}

func TestKeystoreCreateImportList(t *testing.T) {
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys.json")
	if r := device(t, "", "keys", "list", "--keystore", ks); r.code != 0 || !strings.Contains(r.stdout, "no keys") {
		t.Fatalf("empty list: %+v", r)
	}
	r := device(t, "", "keys", "create", "--keystore", ks, "--label", "phone")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "created 0x") {
		t.Fatalf("create: %+v", r)
	}
	demo := filepath.Join(dir, "demo.json")
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if _, err := sandbox.SeedDemo(sb, sandbox.DemoOptions{KeystorePath: demo}); err != nil {
		t.Fatal(err)
	}
	r = device(t, "", "keys", "import", demo, "--keystore", ks)
	if r.code != 0 || !strings.Contains(r.stdout, "imported") {
		t.Fatalf("import: %+v", r)
	}
	r = device(t, "", "keys", "import", demo, "--keystore", ks)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 0 keys") {
		t.Fatalf("import again: %+v", r)
	}
	r = device(t, "", "keys", "list", "--keystore", ks)
	if r.code != 0 || !strings.Contains(r.stdout, "phone") || !strings.Contains(r.stdout, "treasury") || strings.Contains(r.stdout, "privateKey") {
		t.Fatalf("list: %+v", r)
	}
	if fi, err := os.Stat(ks); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("keystore mode: %v %v", fi.Mode(), err)
	}
	if r := device(t, "", "keys", "import", filepath.Join(dir, "missing.json"), "--keystore", ks); r.code != 0 || !strings.Contains(r.stdout, "imported 0") {
		// A missing file is an empty keystore: nothing to import.
		t.Fatalf("missing import: %+v", r)
	}
	if r := device(t, "", "sign", "not a link", "--keystore", ks); r.code != exitError {
		t.Fatalf("bad link: %+v", r)
	}
}

// issue signs in an approver linked to a treasury admin and issues a sign
// request for the demo's "Team lunch"; it returns the link and the QR PNG.
func issue(t *testing.T, env *webtest.Env, c *http.Client) (string, []byte) {
	t.Helper()
	id := ""
	ps, _ := env.Store.ListQueue(context.Background(), store.QueueFilter{Status: store.ProposalPendingSignatures})
	for _, p := range ps {
		if p.Description == "Team lunch" {
			id = p.ID
		}
	}
	if id == "" {
		t.Fatal("no Team lunch proposal")
	}
	// The proposal's page carries the form's one-time token.
	page := webtest.Doc(t, env.Get(c, "/approvals/"+id))
	tok, _ := page.Find(`[data-testid="sign-request-form"] input[name="form_token"]`).Attr("value")
	resp := env.PostForm(c, "/approvals/"+id+"/sign-requests", url.Values{"form_token": {tok}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("issue: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	link, _ := doc.Find(`[data-testid="sign-link"]`).Attr("value")
	src, _ := doc.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	return link, png
}

func TestSignALinkAndAQRCode(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	ks := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: ks}); err != nil {
		t.Fatal(err)
	}
	pol, err := env.API.GetApprovalPolicy(context.Background(), env.Demo.TreasuryUserID)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := env.SignedIn(store.RoleFinanceApprover)
	for _, form := range []struct {
		path string
		v    url.Values
	}{{"/approvals/link", webtest.WithFormToken(url.Values{"service_user_id": {pol.Admins[0]}})}, {"/approvals/refresh", url.Values{}}} {
		resp := env.PostForm(c, form.path, form.v)
		resp.Body.Close()
	}

	// --wrong-prefix: the server refuses before relaying.
	link, _ := issue(t, env, c)
	r := device(t, "", "sign", "--keystore", ks, "--yes", "--wrong-prefix", link)
	if r.code != exitRefused || !strings.Contains(r.stderr, "signed-message prefix") || !strings.Contains(r.stderr, "nothing was sent") {
		t.Fatalf("wrong prefix: %+v", r)
	}

	// A keystore without the owner's key.
	link, _ = issue(t, env, c)
	if r := device(t, "", "sign", "--keystore", filepath.Join(t.TempDir(), "empty.json"), "--yes", link); r.code != exitNoKey {
		t.Fatalf("no key: %+v", r)
	}

	// --qr: decline first (nothing signed, the link still works), then sign.
	link, png := issue(t, env, c)
	img := filepath.Join(t.TempDir(), "qr.png")
	if err := os.WriteFile(img, png, 0o600); err != nil {
		t.Fatal(err)
	}
	r = device(t, "n\n", "sign", "--keystore", ks, "--qr", img)
	if r.code != exitDeclined || !strings.Contains(r.stdout, "75.25 USD") || !strings.Contains(r.stdout, "Emily") {
		t.Fatalf("declined: %+v", r)
	}
	r = device(t, "y\n", "sign", "--keystore", ks, "--qr", img)
	if r.code != exitOK || !strings.Contains(r.stdout, "signed: submitted") {
		t.Fatalf("sign: %+v", r)
	}
	r = device(t, "", "sign", "--keystore", ks, "--yes", link)
	if r.code != exitGone || !strings.Contains(r.stderr, "already used") {
		t.Fatalf("reuse: %+v", r)
	}
}
