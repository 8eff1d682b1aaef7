package auth

import (
	"net/url"
	"strings"
	"testing"
)

// The authenticator app's label is "issuer:account"; an issuer with a colon
// (a public origin with a port) would be cut at the wrong place.
func TestTOTPIssuerHasNoColon(t *testing.T) {
	for _, origin := range []string{"http://localhost:8080", "https://admin.example.com", "http://127.0.0.1:8443"} {
		f, err := newFactors(origin, Options{})
		if err != nil {
			t.Fatal(err)
		}
		link, err := totpURL(f.issuer, "ada@example.com", "JBSWY3DPEHPK3PXP")
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		issuer := u.Query().Get("issuer")
		label := strings.TrimPrefix(u.Path, "/")
		if strings.Contains(issuer, ":") || label != issuer+":ada@example.com" || !strings.Contains(issuer, hostOf(origin)) {
			t.Errorf("%s: issuer %q, label %q", origin, issuer, label)
		}
	}
}

func hostOf(origin string) string {
	u, _ := url.Parse(origin)
	return u.Hostname()
}
