package staff

import (
	"errors"
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Create adds a staff member with a generated first password, shown once.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) {
	form := views.StaffForm{
		Email:  strings.TrimSpace(r.PostFormValue("email")),
		Name:   strings.TrimSpace(r.PostFormValue("name")),
		Role:   r.PostFormValue("role"),
		Fields: views.FieldErrors{},
	}
	if form.Email == "" {
		form.Fields["email"] = "Enter a work email."
	} else if msg := handlers.CheckEmail(form.Email); msg != "" {
		form.Fields["email"] = msg
	}
	if form.Name == "" {
		form.Fields["name"] = "Enter the person's name."
	} else if msg := handlers.CheckText(form.Name, 100, false); msg != "" {
		form.Fields["name"] = msg
	}
	if !store.Role(form.Role).Valid() {
		form.Fields["role"] = "Choose one of the four roles."
	}
	if form.Fields.Any() {
		h.renderList(w, r, http.StatusUnprocessableEntity, form, nil)
		return
	}
	password := handlers.GeneratePassword()
	hash, err := handlers.HashPassword(password)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	created, err := h.Store.CreateStaff(r.Context(), store.NewStaff{
		Email: form.Email, Name: form.Name, PasswordHash: hash, Role: store.Role(form.Role),
		// The owner saw this password: it is theirs to hand over, not to
		// keep, so the new staff member chooses their own at once.
		PasswordMustChange: true,
	}, handlers.ActorFrom(r.Context()))
	if errors.Is(err, store.ErrConflict) {
		form.Fields["email"] = "A staff account with this email already exists."
		h.renderList(w, r, http.StatusUnprocessableEntity, form, nil)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.renderList(w, r, http.StatusCreated, views.StaffForm{Role: string(store.RoleSupport)},
		&views.CreatedStaff{Email: created.Email, Password: password})
}
