package authtest

import (
	"net/http"
	"net/netip"
	"net/url"
	"testing"

	"partneradmin/handlers/auth"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Behind a trusted reverse proxy each person counts at their own address
// (the proxy's X-Forwarded-For): one person's failures do not lock out
// another who comes through the same proxy. Sign-in tokens never reach the
// access log.
func TestTrustedProxyGivesEachClientItsOwnLimit(t *testing.T) {
	env := webtest.New(t, webtest.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	c := env.Client()
	s := env.CreateStaff(store.RoleOwner)
	attacker := http.Header{"X-Forwarded-For": {"203.0.113.7"}}
	for i := range auth.MaxAccountFailures + 1 {
		a, err := webtest.PostLogin(env, c, url.Values{"email": {s.Email}, "password": {"wrong password"}}, attacker)
		if err != nil {
			t.Fatal(err)
		}
		if i >= auth.MaxAccountFailures && a.Status != http.StatusTooManyRequests {
			t.Fatalf("attempt %d from the attacker's address: %d", i, a.Status)
		}
	}
	// The real user, through the same proxy, from their own address.
	a, err := webtest.PostLogin(env, c, url.Values{"email": {s.Email}, "password": {s.Password}}, http.Header{"X-Forwarded-For": {"198.51.100.20"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusSeeOther {
		t.Fatalf("the real user behind the proxy: %d %q", a.Status, a.Text)
	}
}
