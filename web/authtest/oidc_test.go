package authtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"partneradmin/handlers/auth"
	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

// testIdP is a small OpenID provider: discovery, JWKS, an authorization
// endpoint that signs in whoever the test says, and a token endpoint that
// checks the PKCE verifier and signs an ID token the test may tamper with.
type testIdP struct {
	t        *testing.T
	srv      *httptest.Server
	key      *rsa.PrivateKey
	clientID string
	secret   string

	mu sync.Mutex
	// Who signs in next, and how the ID token is changed before signing.
	email    string
	verified bool
	amr      []string
	tamper   func(claims map[string]any)
	codes    map[string]idpGrant
	// UserInfo answers by access token; userinfoSub, when set, is the sub
	// it gives instead of the ID token's.
	userinfo    map[string]map[string]any
	userinfoSub string
	// What the last requests carried.
	challengeMethod string
	verifierMatched bool
	tokenRequests   int
}

type idpGrant struct {
	challenge, method, nonce, redirectURI string
}

func newTestIdP(t *testing.T) *testIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testIdP{t: t, key: key, clientID: "partner-admin", secret: "idp-client-secret", codes: map[string]idpGrant{}, userinfo: map[string]map[string]any{}, verified: true}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize", "token_endpoint": p.srv.URL + "/token",
			"jwks_uri": p.srv.URL + "/jwks", "userinfo_endpoint": p.srv.URL + "/userinfo", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userInfo)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (p *testIdP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != p.clientID || q.Get("response_type") != "code" || !strings.Contains(q.Get("scope"), "openid") {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	p.mu.Lock()
	p.codes[code] = idpGrant{challenge: q.Get("code_challenge"), method: q.Get("code_challenge_method"), nonce: q.Get("nonce"), redirectURI: q.Get("redirect_uri")}
	p.challengeMethod = q.Get("code_challenge_method")
	p.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *testIdP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.clientID || secret != p.secret {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]string{"error": "invalid_client"})
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokenRequests++
	g, found := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	p.verifierMatched = found && g.method == "S256" && base64.RawURLEncoding.EncodeToString(sum[:]) == g.challenge
	if !p.verifierMatched || r.PostForm.Get("redirect_uri") != g.redirectURI {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": "invalid_grant"})
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": p.srv.URL, "sub": "sub-" + p.email, "aud": p.clientID, "iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "nonce": g.nonce, "email": p.email, "email_verified": p.verified, "name": "Idp Person"}
	if p.amr != nil {
		claims["amr"] = p.amr
	}
	at := "at-" + rand.Text()
	info := map[string]any{"sub": claims["sub"], "email": p.email, "email_verified": p.verified, "name": "Idp Person"}
	if p.userinfoSub != "" {
		info["sub"] = p.userinfoSub
	}
	p.userinfo[at] = info
	if p.tamper != nil {
		p.tamper(claims)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("JWT"))
	if err != nil {
		p.t.Error(err)
		return
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		p.t.Error(err)
		return
	}
	raw, _ := jws.CompactSerialize()
	writeJSON(w, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 300, "id_token": raw})
}

// userInfo answers the UserInfo endpoint for an access token it issued.
func (p *testIdP) userInfo(w http.ResponseWriter, r *http.Request) {
	at, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	info, found := p.userinfo[at]
	p.mu.Unlock()
	if !ok || !found {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]string{"error": "invalid_token"})
		return
	}
	writeJSON(w, info)
}

// withoutEmail leaves the email claims out of the ID token: the provider
// gives them in UserInfo only (OIDC Core 5.4 allows it).
func withoutEmail(c map[string]any) {
	delete(c, "email")
	delete(c, "email_verified")
}

// next sets who signs in next and how the token is changed.
func (p *testIdP) next(email string, verified bool, amr []string, tamper func(map[string]any)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.email, p.verified, p.amr, p.tamper = email, verified, amr, tamper
}

func (p *testIdP) pkce() (method string, matched bool, requests int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.challengeMethod, p.verifierMatched, p.tokenRequests
}

func newOIDCEnv(t *testing.T, p *testIdP, now func() time.Time) *webtest.Env {
	return webtest.New(t, webtest.Options{SkipDemoImport: true, Now: now, OIDCIssuer: p.srv.URL, OIDCClientID: p.clientID,
		OIDCClientSecret: p.secret, OIDCProviderName: "Acme ID"})
}

