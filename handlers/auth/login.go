package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const msgBadCredentials = "That email and password do not match an account."

// msgDisabled is said only to someone who gave the account's right
// password, so it tells a stranger nothing about which emails exist.
const msgDisabled = "This account is disabled, so it cannot sign in. Ask an owner of this Partner Admin to enable it again."

// maxEmailLength is the longest address mail allows; a longer one is no
// account's, and is not made into a limit key.
const maxEmailLength = 254

// LoginForm shows the sign-in form.
func (h *Handler) LoginForm(w http.ResponseWriter, r *http.Request) {
	if handlers.ViewerFrom(r.Context()) != nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.renderLogin(w, r, http.StatusOK, views.LoginView{Next: safeNext(r.URL.Query().Get("next"))})
}

// msgPasswordOff answers every refused password sign-in while password
// sign-in is off: the same words whether the account is the break-glass
// owner's with a wrong password or any other, so they do not tell which
// account is the break-glass one.
const msgPasswordOff = "Password sign-in is off: sign in with your identity provider. (Only the break-glass account signs in with a password.)"

// renderLogin shows the sign-in page, with the identity provider's button
// when one is set up and a word when password sign-in is off.
func (h *Handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, v views.LoginView) {
	v.SSOName = h.SSOName()
	if v.SSOName != "" {
		st, err := h.Store.SignInSettings(r.Context())
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.PasswordOff = st.PasswordOff
	}
	if v.Fields == nil {
		v.Fields = views.FieldErrors{}
	}
	h.Render(w, r, status, "Sign in", views.LoginPage(v), nil)
}

// Login counts the attempt against the limits, checks the credentials and
// starts a session with a fresh token.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := views.LoginView{
		Email:  strings.TrimSpace(r.PostFormValue("email")),
		Next:   safeNext(r.PostFormValue("next")),
		Fields: views.FieldErrors{},
	}
	password := r.PostFormValue("password")
	if checkLoginForm(v, password); v.Fields.Any() {
		h.renderLogin(w, r, http.StatusUnprocessableEntity, v)
		return
	}

	// The attempt is counted (as a failure until it succeeds) before the
	// password is checked, so attempts sent at once cannot all pass.
	limits := loginLimits(v.Email, r)
	attempt, err := h.Store.BeginLoginAttempt(ctx, Window, limits...)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if attempt.Limited != "" {
		v.Error = limitMessage(attempt.Limited)
		h.renderLogin(w, r, http.StatusTooManyRequests, v)
		return
	}
	if err := h.slowAddress(ctx, attempt.Failures[loginAddressLimit]); err != nil {
		_ = h.Store.FinishLoginAttempt(context.WithoutCancel(ctx), attempt, store.LoginNotChecked, store.AuditEntry{})
		h.ServerError(w, r, err)
		return
	}

	staff, err := h.Store.StaffByEmail(ctx, v.Email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		h.ServerError(w, r, err)
		return
	}
	// A disabled account's password is checked too (the same work as any
	// other), so that its holder can be told why they cannot sign in.
	known := err == nil
	active := known && !staff.Disabled
	hash := h.dummyHash
	if known {
		hash = staff.PasswordHash
	}
	ok, busy, err := h.checkCountedPassword(ctx, attempt, hash, password)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if busy {
		v.Error = msgBusy
		w.Header().Set("Retry-After", "2")
		h.renderLogin(w, r, http.StatusServiceUnavailable, v)
		return
	}
	passwordOff, breakGlass, err := h.passwordSignIn(ctx, staff, active)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !ok || !active || (passwordOff && !breakGlass) {
		h.refuseLogin(w, r, v, attempt, staff, ok && known && staff.Disabled, passwordOff, ok && active)
		return
	}
	// Success forgets the account's failures (not the address's: they may
	// be anyone's there).
	h.signInAccepted(w, r, staff, attempt, v.Next, signedIn{action: "auth.login", askSecondFactor: staff.SecondFactor,
		secondFactorDetail: "password checked; second factor asked", forget: []string{limits[0].Key}})
}

