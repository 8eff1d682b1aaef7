package treasury

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
)

// Every state of the spec's USD account table: what the page says and
// whether it offers start-usa. spec: "none | POST .../onboarding/start-usa";
// "failed | start-usa retry (safe)"; "rejected | terminal; do not retry".
func TestFundingUSDRailFollowsTheSpecsStates(t *testing.T) {
	reason := "Identity could not be verified"
	notFound := &apiclient.Error{StatusCode: http.StatusNotFound, Messages: []string{"requested item could not be found"}}
	for _, tc := range []struct {
		name    string
		rd      fundingReads
		usdb    bool
		words   string
		start   bool
		retry   bool
		blocked bool
		error   string
	}{
		{name: "none", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "none"}}, usdb: true, words: "Not set up", start: true},
		{name: "404 is not started", rd: fundingReads{usdErr: notFound}, usdb: true, words: "Not set up", start: true},
		{name: "none without a USDB wallet", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "none"}}, words: "Not set up", blocked: true},
		{name: "provisioning", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "provisioning"}}, usdb: true, words: "Being set up"},
		{name: "pending", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "pending"}}, usdb: true, words: "Almost ready"},
		{name: "active", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "active", Account: &apiclient.VirtualAccountDetails{AccountNumber: "1"}}}, usdb: true, words: "Active"},
		{name: "failed", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "failed"}}, usdb: true, words: "failed", start: true, retry: true},
		{name: "rejected", rd: fundingReads{usd: &apiclient.VirtualAccount{Status: "rejected", Reason: &reason}}, usdb: true, words: "final"},
		{name: "no answer", rd: fundingReads{usdErr: errors.New("context deadline exceeded")}, usdb: true, error: "did not answer"},
		{name: "503", rd: fundingReads{usdErr: &apiclient.Error{StatusCode: 503}}, usdb: true, error: "503 Service Unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := usdRail(tc.rd, tc.usdb)
			if tc.error != "" {
				if !strings.Contains(u.Error, tc.error) || u.CanStart || u.Words != "" {
					t.Fatalf("a failed read: %+v", u)
				}
				return
			}
			if !strings.Contains(u.Words, tc.words) || u.CanStart != tc.start || u.Retry != tc.retry || (u.StartBlocked != "") != tc.blocked {
				t.Fatalf("%+v", u)
			}
			if (u.Account != nil) != (tc.name == "active") {
				t.Fatalf("account details: %+v", u.Account)
			}
			if tc.name == "rejected" && u.Reason != reason {
				t.Fatalf("reason: %q", u.Reason)
			}
		})
	}
}

// A wallet receives crypto at its own address when the API lists its token
// on its chain; others get no QR code; when the list is unknown the
// addresses are still shown, with a caution.
func TestFundingCryptoDeposits(t *testing.T) {
	tr := treasury{wallets: []store.Wallet{
		{ID: "n", Currency: "CNGN", Chain: "base", Address: "0x00000000000000000000000000000000000000n1"},
		{ID: "u", Currency: "USDB", Chain: "base", Address: "0x00000000000000000000000000000000000000u1"},
		{ID: "l", Currency: "CADC", Chain: "base", Address: "0x00000000000000000000000000000000000000l1", Legacy: true},
	}}
	assets := []apiclient.CryptoRoute{{Chain: "base", Currency: "USDB"}, {Chain: "ethereum", Currency: "USDC"}}
	c := cryptoDeposits(tr, fundingReads{assets: assets})
	if len(c.Wallets) != 2 || c.Wallets[0].Token != "USDB" || c.Wallets[0].Accepts != "USDB on base" || c.Wallets[0].QR == "" {
		t.Fatalf("USDB first, with its QR code: %+v", c.Wallets)
	}
	if c.Wallets[1].Token != "CNGN" || c.Wallets[1].QR != "" || c.Wallets[1].Note == "" {
		t.Fatalf("CNGN: no QR code, a note: %+v", c.Wallets[1])
	}
	if len(c.Others) != 1 || c.Others[0] != "USDC on ethereum" {
		t.Fatalf("others: %v", c.Others)
	}
	c = cryptoDeposits(tr, fundingReads{assetsErr: errors.New("timeout")})
	if !strings.Contains(c.Error, "did not answer") || len(c.Wallets) != 2 || c.Wallets[0].QR == "" || !strings.Contains(c.Wallets[0].Note, "Send only") {
		t.Fatalf("unknown assets: %+v", c)
	}
}
