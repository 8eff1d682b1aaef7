package authtest

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"testing"

	"partneradmin/handlers/auth"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Behind a trusted reverse proxy each person counts at their own address
// (the proxy's X-Forwarded-For): one person's guessing slows sign-ins from
// their address, not another's who comes through the same proxy.
func TestTrustedProxyGivesEachClientItsOwnLimit(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	waits := recordWaits(env)
	c := env.Client()
	s := env.CreateStaff(store.RoleOwner)
	attacker := http.Header{"X-Forwarded-For": {"203.0.113.7"}}
	for i := range auth.SlowAddressAfter + 1 {
		a, err := webtest.PostLogin(env, c, url.Values{"email": {fmt.Sprintf("guess%d@partner.example", i)}, "password": {"wrong password"}}, attacker)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != http.StatusUnprocessableEntity {
			t.Fatalf("attempt %d from the attacker's address: %d", i, a.Status)
		}
	}
	if waits.count() != 1 {
		t.Fatalf("%d of the attacker's attempts slowed, want the one past %d", waits.count(), auth.SlowAddressAfter)
	}
	// The real user, through the same proxy, from their own address.
	a, err := webtest.PostLogin(env, c, url.Values{"email": {s.Email}, "password": {s.Password}}, http.Header{"X-Forwarded-For": {"198.51.100.20"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusSeeOther || waits.count() != 1 {
		t.Fatalf("the real user behind the proxy: %d %q, %d waits", a.Status, a.Text, waits.count())
	}
}
