package moneytest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// addSandboxAccount gives a user a virtual account in the sandbox's state.
func addSandboxAccount(st map[string]any, acc map[string]any) {
	now := time.Now().UTC().Format(time.RFC3339)
	acc["statusAt"], acc["createdAt"], acc["registered"], acc["seq"] = now, now, true, 1_000_000+len(webtest.SandboxObject(st, "rails", "accounts"))
	webtest.SandboxObject(st, "rails", "accounts")[acc["id"].(string)] = acc
}

func fundingPage(t *testing.T, env *webtest.Env, c *http.Client, path string) *goquery.Document {
	t.Helper()
	resp := env.Get(c, path)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

// The demo treasury as the sandbox seeds it: no bank rail set up (each
// says what would set it up, USD with a start button), and its wallets'
// addresses with QR codes that decode to them. Owners and finance approvers
// may see it; HR admins and support may not.
func TestFundingShowsTheDemoTreasury(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)

	doc := fundingPage(t, env, owner, "/treasury")
	if href, _ := doc.Find(`[data-testid="treasury-funding-link"] a`).Attr("href"); href != webtest.FundingPath {
		t.Fatalf("the treasury page does not link to the funding page: %q", href)
	}

	doc = fundingPage(t, env, owner, webtest.FundingPath)
	if s := webtest.TestID(doc, "funding-usd-status"); !strings.Contains(s, "Not set up") {
		t.Errorf("USD state: %q", s)
	}
	// One way to open the USD account: the rail's set-up page, which
	// activates the identity check and starts in one go.
	if href := doc.Find(`[data-testid="funding-usd-start"]`).AttrOr("href", ""); href != "/treasury/rails/usd" {
		t.Errorf("the USD start links to %q, want the USD rail's set-up page", href)
	}
	if doc.Find(`form[action*="usd"]`).Length() != 0 {
		t.Error("the funding page posts a USD start of its own")
	}
	if doc.Find(`[data-testid="funding-usd-account"]`).Length() != 0 {
		t.Error("account details shown for an account that does not exist")
	}
	// In people's words: what starts, never the endpoint's name.
	if s := webtest.TestID(doc, "funding-NGN-none"); !strings.Contains(s, "NGN onboarding starts") || strings.Contains(s, "start-") {
		t.Errorf("NGN: %q", s)
	}
	if s := webtest.TestID(doc, "funding-MXN-none"); !strings.Contains(s, "Mexico KYC") || strings.Contains(s, "start-") {
		t.Errorf("MXN: %q", s)
	}

	usdb, cngn := webtest.TreasuryWallet(t, env, "USDB"), webtest.TreasuryWallet(t, env, "CNGN")
	found := map[string]bool{}
	doc.Find(`[data-testid="funding-wallet"]`).Each(func(_ int, w *goquery.Selection) {
		addr := strings.TrimSpace(w.Find(`[data-testid="funding-wallet-address"]`).Text())
		qr, hasQR := w.Find(`[data-testid="funding-wallet-qr"]`).Attr("src")
		if hasQR {
			if got := webtest.DecodeQRDataURL(t, qr); got != addr {
				t.Errorf("the QR code of %s decodes to %q", addr, got)
			}
		}
		copyBtn := w.Find(`button[data-copy]`)
		if target, _ := copyBtn.Attr("data-copy"); w.Find(target).Text() != addr {
			t.Errorf("the copy button of %s copies %q", addr, w.Find(target).Text())
		}
		token := strings.TrimSpace(w.Find(`[data-testid="funding-wallet-token"]`).Text())
		switch addr {
		case usdb.Address:
			found["USDB"] = token == "USDB" && hasQR
			if s := strings.TrimSpace(w.Find(`[data-testid="funding-wallet-accepts"]`).Text()); s != "Receives USDB on base." {
				t.Errorf("USDB wallet: %q", s)
			}
		case cngn.Address:
			// An address that takes no crypto deposit gets no QR code to scan.
			found["CNGN"] = token == "CNGN" && !hasQR
			if s := w.Find(`[data-testid="funding-wallet-note"]`).Text(); !strings.Contains(s, "no crypto deposit of CNGN") {
				t.Errorf("CNGN wallet: %q", s)
			}
		}
	})
	if !found["USDB"] || !found["CNGN"] {
		t.Fatalf("treasury wallets shown: %v", found)
	}
	if s := webtest.TestID(doc, "funding-crypto-others"); !strings.Contains(s, "USDC on ethereum") {
		t.Errorf("other supported assets: %q", s)
	}

	// The printable page: the same rails, no navigation, no buttons.
	doc = fundingPage(t, env, owner, webtest.FundingPath+"?print=1")
	if doc.Find(`[data-testid="funding-print"]`).Length() != 1 || doc.Find(`[data-testid="nav"]`).Length() != 0 ||
		doc.Find("form, button").Length() != 0 || doc.Find("script").Length() != 0 {
		t.Fatal("the printable page has navigation, forms, buttons or script")
	}
	if doc.Find(`[data-testid="funding-wallet-qr"]`).Length() != 1 || !strings.Contains(webtest.TestID(doc, "funding-usd-status"), "Not set up") {
		t.Fatal("the printable page lacks the rails")
	}

	fin, _ := env.SignedIn(store.RoleFinanceApprover)
	fundingPage(t, env, fin, webtest.FundingPath)
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		if resp := env.Get(c, webtest.FundingPath); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s GET: %d, want 403", role, resp.StatusCode)
		}
	}
}

