package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const msgBadCredentials = "That email and password do not match an active account."

// LoginForm shows the sign-in form.
func (h *Handler) LoginForm(w http.ResponseWriter, r *http.Request) {
	if handlers.ViewerFrom(r.Context()) != nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	v := views.LoginView{Next: safeNext(r.URL.Query().Get("next"))}
	h.Render(w, r, http.StatusOK, "Sign in", views.LoginPage(v), nil)
}

// Login checks the credentials, within the rate limits, and starts a session
// with a fresh token.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := views.LoginView{
		Email:  strings.TrimSpace(r.PostFormValue("email")),
		Next:   safeNext(r.PostFormValue("next")),
		Fields: views.FieldErrors{},
	}
	password := r.PostFormValue("password")
	if v.Email == "" {
		v.Fields["email"] = "Enter your work email."
	}
	if password == "" {
		v.Fields["password"] = "Enter your password."
	}
	if v.Fields.Any() {
		h.Render(w, r, http.StatusUnprocessableEntity, "Sign in", views.LoginPage(v), nil)
		return
	}

	acct, addr := accountKey(v.Email), addressKey(r)
	counts, err := h.Store.CountLoginFailures(ctx, h.Now().Add(-Window), acct, addr)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if counts[acct] >= MaxAccountFailures || counts[addr] >= MaxAddressFailures {
		who := "this account"
		if counts[addr] >= MaxAddressFailures {
			who = "your network address"
		}
		v.Error = fmt.Sprintf("Too many failed sign-ins for %s. Wait %d minutes and try again, or ask an owner to reset your password.", who, int(Window.Minutes()))
		h.Render(w, r, http.StatusTooManyRequests, "Sign in", views.LoginPage(v), nil)
		return
	}

	staff, err := h.Store.StaffByEmail(ctx, v.Email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		_, _ = handlers.CheckPassword(h.dummyHash, password)
	case err != nil:
		h.ServerError(w, r, err)
		return
	}
	ok := false
	if err == nil && !staff.Disabled {
		ok, err = handlers.CheckPassword(staff.PasswordHash, password)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	if !ok {
		entry := store.AuditEntry{Actor: store.Actor{StaffID: staff.ID, Email: v.Email}, Action: "auth.login",
			Target: "staff:" + v.Email, Outcome: store.OutcomeFailed, Detail: "wrong email or password, or account disabled"}
		if err := h.Store.RecordLoginFailure(ctx, entry, acct, addr); err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.Error = msgBadCredentials
		h.Render(w, r, http.StatusUnprocessableEntity, "Sign in", views.LoginPage(v), nil)
		return
	}

	// A new token at login defeats session fixation.
	if err := h.Sessions.RenewToken(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Sessions.Put(ctx, handlers.SessionStaffID, staff.ID)
	h.Sessions.Put(ctx, handlers.SessionLastSeen, h.Now().Unix())
	entry := store.AuditEntry{Actor: staff.Actor(), Action: "auth.login", Target: fmt.Sprintf("staff:%d", staff.ID), Outcome: store.OutcomeOK}
	if err := h.Store.ClearLoginFailures(ctx, acct, entry); err != nil {
		h.ServerError(w, r, err)
		return
	}
	http.Redirect(w, r, v.Next, http.StatusSeeOther)
}

// Logout ends the session and renews the token.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.Sessions.RenewToken(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Sessions.Remove(ctx, handlers.SessionStaffID)
	h.Flash(r, "info", "You are signed out.")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
