package opstest

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

// clientFrom is an HTTP client whose connections leave from a loopback
// address other than nginx's (127.0.0.1), so that the replicas can tell
// the client from the balancer. Linux answers all of 127.0.0.0/8.
func clientFrom(ip string) *http.Client {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signInThrough signs in at base the way a browser does: GET /login for
// the form and its hidden fields, POST it (with a spoofed X-Forwarded-For when
// xff is set), follow the redirect to the start page.
func signInThrough(t *testing.T, c *http.Client, base string, s webtest.Staff, xff string) {
	t.Helper()
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	doc := webtest.Doc(t, resp)
	form := url.Values{"email": {s.Email}, "password": {s.Password}}
	doc.Find(`form[action="/login"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		form.Set(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	req, err := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in through %s: %d", base, resp.StatusCode)
	}
	next := resp.Header.Get("Location")
	resp, err = c.Get(base + next)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("start page %s after signing in: %d", next, resp.StatusCode)
	}
}

// sessionAddresses are the client addresses the staff member's sessions
// were made from.
func sessionAddresses(t *testing.T, env *webtest.Env, staffID int64) []string {
	t.Helper()
	ss, err := env.Store.StaffSessions(context.Background(), staffID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range ss {
		out = append(out, s.Address)
	}
	return out
}

// failureKeysWith counts the sign-in failures counted against an address.
func failureKeysWith(t *testing.T, env *webtest.Env, addr string) int {
	t.Helper()
	var n int
	err := env.Store.Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM login_failures WHERE key LIKE '%' || $1 || '%'`, addr).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNginxPassesTheClientAddress: behind nginx, with TRUSTED_PROXIES set
// to it, the replicas see the client's own address, not nginx's: the
// session records it and wrong passwords count against it; an
// X-Forwarded-For the client wrote itself is not believed. Without
// TRUSTED_PROXIES every client would be nginx (127.0.0.1), which is why
// the setting is needed.
func TestNginxPassesTheClientAddress(t *testing.T) {
	t.Parallel()
	const clientIP = "127.0.0.2"
	key := web.Secret(strings.Repeat("5c", 32))
	a := webtest.New(t, webtest.Options{SkipDemoImport: true, EncryptionKey: key, TrustedProxies: loopback})
	b := webtest.New(t, webtest.Options{ReplicaOf: a, TrustedProxies: loopback})
	lb := balance(t, a, b)
	owner := a.CreateStaff(store.RoleOwner)

	// Twice, so that each replica serves a sign-in; once with a forged
	// header.
	signInThrough(t, clientFrom(clientIP), lb.URL, owner, "")
	signInThrough(t, clientFrom(clientIP), lb.URL, owner, "203.0.113.9")
	got := sessionAddresses(t, a, owner.ID)
	if len(got) != 2 || got[0] != clientIP || got[1] != clientIP {
		t.Fatalf("sessions made through nginx from %s record %v", clientIP, got)
	}
	if served, err := lb.Served(); err != nil || served[0] == 0 || served[1] == 0 {
		t.Fatalf("nginx sent %v requests to the replicas (%v), want some to each", served, err)
	}

	// A wrong password counts against the client, not against nginx
	// (which would lock out everyone behind it).
	c := clientFrom(clientIP)
	resp, err := c.PostForm(lb.URL+"/login", url.Values{"email": {owner.Email}, "password": {"not the password"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("wrong password through nginx: %d", resp.StatusCode)
	}
	if n := failureKeysWith(t, a, clientIP); n == 0 {
		t.Fatalf("a wrong password through nginx from %s is not counted against %s", clientIP, clientIP)
	}
	if n := failureKeysWith(t, a, "127.0.0.1"); n != 0 {
		t.Fatalf("a wrong password through nginx is counted against nginx's address (%d keys)", n)
	}

	// The same path to an app that does not trust nginx: every client is
	// nginx.
	blind := webtest.New(t, webtest.Options{SkipDemoImport: true})
	blindLB := balance(t, blind)
	other := blind.CreateStaff(store.RoleOwner)
	signInThrough(t, clientFrom(clientIP), blindLB.URL, other, "")
	if got := sessionAddresses(t, blind, other.ID); len(got) != 1 || got[0] != "127.0.0.1" {
		t.Fatalf("without TRUSTED_PROXIES the session records %v, want nginx's 127.0.0.1", got)
	}
}
