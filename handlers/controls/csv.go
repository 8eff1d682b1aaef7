package controls

import (
	"net/http"
	"strconv"

	"partneradmin/handlers"
	"partneradmin/views"
)

// CSV exports the address book and the policy changes, one row each.
func (h *Handler) CSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	book, err := h.store.Destinations(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	changes, err := h.store.PolicyChanges(ctx, 0, 500)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	now := h.clock()
	c := handlers.NewCSV(w, r, "money-controls.csv", "record", "id", "what", "detail", "proposed_by", "proposed_at", "decided_by", "decided_at", "in_force_from", "state")
	for _, d := range book {
		confirmedAt, usable, state := "", "", "waiting for confirmation"
		if d.ConfirmedAt != nil {
			confirmedAt, usable = views.ISO(*d.ConfirmedAt), views.ISO(*d.UsableFrom)
			state = "trusted"
			if !d.Usable(now) {
				state = "cooling off"
			}
		}
		detail := d.Name + " — " + d.Value
		if d.BankCode != "" {
			detail += " (bank " + d.BankCode + ")"
		}
		c.Row("destination", strconv.FormatInt(d.ID, 10), d.Kind.Label(), detail, d.AddedBy.Name, views.ISO(d.AddedAt),
			d.ConfirmedBy.Name, confirmedAt, usable, state)
	}
	for _, p := range changes {
		decided, effective := "", ""
		if p.DecidedAt != nil {
			decided = views.ISO(*p.DecidedAt)
		}
		if p.EffectiveAt != nil {
			effective = views.ISO(*p.EffectiveAt)
		}
		c.Row("policy change", strconv.FormatInt(p.ID, 10), p.Kind.Label(), p.Summary, p.ProposedBy.Name, views.ISO(p.ProposedAt),
			p.DecidedBy.Name, decided, effective, changeState(ctx, p, now))
	}
	c.Close(h.Logger, r)
}
