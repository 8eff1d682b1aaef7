package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
)

// FormTokenField is the hidden field every state-changing form carries.
const FormTokenField = "form_token"

// formTokenLen is the length of a token: 16 random bytes in base64url.
const formTokenLen = 22

// NewFormToken returns a one-time token for a form being rendered. Posting
// the form makes the token the action's key, so a double click, a second
// tab, a back-and-resubmit or a retry after a timeout sends one request.
func NewFormToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// FormKey is the action key of the posted form's token; false when the form
// carries none, or one that is not a token the app makes.
func FormKey(r *http.Request) (string, bool) {
	t := r.PostFormValue(FormTokenField)
	if !ValidFormToken(t) {
		return "", false
	}
	return "form:" + t, true
}

// ValidFormToken reports whether t has the shape of a token NewFormToken
// makes.
func ValidFormToken(t string) bool {
	if len(t) != formTokenLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil
}

// StaleForm answers a form posted without a valid one-time token: nothing
// is sent, and the person is told to reload.
func (b *Base) StaleForm(w http.ResponseWriter, r *http.Request) {
	b.ErrorPage(w, r, http.StatusBadRequest, "Form out of date",
		"This form has no valid one-time token, so nothing was sent. Go back, reload the page and send it again.")
}
