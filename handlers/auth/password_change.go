package auth

import (
	"fmt"
	"net/http"

	"partneradmin/handlers"
	"partneradmin/views"
)

// PasswordForm shows the change-password form.
func (h *Handler) PasswordForm(w http.ResponseWriter, r *http.Request) {
	h.Render(w, r, http.StatusOK, "Change password", views.PasswordPage(views.PasswordView{}), nil)
}

// ChangePassword checks the current password and sets a new one.
func (h *Handler) ChangePassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	current, next, confirm := r.PostFormValue("current"), r.PostFormValue("new"), r.PostFormValue("confirm")
	v := views.PasswordView{Fields: views.FieldErrors{}}
	// The viewer comes from the staff cache, which keeps no password hash.
	staff, err := h.Store.StaffByID(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	ok, err := handlers.CheckPassword(staff.PasswordHash, current)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !ok {
		v.Fields["current"] = "That is not your current password."
	}
	switch {
	case len([]rune(next)) < handlers.MinPasswordLength:
		v.Fields["new"] = fmt.Sprintf("Use at least %d characters.", handlers.MinPasswordLength)
	case next == current:
		v.Fields["new"] = "Choose a password different from the current one."
	}
	if confirm != next {
		v.Fields["confirm"] = "The two new passwords differ."
	}
	if v.Fields.Any() {
		h.Render(w, r, http.StatusUnprocessableEntity, "Change password", views.PasswordPage(v), nil)
		return
	}
	hash, err := handlers.HashPassword(next)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if err := h.Store.SetStaffPassword(ctx, viewer.Staff.ID, hash, viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if err := h.Sessions.RenewToken(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Your password was changed.")
	http.Redirect(w, r, "/account/password", http.StatusSeeOther)
}
