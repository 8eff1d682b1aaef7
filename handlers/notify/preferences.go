package notify

import (
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// channelLabel names a channel on the page.
func channelLabel(ch string) string {
	if ch == store.ChannelChat {
		return "Team chat"
	}
	return "Email"
}

// Preferences shows what the signed-in staff member receives: the kinds
// their role may receive, one checkbox per configured channel.
func (h *Handler) Preferences(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	viewer := handlers.ViewerFrom(ctx)
	prefs, err := h.Store.NotificationPreferences(ctx, viewer.Staff.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.NotificationPrefsView{Disabled: h.DisabledMessage(), Token: handlers.NewFormToken()}
	for _, ch := range h.channels() {
		c := views.NotificationChannel{Name: ch, Label: channelLabel(ch)}
		switch ch {
		case store.ChannelEmail:
			c.Hint = "Email goes to " + viewer.Staff.Email + "."
		case store.ChannelChat:
			c.Hint = "Team chat is one channel for the whole team: its messages carry no amounts or names, only what happened and the link. One message per event, whoever it concerns."
		}
		v.Channels = append(v.Channels, c)
	}
	for _, k := range KindsFor(viewer.Staff.Role) {
		row := views.NotificationKindRow{Name: k.Name, Label: k.Label}
		for _, ch := range h.channels() {
			on, set := prefs[store.PreferenceKey(k.Name, ch)]
			row.Choices = append(row.Choices, views.NotificationChoice{Field: ch + ":" + k.Name, Channel: channelLabel(ch), On: on || !set})
		}
		v.Kinds = append(v.Kinds, row)
	}
	if viewer.Can(store.PermSettings) {
		v.ShowProblems = true
		list, total, err := h.Store.NotificationProblems(ctx, 20)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.ProblemsTotal = total
		for _, n := range list {
			to := n.Email
			if n.Recipient == store.ChatRecipient {
				to = "team chat"
			}
			label := n.Kind
			if k, ok := kindByName(n.Kind); ok {
				label = k.Label
			}
			v.Problems = append(v.Problems, views.NotificationProblem{ID: n.ID, Kind: label, Channel: channelLabel(n.Channel),
				Recipient: to, State: n.State, Error: n.Error, CreatedAt: n.CreatedAt})
		}
	}
	h.Render(w, r, http.StatusOK, "Notifications", views.NotificationPrefsPage(v), nil)
}

// SavePreferences stores the choices, with their audit row, in one
// transaction. Only the kinds the viewer's role may receive, on the
// configured channels, are read from the form: anything else posted is
// ignored, and the scan sends a kind only to the roles that may see it in
// any case. Saving is idempotent (it sets every offered choice), so the
// form's token is checked for its shape and a second post of the same form
// changes nothing more.
func (h *Handler) SavePreferences(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	viewer := handlers.ViewerFrom(ctx)
	kinds := KindsFor(viewer.Staff.Role)
	if !h.Enabled() || len(kinds) == 0 {
		h.Flash(r, "info", "Nothing was saved: there is nothing to choose here.")
		h.Redirect(w, r, "/account/notifications")
		return
	}
	var choices []store.PreferenceChoice
	var on, off []string
	for _, k := range kinds {
		for _, ch := range h.channels() {
			c := store.PreferenceChoice{Kind: k.Name, Channel: ch, Enabled: r.PostFormValue(ch+":"+k.Name) == "on"}
			choices = append(choices, c)
			if c.Enabled {
				on = append(on, ch+":"+k.Name)
			} else {
				off = append(off, ch+":"+k.Name)
			}
		}
	}
	detail := "on: " + orNone(on) + "; off: " + orNone(off)
	if err := h.Store.SetNotificationPreferences(ctx, viewer.Staff.ID, choices, viewer.Staff.Actor(), detail); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Your notification choices were saved.")
	h.Redirect(w, r, "/account/notifications")
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
