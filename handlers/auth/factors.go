package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"partneradmin/handlers/secretbox"
	"partneradmin/store"
)

// Options configure second factors and step-up.
type Options struct {
	// Box seals authenticator-app secrets at rest (the app's encryption
	// key, under a purpose of its own).
	Box *secretbox.Box
	// RequiredByDefault: against a real Partner API, owner, finance
	// approver and support must have a second factor until the owner
	// decides otherwise; with the sandbox no role must.
	RequiredByDefault bool
	// StepUpMaxAge is how long a second factor counts for value-moving
	// and card actions; older, it is asked again. 0: DefaultStepUpMaxAge.
	StepUpMaxAge time.Duration
	// OIDC: sign-in with the company's identity provider (oidc.go).
	OIDC OIDCOptions
}

// DefaultStepUpMaxAge is how long a second factor counts for step-up when
// the configuration does not say.
const DefaultStepUpMaxAge = 15 * time.Minute

// FactorStore is what second factors and sessions need from the store.
type FactorStore interface {
	RoleSecondFactor(ctx context.Context, role store.Role) (required, decided bool, err error)
	SecondFactorPolicy(ctx context.Context) (map[store.Role]bool, error)
	SetSecondFactorPolicy(ctx context.Context, required, before map[store.Role]bool, by store.Actor) error
	Passkeys(ctx context.Context, staffID int64) ([]store.Passkey, error)
	AddPasskey(ctx context.Context, staffID int64, credentialID, credential []byte, name string, by store.Actor) error
	PasskeyUsed(ctx context.Context, staffID int64, credentialID, credential []byte) error
	RemovePasskey(ctx context.Context, staffID, id int64, by store.Actor) error
	StaffTOTP(ctx context.Context, staffID int64) (store.TOTP, error)
	SetTOTP(ctx context.Context, staffID int64, sealed []byte, step int64, by store.Actor) error
	UseTOTPStep(ctx context.Context, staffID, step int64) (bool, error)
	ReplaceRecoveryCodes(ctx context.Context, staffID int64, hashes [][]byte, by store.Actor) error
	UseRecoveryCode(ctx context.Context, staffID int64, hash []byte, by store.Actor) (bool, int, error)
	RecoveryCodesLeft(ctx context.Context, staffID int64) (int, error)
	ResetSecondFactor(ctx context.Context, staffID int64, by store.Actor) error
	StaffSessions(ctx context.Context, staffID int64) ([]store.StaffSession, error)
	EndStaffSession(ctx context.Context, staffID int64, key string, by store.Actor) error
	EndStaffSessions(ctx context.Context, staffID int64, keep string, by store.Actor) (int64, error)
	Audit(ctx context.Context, e store.AuditEntry) error
}

// Session keys of second factors.
const (
	// SessionSecondFactorAt is when this session last proved a second
	// factor (Unix seconds); absent when it never did.
	SessionSecondFactorAt = "second_factor_at"
	// The sign-in between the password and the second factor.
	sessPendingStaff = "pending_staff_id"
	sessPendingAt    = "pending_at"
	sessPendingNext  = "pending_next"
	// The WebAuthn ceremony under way (webauthn.SessionData as JSON).
	sessWebAuthnReg   = "webauthn_registration"
	sessWebAuthnLogin = "webauthn_login"
	// An authenticator-app secret being set up, sealed, base64.
	sessTOTPPending = "totp_pending"
)

// pendingTTL is how long the second step of a sign-in may take.
const pendingTTL = 5 * time.Minute

// Limits on wrong codes: per staff member, in the sign-in limits' window.
const (
	MaxFactorFailures = 5
	keyFactor         = "second-factor:"
)

// recoveryCodeCount is how many recovery codes a staff member gets at once.
const recoveryCodeCount = 10

// totpOpts are the authenticator-app parameters every app understands.
var totpOpts = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPSealPurpose binds sealed authenticator-app secrets to their column:
// the box that seals them is secretbox.NewPurpose(key, TOTPSealPurpose).
const TOTPSealPurpose = "partneradmin staff totp secret v1"

type factors struct {
	opts Options
	// webauthn is nil when the public origin is an IP address.
	webauthn *webauthn.WebAuthn
	issuer   string
}

