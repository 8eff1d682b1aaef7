package main

import (
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
	"partneradmin/web/webtest"
)

// TestSignACryptoWithdrawalFromTheTreasuryPage: the device reads the QR code
// the treasury's crypto withdrawal page shows, shows what it signs, signs
// the rail's hash with the treasury owner's key, and the app relays it.
func TestSignACryptoWithdrawalFromTheTreasuryPage(t *testing.T) {
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	ks := filepath.Join(t.TempDir(), "device-keys.json")
	if _, err := sandbox.SeedDemo(env.Sandbox, sandbox.DemoOptions{KeystorePath: ks}); err != nil {
		t.Fatal(err)
	}
	c, _ := env.SignedIn(store.RoleOwner)
	users, err := env.Store.TreasuryUsers(ctx)
	if err != nil || len(users) == 0 {
		t.Fatalf("treasury: %v", err)
	}
	ws, err := env.Store.WalletsByEmployee(ctx, users[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	usd := ""
	for _, w := range ws {
		if w.Currency == "USDB" {
			usd = w.ID
		}
	}
	// The money controls refuse an address outside the trusted book.
	webtest.TrustDestination(t, env, store.DestCrypto, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "")
	doc := webtest.Doc(t, env.Get(c, "/treasury/withdrawal?wallet_id="+usd))
	tok, _ := doc.Find(`input[name="form_token"]`).Attr("value")
	resp := env.PostForm(c, "/treasury/withdrawal", url.Values{"form_token": {tok}, "wallet_id": {usd}, "route": {"ethereum:USDC"},
		"address": {"0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"}, "confirm_tail": {"a65c23"}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("withdraw: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	src, _ := doc.Find(`[data-testid="sign-qr"]`).Attr("src")
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil || len(png) == 0 {
		t.Fatalf("qr: %v", err)
	}
	img := filepath.Join(t.TempDir(), "qr.png")
	if err := os.WriteFile(img, png, 0o600); err != nil {
		t.Fatal(err)
	}
	r := device(t, "y\n", "sign", "--keystore", ks, "--qr", img)
	if r.code != exitOK || !strings.Contains(r.stdout, "Crypto withdrawal of the whole USDB balance") ||
		!strings.Contains(r.stdout, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23") || !strings.Contains(r.stdout, "signed: submitted") {
		t.Fatalf("device: %+v", r)
	}
	var state string
	if err := env.Store.Pool().QueryRow(ctx, `SELECT sr.state FROM crypto_withdrawals cw JOIN sign_requests sr ON sr.id = cw.sign_request_id`).Scan(&state); err != nil || state != store.SignSubmitted {
		t.Fatalf("sign request %q %v", state, err)
	}
}
