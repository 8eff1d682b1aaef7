package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// OIDCOptions configure sign-in with the company's identity provider
// (OpenID Connect). An empty Issuer turns it off.
type OIDCOptions struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// ProviderName is shown as "Sign in with <ProviderName>".
	ProviderName string
	// RedirectURL is this app's callback (PUBLIC_ORIGIN/login/oidc/callback).
	RedirectURL string
	// HTTPClient talks to the provider (nil: one with a 15s timeout).
	HTTPClient *http.Client
}

// OIDCCallbackPath is where the provider sends the browser back.
const OIDCCallbackPath = "/login/oidc/callback"

// oidcMaxAge is how long a started sign-in may take at the provider.
const oidcMaxAge = 10 * time.Minute

// Session keys of a sign-in in progress at the provider.
const (
	sessOIDCState    = "oidc_state"
	sessOIDCNonce    = "oidc_nonce"
	sessOIDCVerifier = "oidc_verifier"
	sessOIDCNext     = "oidc_next"
	sessOIDCAt       = "oidc_at"
)

// mfaMethods are the amr values (RFC 8176) that mean the provider checked
// more than a password.
var mfaMethods = []string{"mfa", "otp", "hwk", "swk", "pop", "fpt"}

// SSOStore is what signing in with the identity provider needs from the
// store.
type SSOStore interface {
	SignInSettings(ctx context.Context) (store.SignInSettings, error)
	SetSignInSettings(ctx context.Context, s store.SignInSettings, by store.Actor) error
	CreateStaff(ctx context.Context, n store.NewStaff, by store.Actor) (store.Staff, error)
	ListStaff(ctx context.Context) ([]store.Staff, error)
}

// sso is the identity provider client: discovered at its first use (so the
// app starts while the provider is down), then kept.
type sso struct {
	opts     OIDCOptions
	client   *http.Client
	mu       sync.Mutex
	provider *oidc.Provider
}

func newSSO(o OIDCOptions) *sso {
	if o.Issuer == "" {
		return nil
	}
	c := o.HTTPClient
	if c == nil {
		c = &http.Client{Timeout: 15 * time.Second}
	}
	return &sso{opts: o, client: c}
}

// ctx carries the provider's HTTP client for go-oidc and oauth2.
func (s *sso) ctx(ctx context.Context) context.Context { return oidc.ClientContext(ctx, s.client) }

// setup returns the provider's OAuth 2 configuration and the ID token
// verifier (issuer, audience = client id, expiry, signature).
func (s *sso) setup(ctx context.Context) (*oauth2.Config, *oidc.IDTokenVerifier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider == nil {
		p, err := oidc.NewProvider(s.ctx(ctx), s.opts.Issuer)
		if err != nil {
			return nil, nil, fmt.Errorf("auth: discover identity provider: %w", err)
		}
		s.provider = p
	}
	oc := &oauth2.Config{ClientID: s.opts.ClientID, ClientSecret: s.opts.ClientSecret, Endpoint: s.provider.Endpoint(),
		RedirectURL: s.opts.RedirectURL, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
	return oc, s.provider.Verifier(&oidc.Config{ClientID: s.opts.ClientID}), nil
}

// SSOName is the identity provider's name, "" when none is configured.
func (h *Handler) SSOName() string {
	if h.sso == nil {
		return ""
	}
	return h.sso.opts.ProviderName
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// OIDCStart sends the browser to the identity provider: an authorization
// code request with PKCE (S256), a state and a nonce, all three kept in
// this browser's session.
func (h *Handler) OIDCStart(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if h.sso == nil {
		h.ErrorPage(w, r, http.StatusNotFound, "Single sign-on is off", "This app is not set up to sign in with an identity provider: sign in with your email and password.")
		return
	}
	oc, _, err := h.sso.setup(ctx)
	if err != nil {
		h.Logger.Warn("identity provider unavailable", "err", err)
		h.renderLogin(w, r, http.StatusBadGateway, views.LoginView{Error: h.SSOName() + " cannot be reached right now. Try again in a moment."})
		return
	}
	state, nonce, verifier := randomToken(), randomToken(), oauth2.GenerateVerifier()
	h.Sessions.Put(ctx, sessOIDCState, state)
	h.Sessions.Put(ctx, sessOIDCNonce, nonce)
	h.Sessions.Put(ctx, sessOIDCVerifier, verifier)
	h.Sessions.Put(ctx, sessOIDCNext, safeNext(r.URL.Query().Get("next")))
	h.Sessions.Put(ctx, sessOIDCAt, h.Now().Unix())
	http.Redirect(w, r, oc.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), http.StatusSeeOther)
}

// ssoClaims are the ID token claims the sign-in reads.
type ssoClaims struct {
	Email         string    `json:"email"`
	EmailVerified boolClaim `json:"email_verified"`
	Name          string    `json:"name"`
	AMR           []string  `json:"amr"`
}

// boolClaim reads a JSON boolean, or the string "true"/"false" some
// providers send.
type boolClaim bool

func (b *boolClaim) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch t := v.(type) {
	case bool:
		*b = boolClaim(t)
	case string:
		*b = boolClaim(t == "true")
	default:
		*b = false
	}
	return nil
}