// refuseLogin answers a refused password sign-in, and audits it: a wrong
// password, an unknown or disabled account (told apart only when the
// password was right), or password sign-in off for this account.
func (h *Handler) refuseLogin(w http.ResponseWriter, r *http.Request, v views.LoginView, attempt store.LoginAttempt, staff store.Staff,
	disabled, passwordOff, rightPassword bool) {
	v.Error = msgBadCredentials
	detail := "wrong email or password, or account disabled"
	switch {
	case passwordOff:
		v.Error = msgPasswordOff
		if rightPassword {
			detail = "password sign-in is off for this account"
		}
	case disabled:
		v.Error = msgDisabled
	}
	entry := store.AuditEntry{Actor: store.Actor{StaffID: staff.ID, Email: v.Email}, Action: "auth.login",
		Target: "staff:" + v.Email, Outcome: store.OutcomeFailed, Detail: detail}
	if err := h.Store.FinishLoginAttempt(r.Context(), attempt, store.LoginFailed, entry); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.renderLogin(w, r, http.StatusUnprocessableEntity, v)
}

// checkLoginForm puts a missing or too long email, or a missing password,
// beside its field.
func checkLoginForm(v views.LoginView, password string) {
	switch {
	case v.Email == "":
		v.Fields["email"] = "Enter your work email."
	case len(v.Email) > maxEmailLength:
		v.Fields["email"] = fmt.Sprintf("An email address has at most %d characters.", maxEmailLength)
	}
	if password == "" {
		v.Fields["password"] = "Enter your password."
	}
}

// checkCountedPassword checks a password whose attempt is counted. When too
// many passwords are being checked at once it is not checked: busy, and
// the attempt is finished as not checked.
func (h *Handler) checkCountedPassword(ctx context.Context, attempt store.LoginAttempt, hash, password string) (ok, busy bool, err error) {
	ok, err = handlers.CheckPassword(ctx, hash, password)
	if errors.Is(err, handlers.ErrPasswordBusy) {
		return false, true, h.Store.FinishLoginAttempt(ctx, attempt, store.LoginNotChecked, store.AuditEntry{})
	}
	return ok, false, err
}

// passwordSignIn says whether password sign-in is off (an identity
// provider is set up and chosen), and whether staff is the break-glass
// owner whose password is still accepted then.
func (h *Handler) passwordSignIn(ctx context.Context, staff store.Staff, active bool) (off, breakGlass bool, err error) {
	if h.sso == nil {
		return false, false, nil
	}
	st, err := h.Store.SignInSettings(ctx)
	if err != nil {
		return false, false, err
	}
	return st.PasswordOff, active && staff.ID == st.BreakGlassStaffID, nil
}

// signedIn is a sign-in whose first step (a password, or the identity
// provider) succeeded: what its audit rows say, and what comes next.
type signedIn struct {
	// action is the audit rows' action.
	action string
	// askSecondFactor: the session starts only after the second factor;
	// secondFactorDetail is the audit row's detail then.
	askSecondFactor    bool
	secondFactorDetail string
	// sessionDetail is the audit row's detail when the session starts;
	// secondFactorAt is set when the first step counts as the second
	// factor too.
	sessionDetail  string
	secondFactorAt int64
	// forget are the limit keys whose failures a success forgets.
	forget []string
}

// signInAccepted goes on after a sign-in's first step: to the second
// factor, or into a new session.
func (h *Handler) signInAccepted(w http.ResponseWriter, r *http.Request, staff store.Staff, attempt store.LoginAttempt, next string, s signedIn) {
	ctx := r.Context()
	entry := store.AuditEntry{Actor: staff.Actor(), Action: s.action, Target: fmt.Sprintf("staff:%d", staff.ID), Outcome: store.OutcomeOK}
	if s.askSecondFactor {
		// The session starts only after the second factor
		// (SecondFactorForm). Until then this browser is anonymous,
		// holding only whom it is signing in as.
		entry.Detail = s.secondFactorDetail
		if err := h.Store.FinishLoginAttempt(ctx, attempt, store.LoginSucceeded, entry, s.forget...); err != nil {
			h.ServerError(w, r, err)
			return
		}
		if err := h.Sessions.RenewToken(ctx); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Sessions.Put(ctx, sessPendingStaff, staff.ID)
		h.Sessions.Put(ctx, sessPendingAt, h.Now().Unix())
		h.Sessions.Put(ctx, sessPendingNext, next)
		http.Redirect(w, r, "/login/second-factor", http.StatusSeeOther)
		return
	}
	if err := h.startSession(ctx, r, staff, s.secondFactorAt); err != nil {
		h.ServerError(w, r, err)
		return
	}
	entry.Detail = s.sessionDetail
	if err := h.Store.FinishLoginAttempt(ctx, attempt, store.LoginSucceeded, entry, s.forget...); err != nil {
		h.ServerError(w, r, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// Logout ends the session and renews the token.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.endSession(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "info", "You are signed out.")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
