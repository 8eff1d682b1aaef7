package authtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"partneradmin/handlers/auth"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// clientFrom returns a client whose connections come from ip, an address of
// the loopback block (Linux answers all of 127.0.0.0/8 on the loopback), so
// that one test can be several people at different addresses.
func clientFrom(t *testing.T, env *webtest.Env, ip string) *http.Client {
	t.Helper()
	c := env.Client()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	c.Transport = tr
	return c
}

// waits records the waits sign-ins ask for instead of waiting them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func recordWaits(env *webtest.Env) *waits {
	w := &waits{}
	env.App.Auth().SetPause(func(_ context.Context, d time.Duration) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.d = append(w.d, d)
		return nil
	})
	return w
}

func (w *waits) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.d)
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func (w *waits) first() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.d) == 0 {
		return 0
	}
	return w.d[0]
}

func (w *waits) last() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.d) == 0 {
		return 0
	}
	return w.d[len(w.d)-1]
}

// TestWrongPasswordsSentAtOnceAreLimitedBeforeChecking: 120 wrong passwords
// for one account sent at the same moment from one address. Each attempt is
// counted before its password is checked, so no more than the limit are
// checked; the others are refused with the limit in words. Signed-in pages
// keep answering meanwhile.
func TestWrongPasswordsSentAtOnceAreLimitedBeforeChecking(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	victim := env.CreateStaff(store.RoleOwner)
	signedIn, _ := env.SignedIn(store.RoleSupport)

	const n = 120
	answers := make([]webtest.LoginAnswer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			a, err := webtest.PostLogin(env, env.Client(), url.Values{"email": {victim.Email}, "password": {fmt.Sprintf("guess number %d", i)}}, nil)
			if err != nil {
				t.Error(err)
			}
			answers[i] = a
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	close(start)
	pages := 0
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		default:
		}
		resp := env.Get(signedIn, "/account/password")
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("signed-in page during the attempts: %d", resp.StatusCode)
		}
		pages++
	}

	checked, busy, limited := 0, 0, 0
	for i, a := range answers {
		switch {
		case a.Status == http.StatusUnprocessableEntity && strings.Contains(a.Text, "do not match"):
			checked++
		case a.Status == http.StatusServiceUnavailable && strings.Contains(a.Text, "Try again in a moment"):
			busy++
		case a.Status == http.StatusTooManyRequests && strings.Contains(a.Text, "Too many failed sign-ins for this account"):
			limited++
		default:
			t.Errorf("attempt %d: %d %q", i, a.Status, a.Text)
		}
	}
	t.Logf("%d checked, %d busy, %d limited; %d signed-in pages served meanwhile", checked, busy, limited, pages)
	// A busy answer checked nothing and took its count back (so another
	// attempt may take its place): only the checked ones are bounded.
	if checked < 1 || checked > auth.MaxAccountFailures {
		t.Fatalf("%d passwords checked (%d refused as busy), want 1 to %d", checked, busy, auth.MaxAccountFailures)
	}
	// Only the checked attempts are recorded as failures.
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "auth.login", Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range rows {
		if r.Outcome == store.OutcomeFailed {
			failed++
		}
	}
	if failed != checked {
		t.Fatalf("%d failed sign-ins audited, want %d", failed, checked)
	}
}

