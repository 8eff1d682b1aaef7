package treasury

import (
	"context"
	"net/http"
	"strings"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Limits of what the recipient field takes before it is read.
const (
	maxSearchLength = 200 // the search typed
	maxIDLength     = 100 // a serviceUserId chosen
)

// The recipient fields, one per form that sends to an employee.
const (
	transferPicker = "transfer-to"
	sendPicker     = "send-to"
)

// picker is a form's recipient field: the search typed, run from
// views.RecipientMinQuery characters on, and the person chosen so far, who
// stays chosen and named whatever the search finds.
func (h *Handler) picker(ctx context.Context, id, search, chosen string) (views.RecipientPicker, error) {
	p := views.RecipientPicker{ID: id, Search: search}
	if chosen != "" && handlers.CheckText(chosen, maxIDLength, false) == "" {
		r, ok, err := h.store.TreasuryRecipient(ctx, chosen)
		if err != nil {
			return p, err
		}
		c := views.Recipient{ServiceUserID: chosen}
		if ok {
			c.Name, c.Email = r.Name, r.Email
		}
		p.Chosen = &c
	}
	q := strings.TrimSpace(search)
	if msg := handlers.CheckText(q, maxSearchLength, false); msg != "" {
		p.Problem = msg
		return p, nil
	}
	if len([]rune(q)) < views.RecipientMinQuery {
		return p, nil
	}
	p.Query = q
	found, err := h.store.SearchTreasuryRecipients(ctx, q, store.RecipientSearchLimit+1)
	if err != nil {
		return p, err
	}
	if len(found) > store.RecipientSearchLimit {
		found, p.More = found[:store.RecipientSearchLimit], true
	}
	for _, r := range found {
		p.Results = append(p.Results, views.Recipient{ServiceUserID: r.ServiceUserID, Name: r.Name, Email: r.Email})
	}
	return p, nil
}

// pickers fills the recipient fields of the transfer and send forms from
// what each form holds.
func (h *Handler) pickers(ctx context.Context, v *views.TreasuryView) error {
	var err error
	if v.Transfer.To, err = h.picker(ctx, transferPicker, v.Transfer.To.Search, v.Transfer.ToUserID); err != nil {
		return err
	}
	v.Send.To, err = h.picker(ctx, sendPicker, v.Send.To.Search, v.Send.ToUserID)
	return err
}

// Recipients answers the recipient search of the transfer and send forms:
// linked employees whose name or email holds what was typed, as radio
// buttons, the one already chosen kept first.
func (h *Handler) Recipients(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := transferPicker
	if q.Get("picker") == sendPicker {
		id = sendPicker
	}
	p, err := h.picker(r.Context(), id, q.Get("to_search"), strings.TrimSpace(q.Get("to_user_id")))
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.RenderFragment(w, r, http.StatusOK, views.RecipientResults(p))
}
