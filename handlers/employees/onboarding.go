package employees

import (
	"context"
	"encoding/json"
	"fmt"

	"partneradmin/handlers/userstate"
	"partneradmin/store"
)

// Refresh reads an employee's onboarding from the API and records the
// snapshots, readiness and wallets (handlers/userstate). Used by the employee
// page, the refresh button and webhook events. When the employee is flagged
// as needing an action and the readings show nothing further asked, the
// flag is cleared and recorded under by, unless it was raised after the
// reads began.
func (h *Handler) Refresh(ctx context.Context, e store.Employee, by store.Actor) error {
	if e.ServiceUserID == "" || e.InviteState == store.InviteDeleted {
		return nil
	}
	if h.API == nil {
		return errNoAPI
	}
	flagged := e.InviteState == store.InviteActionRequired
	var readFrom = h.Clock()
	if flagged {
		// On the database's clock, the one the flag is dated by.
		t, err := h.Store.DatabaseNow(ctx)
		if err != nil {
			return fmt.Errorf("employees: refresh %d: %w", e.ID, err)
		}
		readFrom = t
	}
	rd := userstate.ReadOnboarding(ctx, h.API, e.ServiceUserID, h.Clock())
	cells, err := userstate.RecordOnboarding(ctx, h.Store, e.ID, rd)
	if err != nil {
		return err
	}
	if !flagged {
		return nil
	}
	why, ok := rd.NothingAsked(cells)
	if !ok {
		return nil
	}
	cleared, err := h.Store.ClearActionRequiredAsOf(ctx, e.ID, readFrom, by, "cleared automatically: "+why)
	if err != nil {
		return fmt.Errorf("employees: refresh %d: %w", e.ID, err)
	}
	if cleared {
		h.Logger.InfoContext(ctx, "action required cleared by readiness", "employee", e.ID, "by", by.Email)
	}
	return nil
}

func decodeSnap[T any](snaps map[string]store.Snapshot, kind string) (*T, *store.Snapshot) {
	sn, ok := snaps[kind]
	if !ok {
		return nil, nil
	}
	if sn.Error != "" || len(sn.Body) == 0 || string(sn.Body) == "null" {
		return nil, &sn
	}
	var v T
	if err := json.Unmarshal(sn.Body, &v); err != nil {
		sn.Error = "the stored answer could not be read: refresh"
		return nil, &sn
	}
	return &v, &sn
}
