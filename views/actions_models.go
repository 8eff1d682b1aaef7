package views

import "time"

// ActionsView is the page of upstream writes (the action ledger).
type ActionsView struct {
	// Open shows only actions whose outcome is not settled.
	Open       bool
	Rows       []ActionRow
	NextBefore int64 // 0 when this is the last page
	// CanResolve: the viewer may settle an open action by hand.
	CanResolve bool
	Error      string
}

// ActionRow is one upstream write as shown.
type ActionRow struct {
	ID         int64
	BegunAt    time.Time
	Actor      string
	Kind       string
	Target     string
	State      string // the ledger state, for the badge
	StateLabel string
	Message    string
	// Open: the outcome is not settled (a person may resolve it).
	Open bool
}

// ActionStateClass is the chip class of a ledger state (Status).
func ActionStateClass(state string) string { return StatusClass(StatusAction, state) }
