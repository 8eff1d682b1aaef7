package fundingtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

const (
	routeUSD = "/v1/users/{userId}/smart-wallets/{smartWalletId}/onramp/vba/usd"
	routeNGN = "/v1/users/{userId}/smart-wallets/{smartWalletId}/onramp/vba/nigeria"
)

// demoUser is a demo employee's serviceUserId.
func demoUser(t *testing.T, env *webtest.Env, first string) string {
	t.Helper()
	for _, e := range env.Demo.Employees {
		if e.FirstName == first && e.ServiceUserID != "" {
			return e.ServiceUserID
		}
	}
	t.Fatalf("no demo employee %s", first)
	return ""
}

// bankDeposit sends a USD transfer to the user's account in the sandbox
// and returns the wallet it credited.
func bankDeposit(t *testing.T, env *webtest.Env, user, amount string) string {
	t.Helper()
	va, err := env.API.GetUSDVirtualAccount(bg, user)
	if err != nil || va.Account == nil {
		t.Fatalf("USD account of %s: %+v %v", user, va, err)
	}
	body := map[string]string{"currency": "USD", "amount": amount}
	if m := va.Account.DepositMessage; m != nil {
		body["reference"] = *m
	}
	var out struct {
		Data struct {
			SmartWalletID string `json:"smartWalletId"`
		} `json:"data"`
	}
	if err := json.Unmarshal(webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/users/"+user+"/bank-deposits", body), &out); err != nil {
		t.Fatal(err)
	}
	return out.Data.SmartWalletID
}

