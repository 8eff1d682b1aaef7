// Package inbound holds the types webhook processing and the areas that
// apply its events share, so that neither area imports the other: the
// webhooks area hands an event to the area it concerns and records the
// outcome that area returns. It serves no route.
package inbound

import (
	"encoding/json"
	"time"

	"partneradmin/store"
)

// EmployeeEvent is an event about one employee, as the employees area
// receives it.
type EmployeeEvent struct {
	EventID       int64
	EventType     string
	ServiceUserID string // "" when the payload names none
	Payload       json.RawMessage
	At            time.Time // when it happened, as the event says
	// ReceivedAt is when this app stored the delivery, on the database's
	// clock: a replay or a late run keeps it, so it orders the event
	// against local changes made since.
	ReceivedAt time.Time
}

// Outcome is what applying an event decided.
type Outcome struct {
	State         string // store.EventProcessed, EventDeferred or EventKept
	Note          string // words for the event log
	ServiceUserID string
}

// NoLocalEmployee is the outcome while no local employee has the user: the
// event is kept, and reconciliation runs it again later.
func NoLocalEmployee(userID string) Outcome {
	if userID == "" {
		return Outcome{State: store.EventDeferred, Note: "the payload names no serviceUserId; kept for reconciliation"}
	}
	return Outcome{State: store.EventDeferred, ServiceUserID: userID,
		Note: "no local employee known for serviceUserId " + userID + "; kept for reconciliation"}
}

// ReconcileResult is what one reconciliation check looked at and corrected.
type ReconcileResult struct {
	Checked   int
	Corrected int
	Notes     []string // one line per correction or finding
}
