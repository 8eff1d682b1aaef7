package views

import (
	"strings"
)

// AuditListView is one page of the audit log.
type AuditListView struct {
	Filter AuditFilterForm
	// Actions and Actors are the filter's choices: every action the log
	// holds, and the staff's emails.
	Actions []string
	Actors  []string
	Rows    []AuditRow
	// OlderURL and NewestURL page the log with the same filter ("" when
	// there is no such page); CSVURL exports every row of the filter.
	OlderURL  string
	NewestURL string
	CSVURL    string
}

// AuditFilterForm is the audit log's filter, as typed.
type AuditFilterForm struct {
	Q      string // any part of the actor, action, target or detail
	Actor  string
	Action string
	Target string
	From   string // YYYY-MM-DD
	To     string // YYYY-MM-DD, the whole day included
	Fields FieldErrors
}

// Filtered reports whether any filter is set.
func (f AuditFilterForm) Filtered() bool {
	return f.Q != "" || f.Actor != "" || f.Action != "" || f.Target != "" || f.From != "" || f.To != ""
}

// TargetParts splits an audit target "kind:id" into its kind and id.
func TargetParts(target string) (kind, id string) {
	kind, id, ok := strings.Cut(target, ":")
	if !ok {
		return "", target
	}
	return kind, id
}