// ssoFailure is a refused sign-in: what the person reads, and what the
// audit row says. Its actor is the provider's subject once a verified ID
// token named one (never the account its email claims: a refused sign-in
// is not that account's doing); email and staffID are what it claimed.
type ssoFailure struct {
	status  int
	message string
	detail  string
	subject string
	email   string
	staffID int64
}

// actor is who the audit row of a sign-in with the provider names before
// it is an account's: the provider's subject ("oidc:<issuer>#<sub>"), or
// the provider alone when no verified ID token named one.
func (s *sso) actor(subject string) store.Actor {
	a := "oidc:" + s.opts.Issuer
	if subject != "" {
		a += "#" + clip(subject, 255)
	}
	return store.Actor{Email: a}
}

// userInfo reads the provider's UserInfo endpoint with the access token.
func (s *sso) userInfo(ctx context.Context, tok *oauth2.Token) (*oidc.UserInfo, error) {
	s.mu.Lock()
	p := s.provider
	s.mu.Unlock()
	if p == nil {
		return nil, errors.New("auth: identity provider not discovered")
	}
	return p.UserInfo(s.ctx(ctx), oauth2.StaticTokenSource(tok))
}

// OIDCCallback finishes a sign-in at the identity provider: the state must
// be this browser's, the code is exchanged with the PKCE verifier, the ID
// token is verified (signature, issuer, audience, expiry) and its nonce
// must be this sign-in's. The verified email names the staff member.
func (h *Handler) OIDCCallback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if h.sso == nil {
		h.ErrorPage(w, r, http.StatusNotFound, "Single sign-on is off", "This app is not set up to sign in with an identity provider.")
		return
	}
	// The sign-in in progress is used once, whatever happens next.
	state := h.Sessions.PopString(ctx, sessOIDCState)
	nonce := h.Sessions.PopString(ctx, sessOIDCNonce)
	verifier := h.Sessions.PopString(ctx, sessOIDCVerifier)
	next := safeNext(h.Sessions.PopString(ctx, sessOIDCNext))
	started := h.Sessions.GetInt64(ctx, sessOIDCAt)
	h.Sessions.Remove(ctx, sessOIDCAt)
	// Every callback is an attempt from this address, audited when it is
	// refused: a forged or replayed one too.
	limits := []store.LoginLimit{{Key: keyAddress + clientAddress(r)}}
	attempt, err := h.Store.BeginLoginAttempt(ctx, Window, limits...)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	refuse := func(fail *ssoFailure) { h.refuseSSO(w, r, attempt, next, fail) }
	got := r.URL.Query().Get("state")
	if state == "" || got == "" || subtle.ConstantTimeCompare([]byte(state), []byte(got)) != 1 {
		refuse(&ssoFailure{status: http.StatusBadRequest, detail: "state is not this browser's sign-in (forged, replayed or started elsewhere)",
			message: "This sign-in did not start in this browser, or was already used. Start again with “Sign in with " + h.SSOName() + "”."})
		return
	}
	if h.Now().Sub(time.Unix(started, 0)) > oidcMaxAge {
		refuse(&ssoFailure{status: http.StatusBadRequest, detail: "sign-in took too long at the provider",
			message: "This sign-in took too long at " + h.SSOName() + ". Start again."})
		return
	}
	if err := h.slowAddress(ctx, attempt.Failures[0]); err != nil {
		_ = h.Store.FinishLoginAttempt(context.WithoutCancel(ctx), attempt, store.LoginNotChecked, store.AuditEntry{})
		h.ServerError(w, r, err)
		return
	}
	staff, amrOK, fail, err := h.ssoIdentify(ctx, r, nonce, verifier)
	if err != nil {
		_ = h.Store.FinishLoginAttempt(context.WithoutCancel(ctx), attempt, store.LoginNotChecked, store.AuditEntry{})
		h.ServerError(w, r, err)
		return
	}
	if fail != nil {
		refuse(fail)
		return
	}

	// As after a password: the session starts after the second factor,
	// unless the provider's multi-factor sign-in counts as one.
	via := "signed in with " + h.SSOName()
	done := signedIn{action: "auth.login_sso", askSecondFactor: staff.SecondFactor && !amrOK,
		secondFactorDetail: via + "; second factor asked", sessionDetail: via}
	if amrOK {
		done.secondFactorAt = h.Now().Unix()
		done.sessionDetail += "; the provider's multi-factor sign-in counts as the second factor"
	}
	h.signInAccepted(w, r, staff, attempt, next, done)
}

