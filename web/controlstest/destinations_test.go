package controlstest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A new destination is added by one person, confirmed by another, and
// usable only after the cooling-off period on the app's clock; a crypto
// withdrawal to it is refused until then, and one outside the book is
// refused by default.
func TestDestinationIsConfirmedByAnotherPersonAndUsableAfterCoolingOff(t *testing.T) {
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now})
	ctx := context.Background()
	finance, fs := env.SignedIn(store.RoleFinanceApprover)
	other, _ := env.SignedIn(store.RoleFinanceApprover)
	owner, _ := env.SignedIn(store.RoleOwner)
	support, _ := env.SignedIn(store.RoleSupport)
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	const address = "0x52908400098527886E0F7030069857D2E4169EE7" // EIP-55's own example

	add := url.Values{"kind": {"crypto"}, "name": {"Cold storage"}, "value": {address}}
	// Refused roles: support and HR cannot add; nothing is written.
	for _, c := range []*http.Client{support, hr} {
		if code, _ := post(t, env, c, "/controls/destinations", add); code != http.StatusForbidden {
			t.Fatalf("add as a refused role: %d", code)
		}
	}
	// Bad input: the checksum, next to the field.
	bad := url.Values{"kind": {"crypto"}, "name": {"Cold storage"}, "value": {strings.Replace(address, "E7", "e7", 1)}}
	code, doc := post(t, env, finance, "/controls/destinations", bad)
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("bad checksum: %d", code)
	}
	webtest.FieldProblem(t, doc, "dest-value", "EIP-55")
	if doc.Find("#dest-name").AttrOr("value", "") != "Cold storage" {
		t.Fatal("the typed name was lost")
	}
	if code, _ := post(t, env, finance, "/controls/destinations", add); code != http.StatusSeeOther {
		t.Fatalf("add: %d", code)
	}
	if code, doc := post(t, env, finance, "/controls/destinations", add); code != http.StatusUnprocessableEntity {
		t.Fatalf("add twice: %d", code)
	} else {
		webtest.FieldProblem(t, doc, "dest-value", "already in the book")
	}
	book, err := env.Store.Destinations(ctx)
	if err != nil || len(book) != 1 {
		t.Fatalf("book: %v %v", book, err)
	}
	id := book[0].ID
	confirm := "/controls/destinations/" + itoa(id) + "/confirm"

	// The one who added it offers no confirm button and cannot confirm it;
	// support cannot either.
	row := destinationRow(page(t, env, finance), "Cold storage")
	if row.Find(`[data-testid="destination-confirm"]`).Length() != 0 || !strings.Contains(row.Text(), "Waiting for another person") {
		t.Fatalf("adder's row: %q", row.Text())
	}
	if code, doc := post(t, env, finance, confirm, nil); code != http.StatusConflict || !strings.Contains(webtest.TestID(doc, "controls-error"), "another person must confirm") {
		t.Fatalf("self-confirm: %d %q", code, webtest.TestID(doc, "controls-error"))
	}
	if code, _ := post(t, env, support, confirm, nil); code != http.StatusForbidden {
		t.Fatalf("support confirms: %d", code)
	}

	// Not confirmed: a withdrawal there is refused, saying why, and
	// nothing is sent upstream.
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	withdraw := func(c *http.Client, to string) (int, string) {
		t.Helper()
		form, _ := webtest.WithdrawalForm(t, env, c, usd)
		form.Set("route", "base:USDC")
		form.Set("address", to)
		form.Set("confirm_tail", webtest.WithdrawalAddressTail(to))
		resp := env.PostForm(c, "/treasury/withdrawal", form)
		d := webtest.Doc(t, resp)
		return resp.StatusCode, d.Find(`#f-address-error`).Text() + " | " + d.Find(".flash-error, [role=alert]").Text()
	}
	if code, msg := withdraw(owner, address); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "nobody else has confirmed") {
		t.Fatalf("unconfirmed: %d %q", code, msg)
	}

	// Another person confirms: usable after 24 hours.
	row = destinationRow(page(t, env, other), "Cold storage")
	if row.Find(`[data-testid="destination-confirm"]`).Length() != 1 {
		t.Fatalf("no confirm button for another person: %q", row.Text())
	}
	if code, _ := post(t, env, other, confirm, nil); code != http.StatusSeeOther {
		t.Fatalf("confirm: %d", code)
	}
	if code, _ := post(t, env, owner, confirm, nil); code != http.StatusConflict {
		t.Fatalf("second confirmation: %d", code)
	}
	state := destinationRow(page(t, env, finance), "Cold storage").Find(`[data-testid="destination-state"]`).Text()
	if !strings.Contains(state, "usable in 23 hours") && !strings.Contains(state, "usable in 24 hours") {
		t.Fatalf("state after confirmation: %q", state)
	}
	if code, msg := withdraw(owner, address); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "Cooling-off period") {
		t.Fatalf("cooling off: %d %q", code, msg)
	}
	// Outside the book: refused by default, even for an owner.
	const stranger = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"
	if code, msg := withdraw(owner, stranger); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "not in the address book") {
		t.Fatalf("outside the book: %d %q", code, msg)
	}
	if n := webtest.WithdrawalRows(t, env); n != 0 {
		t.Fatalf("refused withdrawals reached the store: %d", n)
	}

	// Past the cooling-off on the app's clock: the withdrawal goes.
	clk.Advance(24*time.Hour + time.Minute)
	finance = env.Client() // a day later the session has ended: sign in again
	env.Login(finance, fs.Email, fs.Password)
	if !strings.Contains(destinationRow(page(t, env, finance), "Cold storage").Text(), "Trusted since") {
		t.Fatal("not trusted after the cooling-off")
	}
	if code, msg := withdraw(finance, address); code != http.StatusCreated {
		t.Fatalf("trusted withdrawal: %d %q", code, msg)
	}

	// The audit log has the addition and the confirmation, by their people.
	rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Target: "destination:" + itoa(id)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Action] = r.Actor.Email
	}
	if got["destination.add"] != fs.Email || got["destination.confirm"] == "" || got["destination.confirm"] == fs.Email {
		t.Fatalf("audit: %v", got)
	}
}
