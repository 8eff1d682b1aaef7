package staff

import (
	"net/http"
	"strconv"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// List shows every staff member and the add form.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	h.renderList(w, r, http.StatusOK, views.StaffForm{Role: string(store.RoleSupport)}, nil)
}

func (h *Handler) renderList(w http.ResponseWriter, r *http.Request, status int, form views.StaffForm, created *views.CreatedStaff) {
	list, err := h.Store.ListStaff(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	viewer := handlers.ViewerFrom(r.Context())
	v := views.StaffListView{Form: form, Roles: roleOptions(), Created: created}
	for _, s := range list {
		v.Staff = append(v.Staff, staffRow(s, viewer.Staff.ID))
	}
	h.Render(w, r, status, "Staff", views.StaffPage(v), nil)
}

// ExportCSV streams the staff list as CSV.
func (h *Handler) ExportCSV(w http.ResponseWriter, r *http.Request) {
	list, err := h.Store.ListStaff(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, "staff.csv", "id", "email", "name", "role", "disabled", "created_at")
	for _, s := range list {
		cw.Row(strconv.FormatInt(s.ID, 10), s.Email, s.Name, string(s.Role), strconv.FormatBool(s.Disabled), s.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	cw.Close(h.Logger, r)
}
