package staff

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// SetPasswordLinkTTL is how long a set-password link works.
const SetPasswordLinkTTL = 24 * time.Hour

// IssueSetPasswordLink gives a staff member a one-time link to set their
// own password (when the first one was lost, or forgotten), shown once on
// the staff page. An earlier link of theirs stops working.
func (h *Handler) IssueSetPasswordLink(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return
	}
	target, err := h.Store.StaffByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	tok, hash, err := handlers.NewLinkToken()
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	expires, err := h.Store.IssueSetPasswordLink(ctx, id, hash, SetPasswordLinkTTL, handlers.ActorFrom(ctx))
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.NotFound(w, r)
		return
	case errors.Is(err, store.ErrStaffDisabled):
		h.Flash(r, "error", target.Email+" is disabled: enable the account before giving them a set-password link.")
		http.Redirect(w, r, "/staff", http.StatusSeeOther)
		return
	case err != nil:
		h.ServerError(w, r, err)
		return
	}
	list, err := h.Store.ListStaff(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	viewer := handlers.ViewerFrom(ctx)
	v := views.StaffListView{Form: views.StaffForm{Role: string(store.RoleSupport)}, Roles: roleOptions()}
	for _, s := range list {
		v.Staff = append(v.Staff, staffRow(s, viewer.Staff.ID))
	}
	link := views.IssuedSetPasswordLink{Email: target.Email, URL: h.PublicOrigin + "/set-password/" + tok, ExpiresAt: expires}
	h.Render(w, r, http.StatusOK, "Staff", views.StaffPageWithLink(v, link), nil)
}