// refuseSSO answers a refused sign-in with the provider, and audits it.
func (h *Handler) refuseSSO(w http.ResponseWriter, r *http.Request, attempt store.LoginAttempt, next string, fail *ssoFailure) {
	entry := store.AuditEntry{Actor: h.sso.actor(fail.subject), Action: "auth.login_sso",
		Target: "identity provider", Outcome: store.OutcomeFailed, Detail: fail.detail}
	switch {
	case fail.staffID != 0:
		entry.Target = fmt.Sprintf("staff:%d", fail.staffID)
	case fail.email != "":
		entry.Target = "staff:" + fail.email
	}
	if err := h.Store.FinishLoginAttempt(context.WithoutCancel(r.Context()), attempt, store.LoginFailed, entry); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.renderLogin(w, r, fail.status, views.LoginView{Next: next, Error: fail.message})
}

// ssoIdentify exchanges the code and verifies the ID token, then finds (or,
// when the owner allows it, creates) the staff member its verified email
// names. amrOK: the provider's multi-factor sign-in counts as the second
// factor. A refusal is a non-nil failure; err is a fault of the app.
func (h *Handler) ssoIdentify(ctx context.Context, r *http.Request, nonce, verifier string) (store.Staff, bool, *ssoFailure, error) {
	tok, idt, fail := h.ssoToken(ctx, r, nonce, verifier)
	if fail != nil {
		return store.Staff{}, false, fail, nil
	}
	c, fail := h.ssoEmail(ctx, tok, idt)
	if fail != nil {
		return store.Staff{}, false, fail, nil
	}
	sub, email := idt.Subject, c.Email
	settings, err := h.Store.SignInSettings(ctx)
	if err != nil {
		return store.Staff{}, false, nil, err
	}
	staff, err := h.Store.StaffByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		// A setting saved before owners were left out of first sign-ins
		// is read as invitation only.
		if settings.JITRole == "" || !slices.Contains(jitRoles, settings.JITRole) {
			return store.Staff{}, false, &ssoFailure{status: http.StatusForbidden, subject: sub, email: email,
				message: "There is no account for " + email + " here. Ask an owner to invite you.", detail: "no account (invitation only)"}, nil
		}
		staff, err = h.createSSOStaff(ctx, email, c.Name, settings.JITRole)
	}
	if err != nil {
		return store.Staff{}, false, nil, err
	}
	if staff.Disabled {
		return store.Staff{}, false, &ssoFailure{status: http.StatusForbidden, subject: sub, email: email, staffID: staff.ID,
			message: "Your account (" + email + ") is disabled. Ask an owner to enable it.", detail: "account disabled"}, nil
	}
	amrOK := settings.AMRSecondFactor && slices.ContainsFunc(c.AMR, func(m string) bool { return slices.Contains(mfaMethods, m) })
	return staff, amrOK, nil, nil
}

