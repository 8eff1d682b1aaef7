package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const msgLinkGone = "This set-password link does not work: it has expired, was used already, or was replaced by a newer one. Ask an owner for a new link."

// link loads the live set-password link of the request's path, or answers
// 404 and returns false.
func (h *Handler) link(w http.ResponseWriter, r *http.Request) (tokenHash []byte, l store.SetPasswordLink, ok bool) {
	tok := chi.URLParam(r, "token")
	if !handlers.ValidLinkToken(tok) {
		h.ErrorPage(w, r, http.StatusNotFound, "Link not valid", msgLinkGone)
		return nil, l, false
	}
	tokenHash = handlers.HashLinkToken(tok)
	l, err := h.Store.SetPasswordLinkByTokenHash(r.Context(), tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		h.ErrorPage(w, r, http.StatusNotFound, "Link not valid", msgLinkGone)
		return nil, l, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return nil, l, false
	}
	return tokenHash, l, true
}

// SetPasswordForm shows the form a one-time set-password link opens.
func (h *Handler) SetPasswordForm(w http.ResponseWriter, r *http.Request) {
	if _, l, ok := h.link(w, r); ok {
		v := views.SetPasswordView{Action: r.URL.Path, Email: l.Email}
		h.Render(w, r, http.StatusOK, "Set your password", views.SetPasswordPage(v), nil)
	}
}

// SetPassword sets the password of the link's staff member (the rules of
// every chosen password), spends the link and ends all their sessions.
func (h *Handler) SetPassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tokenHash, l, ok := h.link(w, r)
	if !ok {
		return
	}
	next, confirm := r.PostFormValue("new"), r.PostFormValue("confirm")
	v := views.SetPasswordView{Action: r.URL.Path, Email: l.Email, Fields: views.FieldErrors{}}
	newPasswordRules(v.Fields, next, confirm)
	if v.Fields.Any() {
		h.Render(w, r, http.StatusUnprocessableEntity, "Set your password", views.SetPasswordPage(v), nil)
		return
	}
	hash, err := handlers.HashPasswordContext(ctx, next)
	if errors.Is(err, handlers.ErrPasswordBusy) {
		v.Fields["new"] = "Too many passwords are being checked right now. Try again in a moment."
		w.Header().Set("Retry-After", "2")
		h.Render(w, r, http.StatusServiceUnavailable, "Set your password", views.SetPasswordPage(v), nil)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// Spending the link is what decides: of two submissions, one wins.
	if _, err := h.Store.UseSetPasswordLink(ctx, tokenHash, hash); errors.Is(err, store.ErrNotFound) {
		h.ErrorPage(w, r, http.StatusNotFound, "Link not valid", msgLinkGone)
		return
	} else if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// A locked account is unlocked: the link is the way out of the lock
	// its message offers.
	if err := h.Store.ClearLoginFailures(ctx, keyAccount+strings.ToLower(strings.TrimSpace(l.Email))); err != nil {
		h.ServerError(w, r, err)
		return
	}
	// Whatever this browser was signed in as, it starts again signed out.
	if err := h.Sessions.RenewToken(ctx); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Sessions.Remove(ctx, handlers.SessionStaffID)
	h.Flash(r, "ok", "Your password is set. Sign in with it.")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