// Active rails: the USD account's numbers and its depositMessage as the
// required reference, the NGN virtual account and the MXN CLABE, each
// with a copy button; no start button; no account number in the logs.
func TestFundingShowsActiveAccountsAndTheRequiredReference(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	tid := env.Demo.TreasuryUserID
	webtest.EditSandboxState(t, env, func(st map[string]any) {
		addSandboxAccount(st, map[string]any{"id": "0f5f3f0e-1111-4a2b-9c3d-000000000001", "userId": tid, "currency": "USD", "status": "active",
			"accountName": "Acme Treasury", "accountNumber": "812345678901", "routingNumber": "026073150", "bankName": "Sandbox Community Bank",
			"bankAddress": "1 Sandbox Plaza, New York, NY 10001, USA", "swiftCode": "SBXBUS33", "accountType": "checking",
			"depositMessage": "SBXFUND42", "workflowId": "wf-1"})
		addSandboxAccount(st, map[string]any{"id": "0f5f3f0e-1111-4a2b-9c3d-000000000002", "userId": tid, "currency": "NGN", "status": "active",
			"accountName": "Acme Treasury", "accountNumber": "9123456789", "bankName": "Sandbox Microfinance Bank", "bankCode": "090999",
			"accountType": "savings"})
	})

	webtest.SandboxControl(t, env, http.MethodPut, "/_sandbox/users/"+tid+"/mx/kyc", map[string]string{"status": "approved"})
	mx, err := env.API.GetDepositAccounts(context.Background(), tid, apiclient.MXN)
	if err != nil || len(mx) != 1 || len(mx[0].Clabe) != 18 {
		t.Fatalf("the sandbox's CLABE: %+v %v", mx, err)
	}

	c, _ := env.SignedIn(store.RoleFinanceApprover)
	doc := fundingPage(t, env, c, webtest.FundingPath)
	if s := webtest.TestID(doc, "funding-usd-status"); !strings.HasPrefix(s, "Active") {
		t.Errorf("USD state: %q", s)
	}
	for id, want := range map[string]string{
		"funding-deposit-message":    "SBXFUND42",
		"funding-usd-account-number": "812345678901",
		"funding-usd-routing-number": "026073150",
		"funding-usd-account-name":   "Acme Treasury",
		"funding-usd-swift":          "SBXBUS33",
		"funding-NGN-number":         "9123456789",
		"funding-MXN-number":         mx[0].Clabe,
	} {
		el := doc.Find(`[data-testid="` + id + `"]`)
		if got := strings.TrimSpace(el.Text()); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
		if target, _ := el.Next().Attr("data-copy"); target != "#"+el.AttrOr("id", "?") {
			t.Errorf("%s: no copy button for it (%q)", id, target)
		}
	}
	if s := webtest.TestID(doc, "funding-deposit-message-box"); !strings.Contains(s, "REQUIRED reference") {
		t.Errorf("the reference is not marked required: %q", s)
	}
	if !strings.Contains(webtest.TestID(doc, "funding-usd-bank"), "Sandbox Community Bank") {
		t.Errorf("bank: %q", webtest.TestID(doc, "funding-usd-bank"))
	}
	if doc.Find(`[data-testid="funding-usd-start"]`).Length() != 0 {
		t.Error("the USD start offered for an active account")
	}
	// The reference is on the printable page too.
	doc = fundingPage(t, env, c, webtest.FundingPath+"?print=1")
	if webtest.TestID(doc, "funding-deposit-message") != "SBXFUND42" || webtest.TestID(doc, "funding-MXN-number") != mx[0].Clabe {
		t.Error("the printable page lacks the reference or the CLABE")
	}
	for _, n := range []string{"812345678901", "9123456789", mx[0].Clabe} {
		if strings.Contains(env.Logs.String(), n) {
			t.Errorf("account number %s logged", n)
		}
	}
}

// The API hangs: the page still answers, says for each rail that the
// Partner API did not answer, and shows the wallets' addresses it knows.
func TestFundingPageWhenTheAPIHangs(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"route": "*", "latencyMs": 60000})
	doc := fundingPage(t, env, c, webtest.FundingPath)
	for _, id := range []string{"funding-usd-error", "funding-NGN-error", "funding-MXN-error", "funding-crypto-error"} {
		if s := webtest.TestID(doc, id); !strings.Contains(s, "the Partner API did not answer") && !strings.Contains(s, "The Partner API did not answer") {
			t.Errorf("%s: %q", id, s)
		}
	}
	usdb := webtest.TreasuryWallet(t, env, "USDB")
	if s := webtest.TestID(doc, "funding-wallet-address"); !strings.Contains(s, usdb.Address) {
		t.Errorf("the known address is not shown: %q", s)
	}
	if doc.Find(`[data-testid="funding-usd-start"]`).Length() != 0 {
		t.Error("the USD start offered while the account's state is unknown")
	}
}