// An owner routes Emily's USD account (she is a treasury admin) into the
// treasury's USDB wallet: one call, the route listed (and in the CSV) with
// an audit row, and a transfer to her account then credits the treasury.
// Removing it sends her transfers to her own wallet again. The spec's rule
// is checked before sending and said in words: Adaeze is no admin of the
// treasury, Lena has no USD account; a CNGN wallet cannot take USD, a
// mangled form names nothing. Finance approvers see the routes but may not
// change them.
func TestOwnerRoutesAnAdminsUSDAccountToTheTreasuryAndBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	fin, _ := env.SignedIn(store.RoleFinanceApprover)
	emily, adaeze, lena := demoUser(t, env, "Emily"), demoUser(t, env, "Adaeze"), demoUser(t, env, "Lena")
	usdb, cngn := webtest.TreasuryWallet(t, env, "USDB"), webtest.TreasuryWallet(t, env, "CNGN")

	doc := page(t, env, owner)
	form := doc.Find(`[data-testid="funding-route-form"]`)
	token := formOf(t, form).Get("form_token")
	if token == "" {
		t.Fatal("no route form with a one-time token for an owner")
	}
	for _, name := range []string{"Emily Carter", "Oliver Smith", "Lena Schmidt"} {
		if !strings.Contains(form.Find(`select[name="holder"]`).Text(), name) {
			t.Errorf("%s is not offered as an account holder", name)
		}
	}
	if strings.Contains(form.Find(`select[name="holder"]`).Text(), "Adaeze") {
		t.Error("a person who is no treasury admin is offered")
	}
	if s := webtest.TestID(doc, "funding-routes-none"); s == "" {
		t.Error("no words for no route")
	}

	ask := func(holder, rail, wallet string) url.Values {
		return webtest.WithFormToken(url.Values{"holder": {holder}, "rail": {rail}, "wallet_id": {wallet}})
	}
	// A finance approver sees the panel, not the form, and may not post it.
	fdoc := page(t, env, fin)
	if fdoc.Find(`[data-testid="funding-route-form"]`).Length() != 0 || webtest.TestID(fdoc, "funding-routes-owner-only") == "" {
		t.Error("a finance approver is offered the route form")
	}
	if status, _ := post(t, env, fin, "/treasury/funding/routes", ask(emily, "USD", usdb.ID)); status != http.StatusForbidden {
		t.Errorf("finance approver: %d, want 403", status)
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		words  string
	}{
		{"no admin", ask(adaeze, "USD", usdb.ID), http.StatusConflict, "is not an admin of the treasury's wallets"},
		{"no account", ask(lena, "USD", usdb.ID), http.StatusConflict, "has no issued USD bank account"},
		{"wrong token", ask(emily, "USD", cngn.ID), http.StatusUnprocessableEntity, "only be routed to a USDB wallet"},
		{"not a rail", ask(emily, "EUR", usdb.ID), http.StatusUnprocessableEntity, "did not name"},
		{"mangled holder", ask(emily+"'; --", "USD", usdb.ID), http.StatusUnprocessableEntity, "did not name"},
		{"not the treasury's", ask(emily, "USD", "0f5f3f0e-0000-4a2b-9c3d-000000000000"), http.StatusUnprocessableEntity, "not one of the treasury's wallets"},
	} {
		status, body := post(t, env, owner, "/treasury/funding/routes", tc.form)
		if status != tc.status || !strings.Contains(body, tc.words) || !strings.Contains(body, "Nothing was sent") {
			t.Errorf("%s: %d, want %d saying %q and that nothing was sent", tc.name, status, tc.status, tc.words)
		}
	}
	if n := sent(env, "POST", routeUSD) + sent(env, "POST", routeNGN); n != 0 {
		t.Fatalf("refused forms reached the API %d times", n)
	}
	if routes, _ := env.Store.DepositRoutes(bg, []string{usdb.ID, cngn.ID}); len(routes) != 0 {
		t.Fatalf("refused forms left routes: %+v", routes)
	}

	// Before: Emily's transfers go to her own wallet.
	if w := bankDeposit(t, env, emily, "10.00"); w == usdb.ID {
		t.Fatal("Emily's transfer credited the treasury before any route")
	}
	form2 := url.Values{"form_token": {token}, "holder": {emily}, "rail": {"USD"}, "wallet_id": {usdb.ID}}
	if status, _ := post(t, env, owner, "/treasury/funding/routes", form2); status != http.StatusSeeOther {
		t.Fatalf("route: %d", status)
	}
	if n := sent(env, "POST", routeUSD); n != 1 {
		t.Fatalf("route calls: %d", n)
	}
	if w := bankDeposit(t, env, emily, "25.00"); w != usdb.ID {
		t.Fatalf("after routing, Emily's transfer credited %s, not the treasury's USDB wallet %s", w, usdb.ID)
	}
	doc = page(t, env, owner)
	if f := webtest.TestID(doc, "flash"); !strings.Contains(f, "now fund the treasury's USDB wallet") {
		t.Errorf("flash: %q", f)
	}
	row := doc.Find(`[data-testid="funding-route"]`)
	if row.Length() != 1 || webtest.TestID(doc, "funding-route-holder") != "Emily Carter" ||
		webtest.TestID(doc, "funding-route-rail") != "USD bank account" || !strings.Contains(webtest.TestID(doc, "funding-route-wallet"), "USDB wallet") {
		t.Fatalf("routes shown: %q", row.Text())
	}
	if strings.Contains(row.Text(), usdb.ID) || isoInstant.MatchString(row.Text()) {
		t.Errorf("a raw id or instant on screen: %q", row.Text())
	}
	rows := webtest.AuditRows(t, env, "treasury.deposit_route.set")
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "Emily Carter") {
		t.Fatalf("audit: %+v", rows)
	}
	resp := env.Get(fin, "/treasury/funding/routes.csv")
	csv := webtest.ReadBody(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(csv, "Emily Carter,"+emily+",USD,"+usdb.ID+",USDB,") {
		t.Fatalf("CSV %d: %s", resp.StatusCode, csv)
	}
	// The same form again sends nothing.
	if status, _ := post(t, env, owner, "/treasury/funding/routes", form2); status != http.StatusSeeOther || sent(env, "POST", routeUSD) != 1 {
		t.Fatalf("repeat: %d, %d calls", status, sent(env, "POST", routeUSD))
	}

	// And back: a finance approver may not; the owner may.
	remove := formOf(t, page(t, env, owner).Find(`[data-testid="funding-route-remove-form"]`))
	if page(t, env, fin).Find(`[data-testid="funding-route-remove-form"]`).Length() != 0 {
		t.Error("a finance approver is offered the remove button")
	}
	if status, _ := post(t, env, fin, "/treasury/funding/routes/remove", remove); status != http.StatusForbidden {
		t.Errorf("finance approver remove: %d, want 403", status)
	}
	if status, body := post(t, env, owner, "/treasury/funding/routes/remove", ask(emily, "NGN", cngn.ID)); status != http.StatusConflict || !strings.Contains(body, "made no such route") {
		t.Errorf("remove of a route the app did not make: %d", status)
	}
	if n := sent(env, "DELETE", routeUSD) + sent(env, "DELETE", routeNGN); n != 0 {
		t.Fatalf("refused removes reached the API %d times", n)
	}
	if status, _ := post(t, env, owner, "/treasury/funding/routes/remove", remove); status != http.StatusSeeOther {
		t.Fatalf("remove: %d", status)
	}
	if n := sent(env, "DELETE", routeUSD); n != 1 {
		t.Fatalf("remove calls: %d", n)
	}
	if w := bankDeposit(t, env, emily, "5.00"); w == usdb.ID {
		t.Fatal("after removing the route, Emily's transfer still credited the treasury")
	}
	if routes, _ := env.Store.DepositRoutes(bg, []string{usdb.ID}); len(routes) != 0 {
		t.Fatalf("routes left: %+v", routes)
	}
	if f := flash(t, env, owner); !strings.Contains(f, "go to Emily Carter's own wallet again") {
		t.Errorf("flash: %q", f)
	}
	if rows := webtest.AuditRows(t, env, "treasury.deposit_route.clear"); len(rows) != 1 || rows[0].Outcome != store.OutcomeOK {
		t.Fatalf("audit: %+v", rows)
	}
}

