package views

import "time"

// NotificationPrefsView is the preferences page: which kinds of
// notification the signed-in staff member receives, on which channel.
type NotificationPrefsView struct {
	// Disabled is set when notifications are off (no channel is set up).
	Disabled string
	Channels []NotificationChannel
	// Kinds are the kinds the viewer's role may receive; none for a role
	// that nothing is sent to.
	Kinds []NotificationKindRow
	Token string
	// Problems are the newest notifications that failed or whose delivery
	// is uncertain (shown to owners); ProblemsTotal counts them all.
	ShowProblems  bool
	Problems      []NotificationProblem
	ProblemsTotal int
}

// NotificationChannel is a configured channel.
type NotificationChannel struct {
	Name  string
	Label string
	Hint  string
}

// NotificationKindRow is one kind with a checkbox per channel.
type NotificationKindRow struct {
	Name    string
	Label   string
	Choices []NotificationChoice
}

// NotificationChoice is one checkbox: the form field and whether it is on.
type NotificationChoice struct {
	Field   string
	Channel string
	On      bool
}

// NotificationProblem is a notification that needs a look.
type NotificationProblem struct {
	ID        int64
	Kind      string
	Channel   string
	Recipient string
	State     string
	Error     string
	CreatedAt time.Time
}
