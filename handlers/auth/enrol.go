package auth

import (
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/pquerna/otp/totp"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// maxPasskeyName bounds a passkey's name.
const maxPasskeyName = 60

// securityView is the staff member's own second factors.
func (h *Handler) securityView(r *http.Request, s store.Staff) (views.SecurityView, error) {
	ctx := r.Context()
	v := views.SecurityView{HasFactor: s.SecondFactor, Fields: views.FieldErrors{}, Script: h.Assets.WebAuthn,
		PasskeysOff: h.factors.webauthn == nil}
	var err error
	if v.Required, err = h.factorRequired(ctx, s.Role); err != nil {
		return v, err
	}
	keys, err := h.Store.Passkeys(ctx, s.ID)
	if err != nil {
		return v, err
	}
	for _, k := range keys {
		v.Passkeys = append(v.Passkeys, views.PasskeyRow{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt, LastUsed: k.LastUsedAt})
	}
	_, err = h.Store.StaffTOTP(ctx, s.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return v, err
	}
	v.TOTP = err == nil
	if v.RecoveryLeft, err = h.Store.RecoveryCodesLeft(ctx, s.ID); err != nil {
		return v, err
	}
	return v, nil
}

func (h *Handler) renderSecurity(w http.ResponseWriter, r *http.Request, status int, edit func(*views.SecurityView) error) {
	viewer := handlers.ViewerFrom(r.Context())
	// The viewer may be a moment old: read the flag that matters here.
	s, err := h.Store.StaffByID(r.Context(), viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v, err := h.securityView(r, s)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if edit != nil {
		if err := edit(&v); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	h.Render(w, r, status, "Security", views.SecurityPage(v), nil)
}

// Security shows the staff member's second factors.
func (h *Handler) Security(w http.ResponseWriter, r *http.Request) {
	h.renderSecurity(w, r, http.StatusOK, nil)
}

// TOTPStart makes a new authenticator-app secret, kept sealed in the
// session until a code from the app confirms it.
func (h *Handler) TOTPStart(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	key, err := totp.Generate(totp.GenerateOpts{Issuer: h.factors.issuer, AccountName: viewer.Staff.Email})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	sealed, err := h.sealTOTP(key.Secret())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Sessions.Put(ctx, sessTOTPPending, sealedToSession(sealed))
	qr, err := handlers.QRDataURL(key.URL(), 200)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.renderSecurity(w, r, http.StatusOK, func(v *views.SecurityView) error {
		v.TOTPSetup = &views.TOTPSetupView{QR: qr, Secret: key.Secret()}
		return nil
	})
}

// TOTPConfirm turns the authenticator app on once a code from it checks
// out.
func (h *Handler) TOTPConfirm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	sealed, ok := sealedFromSession(h.Sessions.GetString(ctx, sessTOTPPending))
	if !ok {
		h.Flash(r, "info", "Start the authenticator app setup again.")
		http.Redirect(w, r, "/account/security", http.StatusSeeOther)
		return
	}
	secret, err := h.openTOTP(sealed)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	code := strings.ReplaceAll(strings.TrimSpace(r.PostFormValue("code")), " ", "")
	step, ok := int64(0), false
	if len(code) == 6 && strings.Trim(code, "0123456789") == "" {
		step, ok = totpStep(secret, code, h.Now())
	}
	if !ok {
		u, err := totpURL(h.factors.issuer, viewer.Staff.Email, secret)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		qr, err := handlers.QRDataURL(u, 200)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderSecurity(w, r, http.StatusUnprocessableEntity, func(v *views.SecurityView) error {
			v.TOTPSetup = &views.TOTPSetupView{QR: qr, Secret: secret}
			v.Fields["code"] = "That is not the code the app shows now. Type the 6 digits it shows."
			return nil
		})
		return
	}
	if err := h.Store.SetTOTP(ctx, viewer.Staff.ID, sealed, step, viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Sessions.Remove(ctx, sessTOTPPending)
	h.enrolled(w, r, "Your authenticator app is on.")
}

// enrolled finishes an enrolment: this session has just proved the new
// factor; a staff member without recovery codes gets them, shown once.
func (h *Handler) enrolled(w http.ResponseWriter, r *http.Request, msg string) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	h.Sessions.Put(ctx, SessionSecondFactorAt, h.Now().Unix())
	left, err := h.Store.RecoveryCodesLeft(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if left > 0 {
		h.Flash(r, "ok", msg)
		http.Redirect(w, r, "/account/security", http.StatusSeeOther)
		return
	}
	h.newRecoveryCodes(w, r, msg)
}

// RecoveryCodes replaces the staff member's recovery codes and shows the
// new ones, once.
func (h *Handler) RecoveryCodes(w http.ResponseWriter, r *http.Request) {
	if !handlers.ViewerFrom(r.Context()).Staff.SecondFactor {
		http.Redirect(w, r, "/account/security", http.StatusSeeOther)
		return
	}
	h.newRecoveryCodes(w, r, "")
}

func (h *Handler) newRecoveryCodes(w http.ResponseWriter, r *http.Request, msg string) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	codes, hashes := newRecoveryCodes()
	if err := h.Store.ReplaceRecoveryCodes(ctx, viewer.Staff.ID, hashes, viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if msg != "" {
		h.Flash(r, "ok", msg)
	}
	h.renderSecurity(w, r, http.StatusOK, func(v *views.SecurityView) error {
		v.RecoveryCodes = codes
		return nil
	})
}

// PasskeyBegin starts registering a passkey (JSON for static/webauthn.js).
func (h *Handler) PasskeyBegin(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	if h.factors.webauthn == nil {
		jsonError(w, http.StatusNotFound, msgNoPasskeys)
		return
	}
	u, _, err := h.webauthnUser(ctx, viewer.Staff)
	if err != nil {
		h.Logger.ErrorContext(ctx, "load passkeys", "err", err)
		jsonError(w, http.StatusInternalServerError, "Your passkeys could not be loaded. Try again.")
		return
	}
	creation, sd, err := h.factors.webauthn.BeginRegistration(u,
		webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
	if err != nil {
		h.Logger.ErrorContext(ctx, "begin passkey registration", "err", err)
		jsonError(w, http.StatusInternalServerError, "Adding a passkey could not start. Try again.")
		return
	}
	b, err := json.Marshal(sd)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "Adding a passkey could not start. Try again.")
		return
	}
	h.Sessions.Put(ctx, sessWebAuthnReg, string(b))
	writeJSON(w, http.StatusOK, creation)
}

// PasskeyFinish checks the new passkey against the ceremony this session
// started and stores it.
func (h *Handler) PasskeyFinish(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	name := strings.TrimSpace(r.PostFormValue("name"))
	fail := func(field, msg string) {
		h.renderSecurity(w, r, http.StatusUnprocessableEntity, func(v *views.SecurityView) error {
			v.PasskeyName = name
			v.Fields[field] = msg
			return nil
		})
	}
	if name == "" {
		name = "Passkey"
	}
	if msg := handlers.CheckText(name, maxPasskeyName, false); msg != "" {
		fail("name", "The passkey's name: "+msg)
		return
	}
	raw := h.Sessions.PopString(ctx, sessWebAuthnReg)
	credential := r.PostFormValue("credential")
	var sd webauthn.SessionData
	if h.factors.webauthn == nil {
		fail("credential", msgNoPasskeys)
		return
	}
	if raw == "" || credential == "" || json.Unmarshal([]byte(raw), &sd) != nil {
		fail("credential", "Press “Add a passkey” and follow your browser's steps.")
		return
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes([]byte(credential))
	if err != nil {
		fail("credential", "The browser's answer could not be read. Try again.")
		return
	}
	u, _, err := h.webauthnUser(ctx, viewer.Staff)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cred, err := h.factors.webauthn.CreateCredential(u, sd, parsed)
	if err != nil {
		fail("credential", "The passkey was not accepted. Try again.")
		return
	}
	b, err := json.Marshal(cred)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	err = h.Store.AddPasskey(ctx, viewer.Staff.ID, cred.ID, b, name, viewer.Staff.Actor())
	if errors.Is(err, store.ErrConflict) {
		fail("credential", "This passkey is added already.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.enrolled(w, r, "Your passkey “"+name+"” is added.")
}

// PasskeyRemove removes one of the staff member's passkeys.
func (h *Handler) PasskeyRemove(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return
	}
	err = h.Store.RemovePasskey(ctx, viewer.Staff.ID, id, viewer.Staff.Actor())
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "The passkey is removed.")
	http.Redirect(w, r, "/account/security", http.StatusSeeOther)
}

// totpURL is the otpauth:// URL of a secret (base32), for the QR code.
func totpURL(issuer, account, secret string) (string, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return "", fmt.Errorf("auth: totp secret: %w", err)
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Secret: raw})
	if err != nil {
		return "", fmt.Errorf("auth: totp url: %w", err)
	}
	return key.URL(), nil
}
