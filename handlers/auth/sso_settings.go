package auth

import (
	"net/http"
	"slices"
	"strconv"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// jitRoles are the roles an account created at its first single sign-on
// may get, least powerful first: an owner is never made by signing in.
var jitRoles = []store.Role{store.RoleSupport, store.RoleHRAdmin, store.RoleFinanceApprover}

// SignInSettings shows the owner's single sign-on settings.
func (h *Handler) SignInSettings(w http.ResponseWriter, r *http.Request) {
	st, err := h.Store.SignInSettings(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.SignInSettingsView{JITRole: string(st.JITRole), AMR: st.AMRSecondFactor, PasswordOff: st.PasswordOff}
	if st.BreakGlassStaffID != 0 {
		v.BreakGlass = strconv.FormatInt(st.BreakGlassStaffID, 10)
	}
	h.renderSignInSettings(w, r, http.StatusOK, v)
}

func (h *Handler) renderSignInSettings(w http.ResponseWriter, r *http.Request, status int, v views.SignInSettingsView) {
	v.ProviderName = h.SSOName()
	for _, role := range jitRoles {
		v.Roles = append(v.Roles, views.Option{Value: string(role), Label: role.Label()})
	}
	owners, err := h.activeOwners(r)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	for _, o := range owners {
		v.Owners = append(v.Owners, views.Option{Value: strconv.FormatInt(o.ID, 10), Label: o.Name + " (" + o.Email + ")"})
	}
	if v.Fields == nil {
		v.Fields = views.FieldErrors{}
	}
	h.Render(w, r, status, "Single sign-on", views.SignInSettingsPage(v), nil)
}

func (h *Handler) activeOwners(r *http.Request) ([]store.Staff, error) {
	all, err := h.Store.ListStaff(r.Context())
	if err != nil {
		return nil, err
	}
	var out []store.Staff
	for _, s := range all {
		if s.Role == store.RoleOwner && !s.Disabled {
			out = append(out, s)
		}
	}
	return out, nil
}

// SetSignInSettings records the owner's single sign-on settings (audited
// in the same transaction). Password sign-in can be turned off only with
// a provider set up and an active owner chosen to keep it.
func (h *Handler) SetSignInSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	v := views.SignInSettingsView{JITRole: r.PostFormValue("jit_role"), AMR: r.PostFormValue("amr") == "on",
		PasswordOff: r.PostFormValue("password_off") == "on", BreakGlass: r.PostFormValue("break_glass"), Fields: views.FieldErrors{}}
	n := store.SignInSettings{AMRSecondFactor: v.AMR, PasswordOff: v.PasswordOff}
	if v.JITRole != "" {
		if role := store.Role(v.JITRole); slices.Contains(jitRoles, role) {
			n.JITRole = role
		} else if role == store.RoleOwner {
			v.Fields["jit_role"] = "An owner is made by another owner on the staff page, never by signing in. Choose a role with less power, or invitation only."
		} else {
			v.Fields["jit_role"] = "Choose one of the roles listed, or invitation only."
		}
	}
	if v.BreakGlass != "" {
		owners, err := h.activeOwners(r)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		id, _ := strconv.ParseInt(v.BreakGlass, 10, 64)
		for _, o := range owners {
			if o.ID == id {
				n.BreakGlassStaffID = id
			}
		}
		if n.BreakGlassStaffID == 0 {
			v.Fields["break_glass"] = "Choose an active owner."
		}
	}
	if n.PasswordOff {
		switch {
		case h.sso == nil:
			v.Fields["password_off"] = "Password sign-in stays on until an identity provider is set up (OIDC_ISSUER)."
		case n.BreakGlassStaffID == 0 && !v.Fields.Has("break_glass"):
			v.Fields["break_glass"] = "Choose the owner who keeps password sign-in, for when the provider is down."
		}
	}
	if v.Fields.Any() {
		h.renderSignInSettings(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	if err := h.Store.SetSignInSettings(ctx, n, viewer.Staff.Actor()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Saved: single sign-on settings.")
	http.Redirect(w, r, "/settings/sign-in", http.StatusSeeOther)
}
