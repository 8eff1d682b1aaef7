package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
)

func clearAudit(t *testing.T, st *store.Store, employeeID int64) []store.AuditEntry {
	t.Helper()
	rows, err := st.ListAudit(context.Background(), store.AuditFilter{Action: "employee.kyc_action_cleared"})
	if err != nil {
		t.Fatal(err)
	}
	var out []store.AuditEntry
	for _, r := range rows {
		if r.Target == fmt.Sprintf("employee:%d", employeeID) {
			out = append(out, r)
		}
	}
	return out
}

// TestClearActionRequired: clearing a flagged employee restores its state
// and writes one audit row with who and why; clearing again, or clearing an
// employee never flagged, changes nothing and writes nothing.
func TestClearActionRequired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	flagged, err := st.UpsertEmployee(ctx, store.Employee{Email: "flagged@partner.example", ServiceUserID: "u-flag",
		InviteState: store.InviteKYCSubmitted, KYCSubmitted: true})
	if err != nil {
		t.Fatal(err)
	}
	never, err := st.UpsertEmployee(ctx, store.Employee{Email: "never@partner.example", ServiceUserID: "u-never", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.FlagActionRequired(ctx, "u-flag", "a selfie in the app", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	hr := store.Actor{Email: "hr@partner.example"}

	// Not flagged: nothing changes, no audit row.
	changed, err := st.ClearActionRequired(ctx, never.ID, hr, "checked by hand")
	if err != nil || changed {
		t.Fatalf("clear an employee never flagged: changed %v, err %v", changed, err)
	}
	if got, _ := st.EmployeeByID(ctx, never.ID); got.InviteState != store.InviteLinked || got.UpdatedAt != never.UpdatedAt {
		t.Fatalf("an employee never flagged was written: %+v", got)
	}
	if rows := clearAudit(t, st, never.ID); len(rows) != 0 {
		t.Fatalf("audit rows for a no-op: %+v", rows)
	}

	changed, err = st.ClearActionRequired(ctx, flagged.ID, hr, "checked by hand")
	if err != nil || !changed {
		t.Fatalf("clear: changed %v, err %v", changed, err)
	}
	got, err := st.EmployeeByID(ctx, flagged.ID)
	if err != nil || got.InviteState != store.InviteKYCSubmitted || got.ActionRequired != "" {
		t.Fatalf("after clearing: %+v %v", got, err)
	}
	rows := clearAudit(t, st, flagged.ID)
	if len(rows) != 1 || rows[0].Actor.Email != hr.Email || rows[0].Outcome != store.OutcomeOK ||
		!strings.Contains(rows[0].Detail, "a selfie in the app") || !strings.Contains(rows[0].Detail, "checked by hand") {
		t.Fatalf("audit %+v", rows)
	}

	// Cleared already: a no-op, still one audit row.
	changed, err = st.ClearActionRequired(ctx, flagged.ID, hr, "checked by hand")
	if err != nil || changed {
		t.Fatalf("clear twice: changed %v, err %v", changed, err)
	}
	if rows := clearAudit(t, st, flagged.ID); len(rows) != 1 {
		t.Fatalf("a second clear wrote audit: %+v", rows)
	}

	if _, err := st.ClearActionRequired(ctx, 999999, hr, ""); err == nil || !strings.Contains(err.Error(), store.ErrNotFound.Error()) {
		t.Fatalf("unknown employee: %v", err)
	}
}

// TestClearActionRequiredAsOf: evidence older than the flag leaves it; the
// same evidence clears a flag raised before it.
func TestClearActionRequiredAsOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "asof@partner.example", ServiceUserID: "u-asof", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.DatabaseNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.FlagActionRequired(ctx, "u-asof", "bank verification", store.Actor{Email: "webhook"}); err != nil {
		t.Fatal(err)
	}
	sys := store.Actor{Email: "webhook"}
	changed, err := st.ClearActionRequiredAsOf(ctx, e.ID, before, sys, "onboarding.completed")
	if err != nil || changed {
		t.Fatalf("evidence older than the flag: changed %v, err %v", changed, err)
	}
	if got, _ := st.EmployeeByID(ctx, e.ID); got.InviteState != store.InviteActionRequired {
		t.Fatalf("older evidence cleared the flag: %+v", got)
	}
	if rows := clearAudit(t, st, e.ID); len(rows) != 0 {
		t.Fatalf("audit for a kept flag: %+v", rows)
	}
	after, err := st.DatabaseNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changed, err = st.ClearActionRequiredAsOf(ctx, e.ID, after, sys, "onboarding.completed")
	if err != nil || !changed {
		t.Fatalf("newer evidence: changed %v, err %v", changed, err)
	}
	if got, _ := st.EmployeeByID(ctx, e.ID); got.InviteState != store.InviteLinked || got.ActionRequired != "" {
		t.Fatalf("after clearing: %+v", got)
	}
	if rows := clearAudit(t, st, e.ID); len(rows) != 1 || rows[0].Actor.Email != "webhook" {
		t.Fatalf("audit %+v", rows)
	}
	if _, err := st.ClearActionRequiredAsOf(ctx, e.ID, time.Time{}, sys, ""); err == nil {
		t.Fatal("evidence without a time was accepted")
	}
}