// ssoToken exchanges the provider's code with the PKCE verifier and
// verifies the ID token (signature, issuer, audience, expiry) and its
// nonce.
func (h *Handler) ssoToken(ctx context.Context, r *http.Request, nonce, verifier string) (*oauth2.Token, *oidc.IDToken, *ssoFailure) {
	name := h.SSOName()
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return nil, nil, &ssoFailure{status: http.StatusUnauthorized,
			message: name + " did not sign you in (" + clip(e, 60) + "). Try again, or ask an owner.",
			detail:  "provider refused: " + clip(e, 60)}
	}
	code := q.Get("code")
	if code == "" || len(code) > 2048 {
		return nil, nil, &ssoFailure{status: http.StatusBadRequest,
			message: name + " sent no usable sign-in code. Start again.", detail: "no code"}
	}
	oc, idv, err := h.sso.setup(ctx)
	if err != nil {
		h.Logger.Warn("identity provider unavailable", "err", err)
		return nil, nil, &ssoFailure{status: http.StatusBadGateway,
			message: name + " cannot be reached right now. Try again in a moment.", detail: "provider unreachable"}
	}
	tok, err := oc.Exchange(h.sso.ctx(ctx), code, oauth2.VerifierOption(verifier))
	if err != nil {
		h.Logger.Warn("identity provider code exchange failed", "err", err)
		return nil, nil, &ssoFailure{status: http.StatusUnauthorized,
			message: name + " did not accept the sign-in code. Start again.", detail: "code exchange refused"}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, nil, &ssoFailure{status: http.StatusUnauthorized,
			message: name + " sent no ID token. Start again, or ask an owner to check the provider's settings.", detail: "no ID token"}
	}
	idt, err := idv.Verify(h.sso.ctx(ctx), raw)
	if err != nil {
		why := h.tokenProblem(raw, err)
		h.Logger.Warn("ID token refused", "reason", why, "err", err)
		return nil, nil, &ssoFailure{status: http.StatusUnauthorized,
			message: "The sign-in from " + name + " was refused: " + why + ". You are not signed in.", detail: "ID token refused: " + why}
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return nil, nil, &ssoFailure{status: http.StatusUnauthorized,
			message: "The sign-in from " + name + " was refused: its ID token was not made for this sign-in (nonce). You are not signed in.",
			detail:  "ID token refused: wrong nonce"}
	}
	return tok, idt, nil
}

