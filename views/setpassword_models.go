package views

import "time"

// SetPasswordView is the page a one-time set-password link opens.
type SetPasswordView struct {
	// Action is where the form posts (the link itself).
	Action string
	Email  string
	Fields FieldErrors
}

// IssuedSetPasswordLink shows, once, a set-password link the owner just
// issued for a staff member.
type IssuedSetPasswordLink struct {
	Email     string
	URL       string
	ExpiresAt time.Time
}
