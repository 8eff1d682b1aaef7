package controls

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// maxCoolingOffHours bounds the cooling-off period (30 days).
const maxCoolingOffHours = 720

// ProposeSettings records an owner's proposed cooling-off period and rule
// for destinations outside the book.
func (h *Handler) ProposeSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	f := views.SettingsForm{Token: r.PostFormValue(handlers.FormTokenField), CoolingOff: strings.TrimSpace(r.PostFormValue("cooling_off")),
		OutsideBook: r.PostFormValue("outside_book"), Fields: views.FieldErrors{}}
	s := store.ControlSettings{OutsideBook: store.OutsideBook(f.OutsideBook)}
	n, err := strconv.Atoi(f.CoolingOff)
	if err != nil || n < 0 || n > maxCoolingOffHours {
		f.Fields["cooling_off"] = fmt.Sprintf("Give whole hours from 0 to %d.", maxCoolingOffHours)
	}
	s.CoolingOffHours = n
	if s.OutsideBook != store.OutsideBookRefused && s.OutsideBook != store.OutsideBookOwnerAsked {
		f.Fields["outside_book"] = "Choose one of the two."
	}
	if f.Fields.Any() {
		h.show(w, r, http.StatusUnprocessableEntity, func(v *views.ControlsView) { v.Settings = f })
		return
	}
	_, err = h.store.ProposePolicyChange(ctx, store.NewPolicyChange{Kind: store.PolicySettings, Body: s,
		Summary: settingsWords(s), By: handlers.ActorFrom(ctx), At: h.clock()})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "The settings were proposed. A second owner must approve them; they are in force after the cooling-off period.")
	h.Redirect(w, r, "/controls#changes")
}
