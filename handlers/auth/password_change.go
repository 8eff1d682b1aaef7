package auth

import (
	"errors"
	"fmt"
	"net/http"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// PasswordForm shows the change-password form.
func (h *Handler) PasswordForm(w http.ResponseWriter, r *http.Request) {
	v := views.PasswordView{MustChange: handlers.ViewerFrom(r.Context()).Staff.PasswordMustChange}
	h.Render(w, r, http.StatusOK, "Change password", views.PasswordPage(v), nil)
}

// ChangePassword checks the current password, within a limit of wrong
// guesses, sets the new one and signs the staff member out everywhere else.
func (h *Handler) ChangePassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	current, next, confirm := r.PostFormValue("current"), r.PostFormValue("new"), r.PostFormValue("confirm")
	v := views.PasswordView{MustChange: viewer.Staff.PasswordMustChange, Fields: views.FieldErrors{}}
	if current == "" {
		v.Fields["current"] = "Enter your current password."
	}
	newPasswordRules(v.Fields, next, confirm)
	if next != "" && next == current {
		v.Fields["new"] = "Choose a password different from the current one."
	}
	if v.Fields.Has("current") {
		h.Render(w, r, http.StatusUnprocessableEntity, "Change password", views.PasswordPage(v), nil)
		return
	}

	if !h.currentPasswordRight(w, r, viewer.Staff, current, &v) {
		return
	}
	if v.Fields.Any() {
		h.Render(w, r, http.StatusUnprocessableEntity, "Change password", views.PasswordPage(v), nil)
		return
	}
	hash, err := handlers.HashPasswordContext(ctx, next)
	if errors.Is(err, handlers.ErrPasswordBusy) {
		v.Fields["new"] = "Too many passwords are being checked right now. Try again in a moment."
		w.Header().Set("Retry-After", "2")
		h.Render(w, r, http.StatusServiceUnavailable, "Change password", views.PasswordPage(v), nil)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// Every other session of this staff member ends; this one stays, under
	// a new token.
	if _, err := h.Store.ChangeStaffPassword(ctx, viewer.Staff.ID, hash, h.Sessions.Token(ctx), viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if err := h.Sessions.RenewToken(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if v.MustChange {
		h.Flash(r, "ok", "Your own password is set. Welcome to Partner Admin.")
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.Flash(r, "ok", "Your password was changed, and your other sessions were signed out.")
	http.Redirect(w, r, "/account/password", http.StatusSeeOther)
}

// newPasswordRules checks a new password and its confirmation, the rules
// for every password a person chooses.
func newPasswordRules(fields views.FieldErrors, next, confirm string) {
	if len([]rune(next)) < handlers.MinPasswordLength {
		fields["new"] = fmt.Sprintf("Use at least %d characters.", handlers.MinPasswordLength)
	}
	if confirm != next {
		fields["confirm"] = "The two new passwords differ."
	}
}

// currentPasswordRight checks the current password, counted so that
// whoever holds this session may guess it only a few times (the guess is
// counted before it is checked). It answers the page itself when false.
func (h *Handler) currentPasswordRight(w http.ResponseWriter, r *http.Request, viewer store.Staff, current string, v *views.PasswordView) bool {
	ctx := r.Context()
	key := passwordKey(viewer.ID)
	attempt, err := h.Store.BeginLoginAttempt(ctx, Window, store.LoginLimit{Key: key, Max: MaxPasswordFailures})
	if err != nil {
		h.ServerError(w, r, err)
		return false
	}
	if attempt.Limited != "" {
		v.Fields["current"] = limitMessage(attempt.Limited)
		h.Render(w, r, http.StatusTooManyRequests, "Change password", views.PasswordPage(*v), nil)
		return false
	}
	// The viewer comes from the staff cache, which keeps no password hash.
	staff, err := h.Store.StaffByID(ctx, viewer.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return false
	}
	ok, busy, err := h.checkCountedPassword(ctx, attempt, staff.PasswordHash, current)
	if err != nil {
		h.ServerError(w, r, err)
		return false
	}
	if busy {
		v.Fields["current"] = "Too many passwords are being checked right now. Try again in a moment."
		w.Header().Set("Retry-After", "2")
		h.Render(w, r, http.StatusServiceUnavailable, "Change password", views.PasswordPage(*v), nil)
		return false
	}
	if !ok {
		entry := store.AuditEntry{Actor: viewer.Actor(), Action: "auth.password_change",
			Target: fmt.Sprintf("staff:%d", viewer.ID), Outcome: store.OutcomeFailed, Detail: "wrong current password"}
		if err := h.Store.FinishLoginAttempt(ctx, attempt, store.LoginFailed, entry); err != nil {
			h.ServerError(w, r, err)
			return false
		}
		v.Fields["current"] = "That is not your current password."
		h.Render(w, r, http.StatusUnprocessableEntity, "Change password", views.PasswordPage(*v), nil)
		return false
	}
	if err := h.Store.FinishLoginAttempt(ctx, attempt, store.LoginSucceeded, store.AuditEntry{}, key); err != nil {
		h.ServerError(w, r, err)
		return false
	}
	return true
}
