package handlers

import (
	"partneradmin/store"
	"partneradmin/views"
)

// AuditRows turns audit entries into the rows the views show.
func AuditRows(entries []store.AuditEntry) []views.AuditRow {
	rows := make([]views.AuditRow, 0, len(entries))
	for _, e := range entries {
		actor := e.Actor.Email
		if actor == "" {
			actor = "system"
		}
		rows = append(rows, views.AuditRow{At: e.At, Actor: actor, Action: e.Action, Target: e.Target, Outcome: e.Outcome, Detail: e.Detail})
	}
	return rows
}