func newFactors(publicOrigin string, opts Options) (factors, error) {
	if opts.StepUpMaxAge <= 0 {
		opts.StepUpMaxAge = DefaultStepUpMaxAge
	}
	u, err := url.Parse(publicOrigin)
	if err != nil || u.Hostname() == "" {
		return factors{}, fmt.Errorf("auth: public origin %q: not an origin", publicOrigin)
	}
	// The issuer of a key URI may not hold a colon (it separates the
	// issuer from the account in the label), so a port is said in words.
	host := u.Hostname()
	if p := u.Port(); p != "" {
		host += " port " + p
	}
	f := factors{opts: opts, issuer: "Partner Admin (" + host + ")"}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		// WebAuthn binds passkeys to a domain name: an app reached by
		// address offers authenticator apps and recovery codes only.
		return f, nil
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          u.Hostname(),
		RPDisplayName: "Partner Admin",
		RPOrigins:     []string{publicOrigin},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
			UserVerification: protocol.VerificationPreferred,
		},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: 5 * time.Minute, TimeoutUVD: 5 * time.Minute},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: 5 * time.Minute, TimeoutUVD: 5 * time.Minute},
		},
	})
	if err != nil {
		return factors{}, fmt.Errorf("auth: webauthn: %w", err)
	}
	f.webauthn = wa
	return f, nil
}

// defaultRequired is whether a role must have a second factor when the
// owner never decided.
func (f factors) defaultRequired(r store.Role) bool {
	if !f.opts.RequiredByDefault {
		return false
	}
	return r == store.RoleOwner || r == store.RoleFinanceApprover || r == store.RoleSupport
}

// factorRequired reports whether the role must have a second factor now.
func (h *Handler) factorRequired(ctx context.Context, r store.Role) (bool, error) {
	req, decided, err := h.Store.RoleSecondFactor(ctx, r)
	if err != nil || decided {
		return req, err
	}
	return h.factors.defaultRequired(r), nil
}

// policy is the rule of every role now, defaults included.
func (h *Handler) policy(ctx context.Context) (map[store.Role]bool, error) {
	decided, err := h.Store.SecondFactorPolicy(ctx)
	if err != nil {
		return nil, err
	}
	out := map[store.Role]bool{}
	for _, r := range store.Roles() {
		if req, ok := decided[r]; ok {
			out[r] = req
		} else {
			out[r] = h.factors.defaultRequired(r)
		}
	}
	return out, nil
}

// waUser is a staff member as WebAuthn sees them. The user handle is the
// staff id (8 bytes): no name or email is in it.
type waUser struct {
	staff store.Staff
	creds []webauthn.Credential
}

func (u waUser) WebAuthnID() []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(u.staff.ID))
	return b
}
func (u waUser) WebAuthnName() string { return u.staff.Email }
func (u waUser) WebAuthnDisplayName() string {
	if u.staff.Name != "" {
		return u.staff.Name
	}
	return u.staff.Email
}
func (u waUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// webauthnUser loads the staff member's passkeys.
func (h *Handler) webauthnUser(ctx context.Context, s store.Staff) (waUser, []store.Passkey, error) {
	keys, err := h.Store.Passkeys(ctx, s.ID)
	if err != nil {
		return waUser{}, nil, err
	}
	u := waUser{staff: s}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return waUser{}, nil, fmt.Errorf("auth: passkey %d: %w", k.ID, err)
		}
		u.creds = append(u.creds, c)
	}
	return u, keys, nil
}

// writeJSON answers a WebAuthn ceremony's options.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// jsonError answers a ceremony that cannot start, in words the page shows.
func jsonError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// beginPasskeyLogin starts an assertion for the staff member's passkeys and
// keeps the ceremony in the session.
func (h *Handler) beginPasskeyLogin(w http.ResponseWriter, r *http.Request, s store.Staff) {
	ctx := r.Context()
	if h.factors.webauthn == nil {
		jsonError(w, http.StatusNotFound, msgNoPasskeys)
		return
	}
	u, _, err := h.webauthnUser(ctx, s)
	if err != nil {
		h.Logger.ErrorContext(ctx, "load passkeys", "err", err)
		jsonError(w, http.StatusInternalServerError, "Your passkeys could not be loaded. Try again.")
		return
	}
	if len(u.creds) == 0 {
		jsonError(w, http.StatusUnprocessableEntity, "You have no passkey. Use your authenticator app or a recovery code.")
		return
	}
	assertion, sd, err := h.factors.webauthn.BeginLogin(u)
	if err != nil {
		h.Logger.ErrorContext(ctx, "begin passkey login", "err", err)
		jsonError(w, http.StatusInternalServerError, "The passkey check could not start. Try again.")
		return
	}
	b, err := json.Marshal(sd)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "The passkey check could not start. Try again.")
		return
	}
	h.Sessions.Put(ctx, sessWebAuthnLogin, string(b))
	writeJSON(w, http.StatusOK, assertion)
}

