package controls

import (
	"errors"
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/handlers/destination"
	"partneradmin/store"
	"partneradmin/views"
)

// maxNameLength bounds a destination's name.
const maxNameLength = 100

// AddDestination adds a destination to the book, waiting for another
// person's confirmation.
func (h *Handler) AddDestination(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	f := views.DestinationForm{Token: r.PostFormValue(handlers.FormTokenField), Kind: r.PostFormValue("kind"),
		Name: strings.TrimSpace(r.PostFormValue("name")), Value: r.PostFormValue("value"), BankCode: r.PostFormValue("bank_code"),
		Fields: views.FieldErrors{}}
	kind := store.DestinationKind(f.Kind)
	if !kind.Valid() {
		f.Fields["kind"] = "Choose what kind of destination it is."
	}
	if msg := handlers.CheckText(f.Name, maxNameLength, false); msg != "" {
		f.Fields["name"] = msg
	} else if f.Name == "" {
		f.Fields["name"] = "Give it a name your colleagues will recognise."
	}
	var value, code string
	if kind.Valid() {
		if handlers.CheckText(f.Value, 100, false) != "" || handlers.CheckText(f.BankCode, 20, false) != "" {
			f.Fields["value"] = "Type the account number or address again: it has characters that cannot be part of it."
		} else {
			var bad map[string]string
			value, code, bad = destination.Check(kind, f.Value, f.BankCode)
			for k, m := range bad {
				f.Fields[k] = m
			}
		}
	}
	if f.Fields.Any() {
		h.show(w, r, http.StatusUnprocessableEntity, func(v *views.ControlsView) { v.Add = f })
		return
	}
	d, err := h.store.AddDestination(ctx, store.NewDestination{Kind: kind, Value: value, BankCode: code, Name: f.Name,
		By: handlers.ActorFrom(ctx), At: h.clock()})
	if errors.Is(err, store.ErrConflict) {
		f.Fields["value"] = "This destination is already in the book."
		h.show(w, r, http.StatusUnprocessableEntity, func(v *views.ControlsView) { v.Add = f })
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "“"+d.Name+"” was added. Another person must confirm it; then it is usable after the cooling-off period.")
	h.Redirect(w, r, "/controls#book")
}
