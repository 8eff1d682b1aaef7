package authtest

import (
	"bytes"
	"context"
	"fmt"
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

func sessionCookie(t *testing.T, env *webtest.Env, c *http.Client) string {
	t.Helper()
	u, _ := url.Parse(env.Server.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "partner_admin_session" {
			return ck.Value
		}
	}
	return ""
}

func TestLoginSuccessRenewsTokenAndShowsDashboard(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleSupport)
	c := env.Client()

	// An anonymous visit to a protected page remembers where to return.
	resp := env.Get(c, "/audit")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2Faudit" {
		t.Fatalf("anonymous /audit: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Put a flash in the session so an anonymous session token exists.
	resp = env.Get(c, "/login")
	resp.Body.Close()
	resp = env.PostForm(c, "/login", url.Values{"email": {s.Email}, "password": {"wrong password!"}})
	resp.Body.Close()
	before := sessionCookie(t, env, c)

	resp = env.PostForm(c, "/login", url.Values{"email": {strings.ToUpper(s.Email)}, "password": {s.Password}, "next": {"/"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	after := sessionCookie(t, env, c)
	if after == "" || after == before {
		t.Fatalf("session token not renewed at login: before %q after %q", before, after)
	}
	doc := webtest.Doc(t, env.Get(c, "/"))
	if got := webtest.TestID(doc, "dashboard-title"); !strings.Contains(got, s.Name) {
		t.Fatalf("dashboard title %q", got)
	}
	if got := webtest.TestID(doc, "viewer"); got != s.Name {
		t.Fatalf("viewer %q", got)
	}

	// Logging out renews the token again and ends access.
	resp = env.PostForm(c, "/logout", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	if out := sessionCookie(t, env, c); out == after {
		t.Fatal("session token not renewed at logout")
	}
	resp = env.Get(c, "/")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after logout /: %d", resp.StatusCode)
	}
}

func TestLoginFailures(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleOwner)
	disabled := env.CreateStaff(store.RoleSupport)
	if _, err := env.Store.UpdateStaffAccess(context.Background(), disabled.ID, disabled.Role, true, store.Actor{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, email, password string
		status                int
		testid, want          string
	}{
		{"empty fields", "", "", http.StatusUnprocessableEntity, "email-error", "Enter your work email."},
		{"wrong password", s.Email, "not the password", http.StatusUnprocessableEntity, "login-error", "do not match"},
		{"unknown account", "nobody@partner.example", "whatever123456", http.StatusUnprocessableEntity, "login-error", "do not match"},
		{"disabled account", disabled.Email, disabled.Password, http.StatusUnprocessableEntity, "login-error", "This account is disabled"},
		{"disabled account, wrong password", disabled.Email, "not the password", http.StatusUnprocessableEntity, "login-error", "do not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := env.Client()
			resp := env.PostForm(c, "/login", url.Values{"email": {tt.email}, "password": {tt.password}})
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			doc := webtest.Doc(t, resp)
			if got := webtest.TestID(doc, tt.testid); !strings.Contains(got, tt.want) {
				t.Fatalf("%s = %q, want %q", tt.testid, got, tt.want)
			}
			// What the user typed is kept.
			if v, _ := doc.Find("#email").Attr("value"); v != tt.email {
				t.Fatalf("email field lost: %q", v)
			}
		})
	}
}

func TestLoginRateLimitPerAccount(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleOwner)
	c := env.Client()
	for i := 0; i < auth.MaxAccountFailures; i++ {
		resp := env.PostForm(c, "/login", url.Values{"email": {s.Email}, "password": {"wrong password"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("attempt %d: %d", i, resp.StatusCode)
		}
	}
	// Even the right password is refused now, with a clear message.
	resp := env.PostForm(c, "/login", url.Values{"email": {s.Email}, "password": {s.Password}})
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("after %d failures: %d, want 429", auth.MaxAccountFailures, resp.StatusCode)
	}
	if got := webtest.TestID(webtest.Doc(t, resp), "login-error"); !strings.Contains(got, "Too many failed sign-ins for this account") {
		t.Fatalf("message %q", got)
	}
	// Another account from the same address is not locked out.
	other := env.CreateStaff(store.RoleSupport)
	env.Login(env.Client(), other.Email, other.Password)
	// A locked account stays locked from every address.
	elsewhere := clientFrom(t, env, "127.0.0.9")
	a, err := webtest.PostLogin(env, elsewhere, url.Values{"email": {s.Email}, "password": {s.Password}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusTooManyRequests || !strings.Contains(a.Text, "Too many failed sign-ins for this account") {
		t.Fatalf("the locked account from another address: %d %q, want 429", a.Status, a.Text)
	}
}

// One machine guessing from an address that many people share (an office
// behind one NAT address) slows sign-ins from there but locks nobody out:
// after 300 wrong passwords for made-up accounts, a staff member at the
// same address signs in with the right password, after a wait no longer
// than MaxAddressDelay. The first guesses go through the sign-in form (the
// slowing starts past SlowAddressAfter and grows); the rest are recorded
// as the form records them, since 300 argon2 checks under the race
// detector take minutes.
func TestGuessingFromOneAddressSlowsButDoesNotLockOutOthers(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	waits := recordWaits(env)
	c := env.Client()
	const guesses, throughForm = 300, auth.SlowAddressAfter + 2
	for i := range throughForm {
		resp := env.PostForm(c, "/login", url.Values{"email": {fmt.Sprintf("guess%d@partner.example", i)}, "password": {"wrong password"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("guess %d: %d, want 422", i, resp.StatusCode)
		}
	}
	if waits.count() != throughForm-auth.SlowAddressAfter || waits.last() <= waits.first() {
		t.Fatalf("waits %v: want the guesses past the first %d slowed, more each time", waits.all(), auth.SlowAddressAfter)
	}
	// The client's address as the limits count it (webtest's client
	// connects from 127.0.0.1), one failure per made-up account.
	for i := throughForm; i < guesses; i++ {
		a, err := env.Store.BeginLoginAttempt(ctx, auth.Window, store.LoginLimit{Key: fmt.Sprintf("account:guess%d@partner.example", i), Max: auth.MaxAccountFailures},
			store.LoginLimit{Key: "addr:127.0.0.1"})
		if err != nil || a.Limited != "" {
			t.Fatalf("guess %d: %+v %v", i, a, err)
		}
		if err := env.Store.FinishLoginAttempt(ctx, a, store.LoginFailed, store.AuditEntry{}); err != nil {
			t.Fatal(err)
		}
	}
	s := env.CreateStaff(store.RoleOwner)
	before := waits.count()
	env.Login(env.Client(), s.Email, s.Password)
	if waits.count() != before+1 || waits.last() != auth.MaxAddressDelay {
		t.Fatalf("the staff member's sign-in waited %v (%d waits), want %v", waits.last(), waits.count()-before, auth.MaxAddressDelay)
	}
	rows, err := env.Store.ListAudit(ctx, store.AuditFilter{Action: "auth.login"})
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, r := range rows {
		if r.Outcome == store.OutcomeOK && r.Target == fmt.Sprintf("staff:%d", s.ID) {
			ok++
		}
	}
	if ok != 1 {
		t.Fatalf("%d audited sign-ins of the staff member, want 1", ok)
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	s := env.CreateStaff(store.RoleOwner)
	for _, h := range []http.Header{
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"same-origin-not"}},
	} {
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		body := url.Values{"email": {s.Email}, "password": {s.Password}}.Encode()
		resp := env.Do(env.Client(), http.MethodPost, "/login", strings.NewReader(body), h)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-origin login with %v: %d, want 403", h, resp.StatusCode)
		}
	}
	// The same request from this origin works.
	env.Login(env.Client(), s.Email, s.Password)
}

func TestSecurityHeadersAndStatic(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c := env.Client()
	doc := webtest.Doc(t, env.Get(c, "/login"))
	css, _ := doc.Find(`link[rel="stylesheet"]`).Attr("href")
	if !strings.HasPrefix(css, "/static/app.css?v=") {
		t.Fatalf("stylesheet href %q", css)
	}
	if doc.Find("script:not([src])").Length() != 0 {
		t.Fatal("inline script in the layout")
	}
	resp := env.Get(c, css)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("static: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	resp = env.Get(c, "/login")
	resp.Body.Close()
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("missing %s", h)
		}
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("page Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	// Back links need the app's own address as the referrer; other
	// origins never get one.
	if p := resp.Header.Get("Referrer-Policy"); p != "same-origin" {
		t.Errorf("Referrer-Policy %q, want same-origin", p)
	}
	resp = env.Get(c, "/no/such/page")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
}

func TestDashboardShowsSandboxReachable(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(owner, "/"))
	if got := webtest.TestID(doc, "upstream-state"); !strings.HasPrefix(got, "Reachable.") {
		t.Fatalf("upstream state %q", got)
	}
	// Support sees neither the API's status nor the owner's areas.
	c, _ := env.SignedIn(store.RoleSupport)
	doc = webtest.Doc(t, env.Get(c, "/"))
	if doc.Find(`[data-testid="upstream"]`).Length() != 0 || doc.Find(`a[href="/staff"]`).Length() != 0 {
		t.Fatal("support sees owner areas")
	}
}

// TestSessionIdleTimeout: a session in use stays signed in; one unused for
// two hours is signed out with a message. Its last use is written at most
// once a minute, so ordinary requests leave the session row alone.
func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	advance := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(d)
	}
	env := webtest.New(t, webtest.Options{Now: clock})
	c, _ := env.SignedIn(store.RoleSupport)
	ctx := context.Background()
	row := func() []byte {
		var b []byte
		if err := env.Store.Pool().QueryRow(ctx, `SELECT data FROM sessions ORDER BY expiry DESC LIMIT 1`).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	get := func() *http.Response {
		resp := env.Get(c, "/")
		resp.Body.Close()
		return resp
	}
	before := row()
	if resp := get(); resp.StatusCode != http.StatusOK {
		t.Fatalf("fresh session: %d", resp.StatusCode)
	}
	if !bytes.Equal(before, row()) {
		t.Fatal("a request within the same minute rewrote the session")
	}
	// In use every 90 minutes: still signed in after three hours.
	for range 2 {
		advance(90 * time.Minute)
		if resp := get(); resp.StatusCode != http.StatusOK {
			t.Fatalf("session in use: %d", resp.StatusCode)
		}
	}
	advance(2*time.Hour + time.Minute)
	resp := get()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("idle session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	doc := webtest.Doc(t, env.Get(c, "/login"))
	if got := webtest.TestID(doc, "flash"); !strings.Contains(got, "two hours without activity") {
		t.Fatalf("flash %q", got)
	}
}