// Messages of a second factor that does not check out.
const (
	msgWrongCode     = "That code is not right, or was used already. Type the current code from your authenticator app."
	msgWrongRecovery = "That recovery code is not right, or was used already."
	msgPasskeyFailed = "The passkey was not accepted. Try again, or use your authenticator app or a recovery code."
	msgNoPasskeys    = "Passkeys work only when the app is reached by a domain name, not an address."
	msgNoFactorGiven = "Use your passkey, or type a code from your authenticator app or a recovery code."
)

// checkFactor checks the second factor the form carries (a passkey
// assertion, an authenticator-app code or a recovery code) for the staff
// member, within the limit of wrong tries. It returns how it was proved,
// or a message for the person (field "code", "recovery_code" or "").
// signIn: the check finishes a sign-in, whose audit row is written with
// the attempt's success.
func (h *Handler) checkFactor(w http.ResponseWriter, r *http.Request, s store.Staff, signIn bool) (method, field, msg string, err error) {
	ctx := r.Context()
	credential := r.PostFormValue("credential")
	code := strings.ReplaceAll(strings.TrimSpace(r.PostFormValue("code")), " ", "")
	recovery := normalizeRecoveryCode(r.PostFormValue("recovery_code"))
	switch {
	case credential == "" && code == "" && recovery == "":
		return "", "code", msgNoFactorGiven, nil
	case credential == "" && code != "" && (len(code) != 6 || strings.Trim(code, "0123456789") != ""):
		return "", "code", "A code from an authenticator app has 6 digits.", nil
	case credential == "" && code == "" && len(recovery) != 16:
		return "", "recovery_code", "A recovery code has 16 letters and digits, such as abcd-efgh-ijkl-mnop.", nil
	}
	key := keyFactor + strconv.FormatInt(s.ID, 10)
	attempt, err := h.Store.BeginLoginAttempt(ctx, Window, store.LoginLimit{Key: key, Max: MaxFactorFailures})
	if err != nil {
		return "", "", "", err
	}
	if attempt.Limited != "" {
		return "", "code", fmt.Sprintf("Too many wrong codes. Wait %d minutes and try again, or ask an owner to reset your second factor.", int(Window.Minutes())), nil
	}
	failed := func(field, msg, detail string) (string, string, string, error) {
		e := store.AuditEntry{Actor: s.Actor(), Action: "auth.second_factor", Target: fmt.Sprintf("staff:%d", s.ID),
			Outcome: store.OutcomeFailed, Detail: detail}
		if err := h.Store.FinishLoginAttempt(ctx, attempt, store.LoginFailed, e); err != nil {
			return "", "", "", err
		}
		return "", field, msg, nil
	}
	switch {
	case credential != "":
		ok, err := h.finishPasskeyLogin(r, s, credential)
		if err != nil {
			return "", "", "", err
		}
		if !ok {
			return failed("", msgPasskeyFailed, "passkey not accepted")
		}
		method = "passkey"
	case code != "":
		ok, err := h.checkTOTP(ctx, s, code)
		if err != nil {
			return "", "", "", err
		}
		if !ok {
			return failed("code", msgWrongCode, "wrong or reused authenticator code")
		}
		method = "authenticator app"
	default:
		ok, left, err := h.Store.UseRecoveryCode(ctx, s.ID, hashRecoveryCode(recovery), s.Actor())
		if err != nil {
			return "", "", "", err
		}
		if !ok {
			return failed("recovery_code", msgWrongRecovery, "wrong or used recovery code")
		}
		method = "recovery code"
		if left <= 2 {
			h.Flash(r, "info", fmt.Sprintf("You have %d recovery codes left: make new ones under Security.", left))
		}
	}
	var e store.AuditEntry
	if signIn {
		e = store.AuditEntry{Actor: s.Actor(), Action: "auth.login", Target: fmt.Sprintf("staff:%d", s.ID),
			Outcome: store.OutcomeOK, Detail: "second factor: " + method}
	}
	if err := h.Store.FinishLoginAttempt(ctx, attempt, store.LoginSucceeded, e, key); err != nil {
		return "", "", "", err
	}
	return method, "", "", nil
}