// TestLockedAccountStaysLockedFromEveryAddress: wrong passwords for one
// account lock the account, wherever they came from and wherever its owner
// signs in, so guessing spread over many addresses gains nothing; the
// owner is told to wait or ask for a set-password link.
func TestLockedAccountStaysLockedFromEveryAddress(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	victim := env.CreateStaff(store.RoleFinanceApprover)
	for i := range auth.MaxAccountFailures + 2 {
		attacker := clientFrom(t, env, fmt.Sprintf("127.0.0.%d", 10+i))
		a, err := webtest.PostLogin(env, attacker, url.Values{"email": {victim.Email}, "password": {fmt.Sprintf("guess %d", i)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := http.StatusUnprocessableEntity
		if i >= auth.MaxAccountFailures {
			want = http.StatusTooManyRequests
		}
		if a.Status != want {
			t.Fatalf("attempt %d from its own address: %d %q, want %d", i, a.Status, a.Text, want)
		}
	}
	owner := clientFrom(t, env, "127.0.0.3")
	a, err := webtest.PostLogin(env, owner, url.Values{"email": {victim.Email}, "password": {victim.Password}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusTooManyRequests || !strings.Contains(a.Text, "ask an owner for a set-password link") {
		t.Fatalf("the account's owner from another address: %d %q, want 429", a.Status, a.Text)
	}
	// The set-password link the message offers unlocks it.
	boss, _ := env.SignedIn(store.RoleOwner)
	link := issueSetPasswordLink(t, env, boss, victim.ID)
	chosen := "a brand new passphrase for the victim"
	resp := env.PostForm(owner, link, url.Values{"new": {chosen}, "confirm": {chosen}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("set password: %d", resp.StatusCode)
	}
	if a, err := webtest.PostLogin(env, owner, url.Values{"email": {victim.Email}, "password": {chosen}}, nil); err != nil || a.Status != http.StatusSeeOther {
		t.Fatalf("after the set-password link: %d %q %v, want 303", a.Status, a.Text, err)
	}
}

// TestForwardedForIsIgnoredWithoutTrustedProxies: with no trusted proxy
// configured, a client cannot escape its address's slowing by claiming
// other addresses in X-Forwarded-For.
func TestForwardedForIsIgnoredWithoutTrustedProxies(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	waits := recordWaits(env)
	c := env.Client()
	for i := range auth.SlowAddressAfter {
		h := http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", i+1)}}
		a, err := webtest.PostLogin(env, c, url.Values{"email": {fmt.Sprintf("guess%d@partner.example", i)}, "password": {"wrong password"}}, h)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != http.StatusUnprocessableEntity {
			t.Fatalf("attempt %d: %d %q", i, a.Status, a.Text)
		}
	}
	if waits.count() != 0 {
		t.Fatalf("%d attempts slowed before the address had %d failures", waits.count(), auth.SlowAddressAfter)
	}
	s := env.CreateStaff(store.RoleOwner)
	h := http.Header{"X-Forwarded-For": {"203.0.113.50"}}
	a, err := webtest.PostLogin(env, c, url.Values{"email": {s.Email}, "password": {s.Password}}, h)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusSeeOther || waits.count() != 1 {
		t.Fatalf("after %d failures under made-up addresses: %d %q after %d waits, want a slowed 303", auth.SlowAddressAfter, a.Status, a.Text, waits.count())
	}
}

// TestLoginRedirectStaysOnThisSite: after signing in, next is followed only
// when the browser would read it as a path of this site.
func TestLoginRedirectStaysOnThisSite(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleOwner)
	tests := []struct{ next, want string }{
		{"/audit?action=staff.create", "/audit?action=staff.create"},
		{"/\t/evil.com", "/"},
		{"/\r\n/evil.com", "/"},
		{"//evil.com", "/"},
		{"/\\evil.com", "/"},
		{"/%2f%2fevil.com", "/"},
		{"/%5cevil.com", "/"},
		{"https://evil.com/", "/"},
		{"javascript:alert(1)", "/"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.next), func(t *testing.T) {
			resp := env.PostForm(env.Client(), "/login", url.Values{"email": {s.Email}, "password": {s.Password}, "next": {tt.next}})
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != tt.want {
				t.Fatalf("next %q: %d Location %q, want %q", tt.next, resp.StatusCode, resp.Header.Get("Location"), tt.want)
			}
			// The sign-in form does not carry a bad next either.
			doc := webtest.Doc(t, env.Get(env.Client(), "/login?next="+url.QueryEscape(tt.next)))
			if v, _ := doc.Find(`input[name="next"]`).Attr("value"); v != tt.want {
				t.Fatalf("form next %q, want %q", v, tt.want)
			}
		})
	}
}

// waitSignedOut waits until c's session no longer lets it in.
func waitSignedOut(t *testing.T, env *webtest.Env, c *http.Client) {
	t.Helper()
	webtest.WaitFor(t, "the session to be signed out", 10*time.Second, func() bool {
		resp := env.Get(c, "/account/password")
		resp.Body.Close()
		return resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), "/login")
	})
}

// TestPasswordChangeIsLimitedAndEndsOtherSessions: wrong current passwords
// are limited like sign-ins; a change signs the staff member out everywhere
// else and keeps this session under a new token.
func TestPasswordChangeIsLimitedAndEndsOtherSessions(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, s := env.SignedIn(store.RoleHRAdmin)
	other := env.Client()
	env.Login(other, s.Email, s.Password)
	bystander, _ := env.SignedIn(store.RoleHRAdmin)

	const newPassword = "a brand new passphrase"
	change := func(current string) *http.Response {
		return env.PostForm(c, "/account/password", url.Values{"current": {current}, "new": {newPassword}, "confirm": {newPassword}})
	}
	for i := range auth.MaxPasswordFailures {
		resp := change(fmt.Sprintf("wrong guess %d", i))
		if got := webtest.TestID(webtest.Doc(t, resp), "current-error"); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, "not your current password") {
			t.Fatalf("guess %d: %d %q", i, resp.StatusCode, got)
		}
	}
	// Even the right one is refused now: the limit is reached.
	resp := change(s.Password)
	if got := webtest.TestID(webtest.Doc(t, resp), "current-error"); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(got, "Too many wrong current passwords") {
		t.Fatalf("after %d wrong guesses: %d %q, want 429", auth.MaxPasswordFailures, resp.StatusCode, got)
	}
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "auth.password_change"})
	if err != nil || len(rows) != auth.MaxPasswordFailures {
		t.Fatalf("audited %d wrong guesses (%v), want %d", len(rows), err, auth.MaxPasswordFailures)
	}

	// Once the window has passed, the change goes through.
	if _, err := env.Store.Pool().Exec(context.Background(), `UPDATE login_failures SET at = at - interval '1 hour'`); err != nil {
		t.Fatal(err)
	}
	before := sessionCookie(t, env, c)
	resp = change(s.Password)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("change: %d", resp.StatusCode)
	}
	if after := sessionCookie(t, env, c); after == "" || after == before {
		t.Fatal("session token not renewed at the change")
	}
	resp = env.Get(c, "/account/password")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("this session after the change: %d", resp.StatusCode)
	}
	waitSignedOut(t, env, other)
	// Someone else's session is left alone.
	resp = env.Get(bystander, "/account/password")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another staff member's session: %d", resp.StatusCode)
	}
	env.Login(env.Client(), s.Email, newPassword)
}
