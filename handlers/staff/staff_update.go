package staff

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// ChangeRole sets a staff member's role.
func (h *Handler) ChangeRole(w http.ResponseWriter, r *http.Request) {
	role := store.Role(r.PostFormValue("role"))
	h.update(w, r, func(s store.Staff) (store.Role, bool, string) {
		if !role.Valid() {
			return s.Role, s.Disabled, "Choose one of the four roles."
		}
		return role, s.Disabled, ""
	})
}

// Disable signs a staff member out and keeps them out.
func (h *Handler) Disable(w http.ResponseWriter, r *http.Request) {
	h.update(w, r, func(s store.Staff) (store.Role, bool, string) { return s.Role, true, "" })
}

// Enable lets a disabled staff member sign in again.
func (h *Handler) Enable(w http.ResponseWriter, r *http.Request) {
	h.update(w, r, func(s store.Staff) (store.Role, bool, string) { return s.Role, false, "" })
}

// update loads the staff member, applies change and answers with the row
// (htmx) or a redirect to the list.
func (h *Handler) update(w http.ResponseWriter, r *http.Request, change func(store.Staff) (store.Role, bool, string)) {
	ctx := r.Context()
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return
	}
	viewer := handlers.ViewerFrom(ctx)
	current, err := h.Store.StaffByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	role, disabled, msg := change(current)
	if msg == "" && id == viewer.Staff.ID && (disabled || role != current.Role) {
		msg = "You cannot change your own role or disable yourself; ask another owner."
	}
	if msg == "" {
		updated, err := h.Store.UpdateStaffAccess(ctx, id, role, disabled, viewer.Staff.Actor())
		switch {
		case errors.Is(err, store.ErrLastOwner):
			msg = "This is the last active owner: make someone else an owner first."
		case err != nil:
			h.ServerError(w, r, err)
			return
		default:
			current = updated
		}
	}
	status := http.StatusOK
	if msg != "" {
		status = http.StatusUnprocessableEntity
	}
	row := staffRow(current, viewer.Staff.ID)
	row.Error = msg
	if h.Fragment(w, r, status, views.StaffRowView(row, roleOptions())) {
		return
	}
	if msg != "" {
		h.Flash(r, "error", msg)
	} else {
		h.Flash(r, "ok", "Saved the changes to "+current.Email+".")
	}
	http.Redirect(w, r, "/staff", http.StatusSeeOther)
}
