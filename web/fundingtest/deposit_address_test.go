package fundingtest

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

const depositWalletRoute = "/v1/users/{userId}/deposit/wallet"

// assetForm is the create form of one supported asset on the page.
func assetForm(t *testing.T, doc *goquery.Document, chain, currency string) *goquery.Selection {
	t.Helper()
	var found *goquery.Selection
	doc.Find(`[data-testid="funding-asset"]`).Each(func(_ int, a *goquery.Selection) {
		if strings.TrimSpace(a.Find(`[data-testid="funding-asset-chain"]`).Text()) == chain &&
			strings.TrimSpace(a.Find(`[data-testid="funding-asset-token"]`).Text()) == currency {
			found = a
		}
	})
	if found == nil {
		t.Fatalf("no %s on %s among the deposit assets", currency, chain)
	}
	return found
}

// A finance approver asks for the treasury's USDC address on ethereum: the
// API is asked once, the address is shown with a QR code that decodes to
// it and a copy button, it is kept (the page shows it again, and in the
// CSV) with an audit row; the same form sent again sends nothing.
// An asset the API refuses (EURC needs a EURe wallet the treasury lacks)
// keeps nothing; a chain or token the API does not list, or mangled, sends
// nothing; HR admins and support may not ask at all.
func TestDepositAddressPerSupportedAsset(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	fin, _ := env.SignedIn(store.RoleFinanceApprover)
	tid := env.Demo.TreasuryUserID

	doc := page(t, env, fin)
	form := formOf(t, assetForm(t, doc, "ethereum", "USDC").Find(`[data-testid="funding-asset-form"]`))
	if form.Get("form_token") == "" || form.Get("chain") != "ethereum" || form.Get("currency") != "USDC" {
		t.Fatalf("the create form: %v", form)
	}
	// USDB on base is the treasury wallet's own address: not offered again.
	doc.Find(`[data-testid="funding-asset"]`).Each(func(_ int, a *goquery.Selection) {
		if strings.TrimSpace(a.Find(`[data-testid="funding-asset-token"]`).Text()) == "USDB" {
			t.Error("USDB on base is offered a deposit address of its own")
		}
	})

	// Refused roles first: nothing sent, nothing kept.
	for _, role := range []store.Role{store.RoleHRAdmin, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		if status, _ := post(t, env, c, "/treasury/funding/deposit-address", form); status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", role, status)
		}
	}
	// Bad input: nothing sent.
	for _, bad := range []url.Values{
		{"chain": {"tron"}, "currency": {"USDC"}},                      // not a supported pair
		{"chain": {"ethereum<script>"}, "currency": {"USDC"}},          // not a chain name
		{"chain": {"ethereum"}, "currency": {strings.Repeat("U", 40)}}, // too long
		{"chain": {""}, "currency": {"USDC"}},
	} {
		if status, body := post(t, env, fin, "/treasury/funding/deposit-address", webtest.WithFormToken(bad)); status != http.StatusUnprocessableEntity || !strings.Contains(body, "Nothing was sent") {
			t.Errorf("%v: %d, want 422 saying nothing was sent", bad, status)
		}
	}
	if n := sent(env, "POST", depositWalletRoute); n != 0 {
		t.Fatalf("refused and bad forms reached the API %d times", n)
	}

	status, _ := post(t, env, fin, "/treasury/funding/deposit-address", form)
	if status != http.StatusSeeOther {
		t.Fatalf("create: %d", status)
	}
	if n := sent(env, "POST", depositWalletRoute); n != 1 {
		t.Fatalf("the API was asked %d times, want 1", n)
	}
	addrs, err := env.Store.DepositAddresses(bg, tid)
	if err != nil || len(addrs) != 1 || addrs[0].Chain != "ethereum" || addrs[0].Currency != "USDC" || !strings.HasPrefix(addrs[0].Address, "0x") {
		t.Fatalf("kept: %+v %v", addrs, err)
	}
	addr := addrs[0].Address
	doc = page(t, env, fin)
	if f := webtest.TestID(doc, "flash"); !strings.Contains(f, "USDC deposit address on ethereum is ready") {
		t.Errorf("flash: %q", f)
	}
	a := assetForm(t, doc, "ethereum", "USDC")
	if got := strings.TrimSpace(a.Find(`[data-testid="funding-asset-address"]`).Text()); got != addr {
		t.Fatalf("shown address %q, want %q", got, addr)
	}
	qr, _ := a.Find(`[data-testid="funding-asset-qr"]`).Attr("src")
	if got := webtest.DecodeQRDataURL(t, qr); got != addr {
		t.Errorf("the QR code decodes to %q", got)
	}
	if target, _ := a.Find(`button[data-copy]`).Attr("data-copy"); a.Find(target).Text() != addr {
		t.Errorf("the copy button copies %q", a.Find(target).Text())
	}
	if a.Find(`[data-testid="funding-asset-form"]`).Length() != 0 {
		t.Error("a create button beside an issued address")
	}
	if created := webtest.TestID(doc, "funding-asset-created"); isoInstant.MatchString(created) || !strings.Contains(created, "Issued") {
		t.Errorf("issued: %q", created)
	}
	rows := webtest.AuditRows(t, env, "treasury.deposit_address.create")
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, addr) {
		t.Fatalf("audit: %+v", rows)
	}

	// The same form again: a repeat, nothing sent.
	if status, _ := post(t, env, fin, "/treasury/funding/deposit-address", form); status != http.StatusSeeOther {
		t.Fatalf("repeat: %d", status)
	}
	if n := sent(env, "POST", depositWalletRoute); n != 1 {
		t.Fatalf("a repeated form reached the API: %d calls", n)
	}
	if f := flash(t, env, fin); !strings.Contains(f, "already sent") {
		t.Errorf("repeat flash: %q", f)
	}

	// The CSV.
	resp := env.Get(fin, "/treasury/funding/deposit-addresses.csv")
	csv := webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(csv, "USDC,ethereum,"+addr) {
		t.Fatalf("CSV %d: %s", resp.StatusCode, csv)
	}

	// Refused upstream: nothing kept, the reason on the page.
	form = formOf(t, assetForm(t, page(t, env, fin), "base", "EURC").Find(`[data-testid="funding-asset-form"]`))
	if status, _ := post(t, env, fin, "/treasury/funding/deposit-address", form); status != http.StatusSeeOther {
		t.Fatalf("EURC: %d", status)
	}
	if f := flash(t, env, fin); !strings.Contains(f, "No deposit address was issued") {
		t.Errorf("refused flash: %q", f)
	}
	if addrs, _ := env.Store.DepositAddresses(bg, tid); len(addrs) != 1 {
		t.Fatalf("a refused address was kept: %+v", addrs)
	}
}

// isoInstant finds an ISO 8601 instant, which a person should not have to
// read.
var isoInstant = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}`)