// ssoEmail reads the verified token's claims, and the email from UserInfo
// when the token has none; the email (trimmed) must be there, well formed
// and verified by the provider.
func (h *Handler) ssoEmail(ctx context.Context, tok *oauth2.Token, idt *oidc.IDToken) (ssoClaims, *ssoFailure) {
	name, sub := h.SSOName(), idt.Subject
	var c ssoClaims
	if err := idt.Claims(&c); err != nil {
		return c, &ssoFailure{status: http.StatusUnauthorized, subject: sub,
			message: name + " sent an ID token this app cannot read.", detail: "ID token unreadable"}
	}
	noEmail := &ssoFailure{status: http.StatusForbidden, subject: sub,
		message: name + " did not give an email address for you. Ask an owner to check the provider's settings.", detail: "no email claim"}
	if strings.TrimSpace(c.Email) == "" {
		// spec (OIDC Core 5.4): the email claim may be returned from the
		// UserInfo endpoint only. 5.3.2: its sub must be the ID token's,
		// or its answer must not be used.
		ui, err := h.sso.userInfo(ctx, tok)
		if err != nil {
			h.Logger.Warn("identity provider userinfo failed", "err", err)
			noEmail.detail = "no email claim in the ID token, and UserInfo could not be read"
			return c, noEmail
		}
		if ui.Subject != sub {
			return c, &ssoFailure{status: http.StatusUnauthorized, subject: sub,
				message: "The sign-in from " + name + " was refused: its user information was about someone else. You are not signed in.",
				detail:  "UserInfo refused: its sub is not the ID token's"}
		}
		c.Email, c.EmailVerified = ui.Email, boolClaim(ui.EmailVerified)
		if c.Name == "" {
			var more ssoClaims
			if err := ui.Claims(&more); err == nil {
				c.Name = more.Name
			}
		}
		noEmail.detail = "no email claim in the ID token or UserInfo"
	}
	c.Email = strings.TrimSpace(c.Email)
	if c.Email == "" || len(c.Email) > maxEmailLength || !utf8.ValidString(c.Email) || !strings.Contains(c.Email, "@") {
		return c, noEmail
	}
	if !c.EmailVerified {
		return c, &ssoFailure{status: http.StatusForbidden, subject: sub, email: c.Email,
			message: name + " has not verified your email address " + c.Email + ", so it cannot name your account here.",
			detail:  "email not verified by the provider"}
	}
	return c, nil
}

// createSSOStaff creates the account of a verified address at its first
// sign-in, with the owner's chosen role. It has no usable password (a
// random one, never shown): it signs in through the provider, or an owner
// sends it a set-password link.
func (h *Handler) createSSOStaff(ctx context.Context, email, name string, role store.Role) (store.Staff, error) {
	name = strings.TrimSpace(strings.ToValidUTF8(name, ""))
	if name == "" || utf8.RuneCountInString(name) > 100 {
		name, _, _ = strings.Cut(email, "@")
	}
	hash, err := handlers.HashPassword(handlers.GeneratePassword())
	if err != nil {
		return store.Staff{}, err
	}
	s, err := h.Store.CreateStaff(ctx, store.NewStaff{Email: email, Name: name, PasswordHash: hash, Role: role},
		store.Actor{Email: email + " (first sign-in with " + h.SSOName() + ")"})
	if errors.Is(err, store.ErrConflict) {
		// Created meanwhile by a sign-in at the same time.
		return h.Store.StaffByEmail(ctx, email)
	}
	return s, err
}

// tokenProblem says in words why go-oidc refused an ID token. go-oidc
// decided; the unverified claims only explain which check failed.
func (h *Handler) tokenProblem(raw string, verr error) string {
	var expired *oidc.TokenExpiredError
	if errors.As(verr, &expired) {
		return "it has expired"
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512, jose.EdDSA})
	if err != nil {
		return "it is not a well-formed signed token"
	}
	var c jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		return "it is not a well-formed signed token"
	}
	switch {
	case c.Issuer != h.sso.opts.Issuer:
		return "it was issued by another provider (" + clip(c.Issuer, 80) + ")"
	case !c.Audience.Contains(h.sso.opts.ClientID):
		return "it was made for another application (audience)"
	case c.Expiry != nil && c.Expiry.Time().Before(h.Now()):
		return "it has expired"
	}
	return "its signature could not be verified"
}

// clip bounds a provider-sent string shown or logged, keeping valid UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	for utf8.RuneCountInString(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
