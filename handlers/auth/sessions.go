package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// sessionKeyOf is how a token is named outside the session store: its
// SHA-256 (the session_changed notices and the sessions list use it).
func sessionKeyOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// SessionList lists the staff member's own live sessions.
func (h *Handler) SessionList(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	list, err := h.Store.StaffSessions(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	current := sessionKeyOf(h.Sessions.Token(ctx))
	var v views.SessionsView
	for _, s := range list {
		v.Sessions = append(v.Sessions, views.SessionRow{Key: s.Key, UserAgent: s.UserAgent, Address: s.Address,
			CreatedAt: s.CreatedAt, LastSeen: s.LastSeen, Current: s.Key == current})
	}
	h.Render(w, r, http.StatusOK, "Your sessions", views.SessionsPage(v), nil)
}

// EndOtherSessions signs the staff member out everywhere but here.
func (h *Handler) EndOtherSessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	n, err := h.Store.EndStaffSessions(ctx, viewer.Staff.ID, h.Sessions.Token(ctx), viewer.Staff.Actor())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", fmt.Sprintf("Signed out of %d other sessions.", n))
	http.Redirect(w, r, "/account/sessions", http.StatusSeeOther)
}

// EndSession signs one of the staff member's other sessions out.
func (h *Handler) EndSession(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	key := r.PostFormValue("session")
	if _, err := hex.DecodeString(key); err != nil || len(key) != 64 {
		h.NotFound(w, r)
		return
	}
	if key == sessionKeyOf(h.Sessions.Token(ctx)) {
		http.Redirect(w, r, "/account/sessions", http.StatusSeeOther)
		return
	}
	err := h.Store.EndStaffSession(ctx, viewer.Staff.ID, key, viewer.Staff.Actor())
	if errors.Is(err, store.ErrNotFound) {
		h.Flash(r, "info", "That session had ended already.")
	} else if err != nil {
		h.ServerError(w, r, err)
		return
	} else {
		h.Flash(r, "ok", "That session is signed out.")
	}
	http.Redirect(w, r, "/account/sessions", http.StatusSeeOther)
}

// staffParam is the staff member the path names (owner actions).
func (h *Handler) staffParam(w http.ResponseWriter, r *http.Request) (store.Staff, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return store.Staff{}, false
	}
	s, err := h.Store.StaffByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return store.Staff{}, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return store.Staff{}, false
	}
	return s, true
}

// EndStaffSessions is the owner ending every session of a staff member.
func (h *Handler) EndStaffSessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	s, ok := h.staffParam(w, r)
	if !ok {
		return
	}
	keep := ""
	if s.ID == viewer.Staff.ID {
		keep = h.Sessions.Token(ctx) // an owner ending their own keeps this one
	}
	n, err := h.Store.EndStaffSessions(ctx, s.ID, keep, viewer.Staff.Actor())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", fmt.Sprintf("%d sessions of %s ended.", n, s.Email))
	http.Redirect(w, r, "/staff", http.StatusSeeOther)
}

// ResetSecondFactor is the owner removing a staff member's second factors
// (a lost device): their sessions end, and they enrol again at their next
// sign-in.
func (h *Handler) ResetSecondFactor(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	s, ok := h.staffParam(w, r)
	if !ok {
		return
	}
	if s.ID == viewer.Staff.ID {
		h.Flash(r, "error", "You cannot reset your own second factor; ask another owner.")
		http.Redirect(w, r, "/staff", http.StatusSeeOther)
		return
	}
	if err := h.Store.ResetSecondFactor(ctx, s.ID, viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "The second factor of "+s.Email+" is reset: they are signed out and set up a new one at their next sign-in.")
	http.Redirect(w, r, "/staff", http.StatusSeeOther)
}

// SecurityPolicy shows which roles must have a second factor.
func (h *Handler) SecurityPolicy(w http.ResponseWriter, r *http.Request) {
	p, err := h.policy(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.SecurityPolicyView{Default: "Until you decide, with the sandbox no role must have one."}
	if h.factors.opts.RequiredByDefault {
		v.Default = "Until you decide, against the real Partner API owners, finance approvers and support must have one."
	}
	for _, role := range store.Roles() {
		v.Roles = append(v.Roles, views.PolicyRole{Value: string(role), Label: role.Label(), Required: p[role]})
	}
	h.Render(w, r, http.StatusOK, "Second factor", views.SecurityPolicyPage(v), nil)
}

// SetSecurityPolicy records which roles must have a second factor.
func (h *Handler) SetSecurityPolicy(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	before, err := h.policy(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	required := map[store.Role]bool{}
	for _, role := range store.Roles() {
		required[role] = false
	}
	for _, v := range r.PostForm["required"] {
		role := store.Role(v)
		if !role.Valid() {
			h.ErrorPage(w, r, http.StatusUnprocessableEntity, "Unknown role", "Choose among the four roles; nothing was changed.")
			return
		}
		required[role] = true
	}
	if err := h.Store.SetSecondFactorPolicy(ctx, required, before, viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Saved: the roles marked must have a second factor.")
	http.Redirect(w, r, "/settings/security", http.StatusSeeOther)
}
