package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestTrustedProxiesSetting(t *testing.T) {
	t.Parallel()
	getenv := func(v string) func(string) string {
		return func(k string) string {
			if k == "TRUSTED_PROXIES" {
				return v
			}
			return ""
		}
	}
	c, err := ParseConfig(nil, getenv(" 10.0.0.0/8, 192.0.2.7 ,2001:db8::/32,::ffff:198.51.100.0/120,"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32", "198.51.100.0/24"}
	if len(c.TrustedProxies) != len(want) {
		t.Fatalf("got %v, want %v", c.TrustedProxies, want)
	}
	for i, p := range c.TrustedProxies {
		if p.String() != want[i] {
			t.Fatalf("got %v, want %v", c.TrustedProxies, want)
		}
	}
	if c, err := ParseConfig(nil, getenv(""), io.Discard); err != nil || len(c.TrustedProxies) != 0 {
		t.Fatalf("unset: %v %v", c.TrustedProxies, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0.1:80", "fe80::1%eth0", "::ffff:10.0.0.0/80"} {
		if _, err := ParseConfig(nil, getenv(bad), io.Discard); err == nil || !strings.Contains(err.Error(), "TRUSTED_PROXIES") {
			t.Errorf("%q: %v, want refused", bad, err)
		}
	}
}

// TestClientAddress: behind trusted proxies the client is the rightmost
// X-Forwarded-For address that is not a trusted proxy; otherwise forwarded
// headers are ignored.
func TestClientAddress(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}
	tests := []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		xff     []string
		want    string
	}{
		{"no trusted proxies: header ignored", nil, "10.1.1.1:4000", []string{"203.0.113.9"}, "10.1.1.1:4000"},
		{"untrusted peer: header ignored", trusted, "198.51.100.4:4000", []string{"203.0.113.9"}, "198.51.100.4:4000"},
		{"trusted peer, one hop", trusted, "10.1.1.1:4000", []string{"203.0.113.9"}, "203.0.113.9:4000"},
		{"client-written hops are not believed", trusted, "10.1.1.1:4000", []string{"1.2.3.4, 203.0.113.9"}, "203.0.113.9:4000"},
		{"proxies in a chain are skipped", trusted, "10.1.1.1:4000", []string{"1.2.3.4, 203.0.113.9, 10.2.2.2"}, "203.0.113.9:4000"},
		{"several header lines are one list", trusted, "10.1.1.1:4000", []string{"1.2.3.4", "203.0.113.9, 10.2.2.2"}, "203.0.113.9:4000"},
		{"only proxies: the first one", trusted, "10.1.1.1:4000", []string{"10.3.3.3, 10.2.2.2"}, "10.3.3.3:4000"},
		{"garbage to the left of the client", trusted, "10.1.1.1:4000", []string{"nonsense, 203.0.113.9"}, "203.0.113.9:4000"},
		{"garbage after a proxy", trusted, "10.1.1.1:4000", []string{"203.0.113.9, nonsense, 10.2.2.2"}, "10.2.2.2:4000"},
		{"garbage only: the peer", trusted, "10.1.1.1:4000", []string{"nonsense"}, "10.1.1.1:4000"},
		{"no header: the peer", trusted, "10.1.1.1:4000", nil, "10.1.1.1:4000"},
		{"IPv6 proxy and client", trusted, "[2001:db8::1]:4000", []string{"2001:db9::7"}, "[2001:db9::7]:4000"},
		{"IPv4-mapped peer", trusted, "[::ffff:10.1.1.1]:4000", []string{"203.0.113.9"}, "203.0.113.9:4000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			h := clientAddress(tt.trusted)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.RemoteAddr }))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.peer
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			if got != tt.want {
				t.Fatalf("client %q, want %q", got, tt.want)
			}
		})
	}
}