// The same for an NGN account: Lena, a treasury admin, is given an issued
// NGN account; an owner routes it into the treasury's CNGN wallet, a
// transfer to it funds the treasury, and removing the route ends that.
func TestOwnerRoutesAnAdminsNGNAccountToTheTreasuryAndBack(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	lena := demoUser(t, env, "Lena")
	cngn := webtest.TreasuryWallet(t, env, "CNGN")
	webtest.EditSandboxState(t, env, func(st map[string]any) {
		now := time.Now().UTC().Format(time.RFC3339)
		webtest.SandboxObject(st, "rails", "accounts")["0f5f3f0e-2222-4a2b-9c3d-000000000001"] = map[string]any{
			"id": "0f5f3f0e-2222-4a2b-9c3d-000000000001", "userId": lena, "currency": "NGN", "status": "active",
			"accountName": "Lena Schmidt", "accountNumber": "9123450001", "bankName": "Sandbox Microfinance Bank", "bankCode": "090999",
			"accountType": "savings", "statusAt": now, "createdAt": now, "registered": true, "seq": 2_000_000}
	})
	ngnDeposit := func() string {
		var out struct {
			Data struct {
				SmartWalletID string `json:"smartWalletId"`
			} `json:"data"`
		}
		raw := webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/users/"+lena+"/bank-deposits", map[string]string{"currency": "NGN", "amount": "5000"})
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out.Data.SmartWalletID
	}

	form := webtest.WithFormToken(url.Values{"holder": {lena}, "rail": {"NGN"}, "wallet_id": {cngn.ID}})
	if status, body := post(t, env, owner, "/treasury/funding/routes", form); status != http.StatusSeeOther {
		t.Fatalf("route: %d %s", status, body)
	}
	if n := sent(env, "POST", routeNGN); n != 1 {
		t.Fatalf("route calls: %d", n)
	}
	if w := ngnDeposit(); w != cngn.ID {
		t.Fatalf("an NGN transfer to Lena's account credited %s, not the treasury's CNGN wallet", w)
	}
	remove := formOf(t, page(t, env, owner).Find(`[data-testid="funding-route-remove-form"]`))
	if remove.Get("rail") != "NGN" || remove.Get("holder") != lena {
		t.Fatalf("remove form: %v", remove)
	}
	if status, _ := post(t, env, owner, "/treasury/funding/routes/remove", remove); status != http.StatusSeeOther {
		t.Fatalf("remove: %d", status)
	}
	if n := sent(env, "DELETE", routeNGN); n != 1 {
		t.Fatalf("remove calls: %d", n)
	}
	// Lena holds no CNGN wallet, so with no route the sandbox has nowhere
	// to credit the transfer: it refuses it rather than fund the treasury.
	resp, err := http.Post(env.SandboxURL+"/_sandbox/users/"+lena+"/bank-deposits", "application/json", strings.NewReader(`{"currency":"NGN","amount":"5000"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Fatalf("after removing the route an NGN transfer was still credited (%d)", resp.StatusCode)
	}
}