// ssoStart follows "Sign in with" to the provider, which signs in at once
// and sends the browser back: the callback URL is returned, not yet
// visited.
func ssoStart(t *testing.T, env *webtest.Env, c *http.Client) *url.URL {
	t.Helper()
	resp := env.Get(c, "/login/oidc")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	resp, err := c.Get(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("provider: %d", resp.StatusCode)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// ssoCallback visits the callback as the browser coming from the provider.
func ssoCallback(t *testing.T, env *webtest.Env, c *http.Client, back *url.URL) *http.Response {
	t.Helper()
	return env.Do(c, http.MethodGet, back.RequestURI(), nil, http.Header{"Sec-Fetch-Site": {"cross-site"}})
}

// ssoSignIn runs the whole flow.
func ssoSignIn(t *testing.T, env *webtest.Env, c *http.Client) *http.Response {
	t.Helper()
	return ssoCallback(t, env, c, ssoStart(t, env, c))
}

// signedIn reports whether c has a staff session.
func signedIn(t *testing.T, env *webtest.Env, c *http.Client) bool {
	t.Helper()
	resp := env.Get(c, "/account/password")
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// refused asserts a refused sign-in: the status, the words, no session.
func refused(t *testing.T, env *webtest.Env, c *http.Client, resp *http.Response, status int, words string) {
	t.Helper()
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d (%s)", resp.StatusCode, status, webtest.TestID(doc, "login-error"))
	}
	if msg := webtest.TestID(doc, "login-error"); !strings.Contains(msg, words) {
		t.Fatalf("message %q, want %q", msg, words)
	}
	if signedIn(t, env, c) {
		t.Fatal("a refused sign-in left a session")
	}
}

func ssoAuditCount(t *testing.T, env *webtest.Env, action, outcome, detailLike string) int {
	t.Helper()
	var n int
	err := env.Store.Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM audit_log WHERE action = $1 AND outcome = $2 AND detail LIKE $3`, action, outcome, detailLike).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The full authorization code flow with PKCE, state and nonce signs in a
// staff member by verified email; a wrong state, and ID tokens from
// another issuer, for another audience, with another nonce or expired are
// refused with a clear message and no session; an unknown address is
// refused when invitation only; a disabled account is refused; an
// unverified email is refused.
func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	p := newTestIdP(t)
	env := newOIDCEnv(t, p, nil)
	s := env.CreateStaff(store.RoleHRAdmin)

	t.Run("login page offers the provider", func(t *testing.T) {
		doc := webtest.Doc(t, env.Get(env.Client(), "/login"))
		if got := webtest.TestID(doc, "login-sso"); got != "Sign in with Acme ID" {
			t.Fatalf("button %q", got)
		}
		if doc.Find(`[data-testid="login-password-off"]`).Length() != 0 {
			t.Fatal("password sign-in said off")
		}
	})

	t.Run("full flow with PKCE", func(t *testing.T) {
		p.next(strings.ToUpper(s.Email), true, nil, nil)
		c := env.Client()
		back := ssoStart(t, env, c)
		if method, _, _ := p.pkce(); method != "S256" {
			t.Fatalf("code_challenge_method %q", method)
		}
		resp := ssoCallback(t, env, c, back)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("callback: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, matched, _ := p.pkce(); !matched {
			t.Fatal("the token request's code_verifier did not match the challenge")
		}
		if !signedIn(t, env, c) {
			t.Fatal("no session after the flow")
		}
		if n := ssoAuditCount(t, env, "auth.login_sso", "ok", "signed in with Acme ID"); n != 1 {
			t.Fatalf("%d sign-in audit rows", n)
		}
		// The callback is good once: replayed, its state is unknown.
		c2 := env.Client()
		refused(t, env, c2, ssoCallback(t, env, c2, back), http.StatusBadRequest, "did not start in this browser")
	})

	t.Run("wrong state", func(t *testing.T) {
		p.next(s.Email, true, nil, nil)
		c := env.Client()
		back := ssoStart(t, env, c)
		q := back.Query()
		q.Set("state", "forged-"+q.Get("state"))
		back.RawQuery = q.Encode()
		_, _, before := p.pkce()
		refused(t, env, c, ssoCallback(t, env, c, back), http.StatusBadRequest, "did not start in this browser")
		if _, _, after := p.pkce(); after != before {
			t.Fatal("the code was exchanged despite a wrong state")
		}
	})

	bad := []struct {
		name   string
		tamper func(map[string]any)
		words  string
	}{
		{"wrong issuer", func(c map[string]any) { c["iss"] = "https://evil.example" }, "issued by another provider"},
		{"wrong audience", func(c map[string]any) { c["aud"] = "another-app" }, "made for another application"},
		{"wrong nonce", func(c map[string]any) { c["nonce"] = "not-this-sign-in" }, "not made for this sign-in (nonce)"},
		{"expired", func(c map[string]any) {
			c["iat"] = time.Now().Add(-2 * time.Hour).Unix()
			c["exp"] = time.Now().Add(-time.Hour).Unix()
		}, "it has expired"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			p.next(s.Email, true, nil, tc.tamper)
			c := env.Client()
			refused(t, env, c, ssoSignIn(t, env, c), http.StatusUnauthorized, tc.words)
		})
	}
	if n := ssoAuditCount(t, env, "auth.login_sso", "failed", "ID token refused: %"); n != len(bad) {
		t.Fatalf("%d failed audit rows for refused tokens, want %d", n, len(bad))
	}

	t.Run("unverified email", func(t *testing.T) {
		p.next(s.Email, false, nil, nil)
		c := env.Client()
		refused(t, env, c, ssoSignIn(t, env, c), http.StatusForbidden, "has not verified your email address")
	})

	t.Run("unknown email, invitation only", func(t *testing.T) {
		p.next("stranger@partner.example", true, nil, nil)
		c := env.Client()
		refused(t, env, c, ssoSignIn(t, env, c), http.StatusForbidden, "no account for stranger@partner.example")
		if _, err := env.Store.StaffByEmail(context.Background(), "stranger@partner.example"); err == nil {
			t.Fatal("an account was created while invitation only")
		}
	})

	t.Run("disabled staff", func(t *testing.T) {
		d := env.CreateStaff(store.RoleSupport)
		if _, err := env.Store.UpdateStaffAccess(context.Background(), d.ID, d.Role, true, store.Actor{Email: "test"}); err != nil {
			t.Fatal(err)
		}
		p.next(d.Email, true, nil, nil)
		c := env.Client()
		refused(t, env, c, ssoSignIn(t, env, c), http.StatusForbidden, "is disabled")
	})
}

// postSignInSettings saves the single sign-on settings as c.
func postSignInSettings(t *testing.T, env *webtest.Env, c *http.Client, form url.Values) *http.Response {
	t.Helper()
	return env.PostForm(c, "/settings/sign-in", form)
}

// Only an owner reads and changes the single sign-on settings; creating
// accounts at first sign-in uses the chosen role; the provider's amr
// counts as the second factor only when the owner allows it; with password
// sign-in off only the break-glass owner signs in with a password.
func TestOIDCOwnerSettings(t *testing.T) {
	t.Parallel()
	p := newTestIdP(t)
	clock := newTestClock()
	env := newOIDCEnv(t, p, clock.Now)
	owner, ownerStaff := env.SignedIn(store.RoleOwner)
	other := env.CreateStaff(store.RoleOwner)
	hr, hrStaff := env.SignedIn(store.RoleHRAdmin)

	t.Run("owner only", func(t *testing.T) {
		for _, c := range []*http.Client{hr} {
			resp := env.Get(c, "/settings/sign-in")
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("GET as hr admin: %d", resp.StatusCode)
			}
			resp = postSignInSettings(t, env, c, url.Values{"jit_role": {"owner"}})
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("POST as hr admin: %d", resp.StatusCode)
			}
		}
		if st, _ := env.Store.SignInSettings(context.Background()); st.JITRole != "" {
			t.Fatalf("a refused role changed the settings: %+v", st)
		}
		doc := webtest.Doc(t, env.Get(owner, "/settings/sign-in"))
		if doc.Find(`[data-testid="sso-form"]`).Length() != 1 {
			t.Fatal("owner sees no settings form")
		}
		// Bad input changes nothing and keeps what was typed.
		resp := postSignInSettings(t, env, owner, url.Values{"jit_role": {"emperor"}, "amr": {"on"}})
		doc = webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "jit_role-error") == "" {
			t.Fatalf("bad role: %d", resp.StatusCode)
		}
		if _, ok := doc.Find(`[data-testid="sso-amr"]`).Attr("checked"); !ok {
			t.Fatal("the typed amr choice was lost")
		}
		resp = postSignInSettings(t, env, owner, url.Values{"password_off": {"on"}})
		doc = webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "break_glass-error") == "" {
			t.Fatalf("password off without a break-glass owner: %d", resp.StatusCode)
		}
		resp = postSignInSettings(t, env, owner, url.Values{"password_off": {"on"}, "break_glass": {fmt.Sprint(hrStaff.ID)}})
		doc = webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity || webtest.TestID(doc, "break_glass-error") == "" {
			t.Fatalf("an hr admin as break-glass owner: %d", resp.StatusCode)
		}
		if st, _ := env.Store.SignInSettings(context.Background()); st != (store.SignInSettings{}) {
			t.Fatalf("bad input changed the settings: %+v", st)
		}
	})

	t.Run("just-in-time creation with the chosen role", func(t *testing.T) {
		resp := postSignInSettings(t, env, owner, url.Values{"jit_role": {"support"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", resp.StatusCode)
		}
		if n := ssoAuditCount(t, env, "settings.sign_in", "ok", "%created at first sign-in as Support%"); n != 1 {
			t.Fatalf("%d settings audit rows", n)
		}
		p.next("newcomer@partner.example", true, nil, nil)
		c := env.Client()
		resp = ssoSignIn(t, env, c)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("first sign-in: %d", resp.StatusCode)
		}
		created, err := env.Store.StaffByEmail(context.Background(), "newcomer@partner.example")
		if err != nil {
			t.Fatal(err)
		}
		if created.Role != store.RoleSupport || created.Disabled {
			t.Fatalf("created %+v", created)
		}
		if !signedIn(t, env, c) {
			t.Fatal("no session after the first sign-in")
		}
	})

	t.Run("amr satisfies the second factor only when allowed", func(t *testing.T) {
		s := env.CreateStaff(store.RoleFinanceApprover)
		c := env.Client()
		env.Login(c, s.Email, s.Password)
		secret, _ := enrolTOTP(t, env, c, clock)

		// Not allowed: the provider's mfa still leads to the second step.
		p.next(s.Email, true, []string{"pwd", "mfa"}, nil)
		c = env.Client()
		resp := ssoSignIn(t, env, c)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login/second-factor" {
			t.Fatalf("mfa not allowed: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if signedIn(t, env, c) {
			t.Fatal("signed in before the second factor")
		}
		// The second step is the password path's: a current code starts
		// the session.
		clock.Add(30 * time.Second)
		resp = env.PostForm(c, "/login/second-factor", url.Values{"code": {totpCode(t, secret, clock.Now())}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !signedIn(t, env, c) {
			t.Fatalf("second step after the provider: %d", resp.StatusCode)
		}

		resp = postSignInSettings(t, env, owner, url.Values{"jit_role": {"support"}, "amr": {"on"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", resp.StatusCode)
		}
		// Allowed, but the provider only checked a password.
		p.next(s.Email, true, []string{"pwd"}, nil)
		c = env.Client()
		resp = ssoSignIn(t, env, c)
		resp.Body.Close()
		if resp.Header.Get("Location") != "/login/second-factor" {
			t.Fatalf("pwd only: to %q", resp.Header.Get("Location"))
		}
		// Allowed, and the provider used a hardware key.
		p.next(s.Email, true, []string{"hwk", "pin"}, nil)
		c = env.Client()
		resp = ssoSignIn(t, env, c)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("mfa allowed: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		// The session counts as having proved the factor: no verify step.
		resp = env.Get(c, "/")
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("dashboard after amr sign-in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	t.Run("password sign-in off but for the break-glass owner", func(t *testing.T) {
		resp := postSignInSettings(t, env, owner, url.Values{"password_off": {"on"}, "break_glass": {fmt.Sprint(ownerStaff.ID)}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", resp.StatusCode)
		}
		doc := webtest.Doc(t, env.Get(env.Client(), "/login"))
		if !strings.Contains(webtest.TestID(doc, "login-password-off"), "Password sign-in is off") {
			t.Fatal("the login form does not say password sign-in is off")
		}
		for _, s := range []webtest.Staff{other, hrStaff} {
			c := env.Client()
			resp := env.PostForm(c, "/login", url.Values{"email": {s.Email}, "password": {s.Password}})
			refused(t, env, c, resp, http.StatusUnprocessableEntity, "Password sign-in is off")
		}
		// The break-glass owner's wrong password reads the same.
		c := env.Client()
		resp = env.PostForm(c, "/login", url.Values{"email": {ownerStaff.Email}, "password": {"wrong password here"}})
		refused(t, env, c, resp, http.StatusUnprocessableEntity, "Password sign-in is off")
		env.Login(env.Client(), ownerStaff.Email, ownerStaff.Password)
		// The provider still signs the others in.
		p.next(other.Email, true, nil, nil)
		c = env.Client()
		resp = ssoSignIn(t, env, c)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !signedIn(t, env, c) {
			t.Fatalf("provider sign-in with passwords off: %d", resp.StatusCode)
		}
	})
}

// The provider's settings go together, and the client secret is never
// printed.
func TestOIDCConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OIDC_ISSUER": "https://login.example.com", "OIDC_CLIENT_ID": "partner-admin",
		"OIDC_CLIENT_SECRET": "very-secret-value"}
	cfg, err := web.ParseConfig([]string{"partner-admin"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.OIDCEnabled() || cfg.OIDCProviderName != "login.example.com" || cfg.OIDCClientSecret.Reveal() != "very-secret-value" {
		t.Fatalf("config %+v", cfg)
	}
	if strings.Contains(fmt.Sprintf("%v %+v", cfg, cfg), "very-secret-value") {
		t.Fatal("the client secret is printed")
	}
	cfg, err = web.ParseConfig([]string{"partner-admin", "--oidc-issuer", "https://id.example.org/tenant", "--oidc-provider-name", "Example ID"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.OIDCIssuer != "https://id.example.org/tenant" || cfg.OIDCProviderName != "Example ID" {
		t.Fatalf("flags: %v %+v", err, cfg)
	}
	for name, change := range map[string]func(){
		"no secret":  func() { delete(env, "OIDC_CLIENT_SECRET") },
		"plain http": func() { env["OIDC_ISSUER"] = "http://login.example.com" },
		"not a URL":  func() { env["OIDC_ISSUER"] = "login" },
	} {
		saved := map[string]string{}
		for k, v := range env {
			saved[k] = v
		}
		change()
		if _, err := web.ParseConfig([]string{"partner-admin"}, func(k string) string { return env[k] }, io.Discard); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "very-secret-value") {
			t.Errorf("%s: the error shows the secret", name)
		}
		env = saved
	}
}

// Refused provider sign-ins count against the address, as wrong passwords
// do: past SlowAddressAfter they are slowed, and a staff member at the
// same address still signs in.
func TestOIDCAddressLimit(t *testing.T) {
	t.Parallel()
	p := newTestIdP(t)
	env := newOIDCEnv(t, p, nil)
	waits := recordWaits(env)
	p.next("stranger@partner.example", true, nil, nil)
	for i := 0; i < auth.SlowAddressAfter; i++ {
		c := env.Client()
		resp := ssoSignIn(t, env, c)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("attempt %d: %d", i+1, resp.StatusCode)
		}
	}
	if waits.count() != 0 {
		t.Fatalf("%d sign-ins slowed before %d failures", waits.count(), auth.SlowAddressAfter)
	}
	s := env.CreateStaff(store.RoleSupport)
	p.next(s.Email, true, nil, nil)
	c := env.Client()
	resp := ssoSignIn(t, env, c)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !signedIn(t, env, c) || waits.count() != 1 {
		t.Fatalf("the staff member after the failures: %d, %d waits", resp.StatusCode, waits.count())
	}
}

// ssoAudit is the last sign-in audit row with the given detail.
func ssoAudit(t *testing.T, env *webtest.Env, detailLike string) (actor, target, outcome string) {
	t.Helper()
	err := env.Store.Pool().QueryRow(context.Background(), `SELECT actor_email, target, outcome FROM audit_log
		WHERE action = 'auth.login_sso' AND detail LIKE $1 ORDER BY id DESC LIMIT 1`, detailLike).Scan(&actor, &target, &outcome)
	if err != nil {
		t.Fatalf("no sign-in audit row like %q: %v", detailLike, err)
	}
	return actor, target, outcome
}

// A provider that puts the email only in UserInfo (OIDC Core 5.4) signs a
// staff member in: the app reads UserInfo when the ID token has no email,
// and uses it only when its sub is the ID token's (5.3.2).
func TestOIDCEmailFromUserInfo(t *testing.T) {
	t.Parallel()
	p := newTestIdP(t)
	env := newOIDCEnv(t, p, nil)
	s := env.CreateStaff(store.RoleHRAdmin)

	p.next(s.Email, true, nil, withoutEmail)
	c := env.Client()
	resp := ssoSignIn(t, env, c)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !signedIn(t, env, c) {
		t.Fatalf("sign-in with the email in UserInfo only: %d", resp.StatusCode)
	}
	if actor, target, _ := ssoAudit(t, env, "signed in with Acme ID"); actor != s.Email || target != fmt.Sprintf("staff:%d", s.ID) {
		t.Fatalf("audit: actor %q, target %q", actor, target)
	}

	// UserInfo about another subject is not used.
	p.next(s.Email, true, nil, withoutEmail)
	p.mu.Lock()
	p.userinfoSub = "sub-someone-else"
	p.mu.Unlock()
	c = env.Client()
	refused(t, env, c, ssoSignIn(t, env, c), http.StatusUnauthorized, "its user information was about someone else")
	if actor, _, outcome := ssoAudit(t, env, "UserInfo refused%"); actor != "oidc:"+p.srv.URL+"#sub-"+s.Email || outcome != store.OutcomeFailed {
		t.Fatalf("refused UserInfo audited as %q %q", actor, outcome)
	}
	p.mu.Lock()
	p.userinfoSub = ""
	p.mu.Unlock()

	// An unverified email from UserInfo is refused like one in the token.
	p.next(s.Email, false, nil, withoutEmail)
	c = env.Client()
	refused(t, env, c, ssoSignIn(t, env, c), http.StatusForbidden, "has not verified your email address")
}

// Every refused callback leaves an audit row, and a refused provider
// sign-in names the provider's subject as its actor, never the account
// whose email it claimed.
func TestOIDCRefusedCallbacksAreAudited(t *testing.T) {
	t.Parallel()
	p := newTestIdP(t)
	env := newOIDCEnv(t, p, nil)
	s := env.CreateStaff(store.RoleHRAdmin)
	issuer := "oidc:" + p.srv.URL

	// A forged state.
	p.next(s.Email, true, nil, nil)
	c := env.Client()
	back := ssoStart(t, env, c)
	q := back.Query()
	q.Set("state", "forged")
	back.RawQuery = q.Encode()
	refused(t, env, c, ssoCallback(t, env, c, back), http.StatusBadRequest, "did not start in this browser")
	if actor, target, outcome := ssoAudit(t, env, "state is not this browser's sign-in%"); actor != issuer || target != "identity provider" || outcome != store.OutcomeFailed {
		t.Fatalf("wrong state audited as %q %q %q", actor, target, outcome)
	}

	// No code, and the provider's own refusal.
	for _, tc := range []struct {
		name, detail, words string
		edit                func(url.Values)
		status              int
	}{
		{"no code", "no code", "sent no usable sign-in code", func(q url.Values) { q.Del("code") }, http.StatusBadRequest},
		{"provider error", "provider refused: access_denied", "did not sign you in", func(q url.Values) { q.Del("code"); q.Set("error", "access_denied") }, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := env.Client()
			back := ssoStart(t, env, c)
			q := back.Query()
			tc.edit(q)
			back.RawQuery = q.Encode()
			refused(t, env, c, ssoCallback(t, env, c, back), tc.status, tc.words)
			if actor, _, outcome := ssoAudit(t, env, tc.detail); actor != issuer || outcome != store.OutcomeFailed {
				t.Fatalf("audited as %q %q", actor, outcome)
			}
		})
	}

	// An unverified email naming a real account: the actor is the
	// provider's subject, the account is only the target.
	p.next(s.Email, false, nil, nil)
	c = env.Client()
	refused(t, env, c, ssoSignIn(t, env, c), http.StatusForbidden, "has not verified your email address")
	actor, target, _ := ssoAudit(t, env, "email not verified by the provider")
	if actor != issuer+"#sub-"+s.Email || target != "staff:"+s.Email {
		t.Fatalf("unverified email audited with actor %q, target %q", actor, target)
	}
	var named int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log
		WHERE action = 'auth.login_sso' AND outcome = 'failed' AND (actor_id IS NOT NULL OR actor_email = $1)`, s.Email).Scan(&named); err != nil || named != 0 {
		t.Fatalf("%d refused sign-ins name the claimed account as their actor (%v)", named, err)
	}

	// An unknown account.
	p.next("nobody@partner.example", true, nil, nil)
	c = env.Client()
	refused(t, env, c, ssoSignIn(t, env, c), http.StatusForbidden, "no account for nobody@partner.example")
	if actor, target, _ := ssoAudit(t, env, "no account (invitation only)"); actor != issuer+"#sub-nobody@partner.example" || target != "staff:nobody@partner.example" {
		t.Fatalf("unknown account audited with actor %q, target %q", actor, target)
	}
}