// finishPasskeyLogin checks a passkey assertion against the ceremony this
// session started; false when it does not check out.
func (h *Handler) finishPasskeyLogin(r *http.Request, s store.Staff, credential string) (bool, error) {
	ctx := r.Context()
	raw := h.Sessions.PopString(ctx, sessWebAuthnLogin)
	if raw == "" || h.factors.webauthn == nil {
		return false, nil
	}
	var sd webauthn.SessionData
	if err := json.Unmarshal([]byte(raw), &sd); err != nil {
		return false, nil
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes([]byte(credential))
	if err != nil {
		return false, nil
	}
	u, _, err := h.webauthnUser(ctx, s)
	if err != nil {
		return false, err
	}
	cred, err := h.factors.webauthn.ValidateLogin(u, sd, parsed)
	if err != nil {
		return false, nil
	}
	if cred.Authenticator.CloneWarning {
		h.Logger.WarnContext(ctx, "passkey sign count went backwards: possibly cloned", "staff_id", s.ID)
		return false, nil
	}
	b, err := json.Marshal(cred)
	if err != nil {
		return false, fmt.Errorf("auth: encode passkey: %w", err)
	}
	return true, h.Store.PasskeyUsed(ctx, s.ID, cred.ID, b)
}

// totpStep is the 30-second step whose code code is, within one step either
// way of now; false when it is none of them.
func totpStep(secret, code string, now time.Time) (int64, bool) {
	for _, d := range []int64{0, -1, 1} {
		t := now.Add(time.Duration(d) * 30 * time.Second)
		want, err := totp.GenerateCodeCustom(secret, t, totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return t.Unix() / 30, true
		}
	}
	return 0, false
}

// checkTOTP checks an authenticator-app code and spends its step.
func (h *Handler) checkTOTP(ctx context.Context, s store.Staff, code string) (bool, error) {
	t, err := h.Store.StaffTOTP(ctx, s.ID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	secret, err := h.openTOTP(t.Sealed)
	if err != nil {
		return false, err
	}
	step, ok := totpStep(secret, code, h.Now())
	if !ok || step <= t.LastStep {
		return false, nil
	}
	return h.Store.UseTOTPStep(ctx, s.ID, step)
}

func (h *Handler) sealTOTP(secret string) ([]byte, error) {
	if h.factors.opts.Box == nil {
		return nil, errors.New("auth: no key to seal authenticator secrets with")
	}
	return h.factors.opts.Box.Seal(secret)
}

func (h *Handler) openTOTP(sealed []byte) (string, error) {
	if h.factors.opts.Box == nil {
		return "", errors.New("auth: no key to open authenticator secrets with")
	}
	return h.factors.opts.Box.Open(sealed)
}

// newRecoveryCodes returns fresh recovery codes as shown (abcd-efgh-ijkl-mnop,
// 80 random bits each) and their stored hashes.
func newRecoveryCodes() ([]string, [][]byte) {
	enc := base32.StdEncoding.WithPadding(base32.NoPadding)
	codes := make([]string, recoveryCodeCount)
	hashes := make([][]byte, recoveryCodeCount)
	for i := range codes {
		b := make([]byte, 10)
		_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
		c := strings.ToLower(enc.EncodeToString(b))
		codes[i] = c[0:4] + "-" + c[4:8] + "-" + c[8:12] + "-" + c[12:16]
		hashes[i] = hashRecoveryCode(c)
	}
	return codes, hashes
}

// normalizeRecoveryCode drops dashes and spaces and lowercases.
func normalizeRecoveryCode(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("-", "", " ", "").Replace(s)
}

// hashRecoveryCode is the stored form of a normalized recovery code: the
// code has 80 random bits, so a plain SHA-256 cannot be reversed by guessing.
func hashRecoveryCode(normalized string) []byte {
	sum := sha256.Sum256([]byte("recovery:" + normalized))
	return sum[:]
}

// sealedToSession and sealedFromSession carry a sealed value in the session.
func sealedToSession(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func sealedFromSession(s string) ([]byte, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	return b, err == nil && len(b) > 0
}
