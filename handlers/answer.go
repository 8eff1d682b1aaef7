package handlers

import (
	"errors"
	"net/http"

	"partneradmin/store"
	"partneradmin/views"
)

// Answered answers what Run, RunLocal or Seen decided without the area: a
// key used for another form or by another person, and a local failure. It
// reports whether it answered; otherwise the area turns the Done into its
// page (a repeat, done, refused or unknown).
func (b *Base) Answered(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case errors.Is(err, ErrKeyReused):
		b.ErrorPage(w, r, http.StatusConflict, "Form already used",
			"This form was already used for something else, so nothing was sent. Go back, reload the page and send it again.")
	case err != nil:
		b.ServerError(w, r, err)
	default:
		return false
	}
	return true
}

// RepeatWords tells the person what the first post of a form did: nothing
// was sent now.
func RepeatWords(a store.Action) string {
	switch a.State {
	case store.ActionBegun:
		return "This form was already sent and is still being processed. Nothing was sent again; reload in a moment to see the outcome."
	case store.ActionDone:
		return "This form was already sent: done. Nothing was sent again."
	}
	msg := "This form was already sent: " + views.StatusLabel(views.StatusAction, string(a.State)) + ". Nothing was sent again."
	if a.Message != "" {
		msg += " " + a.Message
	}
	return msg
}

// Repeated answers a form sent again by going back to the page its first
// post concerns, with RepeatWords (and more, when given) in a flash.
func (b *Base) Repeated(w http.ResponseWriter, r *http.Request, a store.Action, to string, more ...string) {
	msg := RepeatWords(a)
	for _, m := range more {
		if m != "" {
			msg += " " + m
		}
	}
	kind := "info"
	if a.State == store.ActionRefused || a.State == store.ActionUnknown {
		kind = "warn"
	}
	b.Flash(r, kind, msg)
	b.Redirect(w, r, to)
}
