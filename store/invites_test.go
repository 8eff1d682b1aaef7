package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"partneradmin/store"
)

// TestRecordInviteIsTheLocalChangeOfAnInvite: an answered invite creates the
// employee (or follows the latest invite while they are only invited),
// keeps the link, and writes no audit row of its own: the action ledger's
// finish writes it in the same transaction.
func TestRecordInviteIsTheLocalChangeOfAnInvite(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	by := store.Actor{Email: "hr@x.example"}
	inv, emp, err := st.RecordInvite(ctx, store.AnsweredInvite{Email: "a@x.example", FirstName: "A", LastName: "B", Country: "GBR",
		Sent: true, InviteURL: "https://x.example/invite/1", By: by})
	if err != nil || inv.State != store.InviteCallSent || emp.InviteState != store.InviteInvited || inv.FinishedAt == nil {
		t.Fatalf("first %+v %+v %v", inv, emp, err)
	}
	// A second first invite of the same email (another tab, another token)
	// updates the same employee.
	_, emp2, err := st.RecordInvite(ctx, store.AnsweredInvite{Email: "A@x.example", FirstName: "A", LastName: "C", Sent: true,
		InviteURL: "https://x.example/invite/1", By: by})
	if err != nil || emp2.ID != emp.ID || emp2.LastName != "C" {
		t.Fatalf("again %+v %v", emp2, err)
	}
	reinv, _, err := st.RecordInvite(ctx, store.AnsweredInvite{Email: "a@x.example", Reinvite: true, Sent: false,
		Error: "Employee has already linked this invitation", By: by})
	if err != nil || reinv.State != store.InviteCallNotSent || !reinv.Reinvite {
		t.Fatalf("reinvite %+v %v", reinv, err)
	}
	if x, _ := st.InviteExtrasOf(ctx, emp.ID); x.InviteURL != "https://x.example/invite/1" {
		t.Fatalf("link %q", x.InviteURL)
	}
	if _, _, err := st.RecordInvite(ctx, store.AnsweredInvite{Email: "nobody@x.example", Reinvite: true, Sent: true}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("re-invite of nobody: %v", err)
	}
	list, _ := st.InvitesOf(ctx, emp.ID)
	if len(list) != 3 {
		t.Fatalf("invites %+v", list)
	}
	for _, action := range []string{"employee.invite", "employee.reinvite"} {
		if rows, _ := st.ListAudit(ctx, store.AuditFilter{Action: action}); len(rows) != 0 {
			t.Fatalf("RecordInvite wrote its own audit rows: %+v", rows)
		}
	}
	// Deletion and reactivation are local changes without audit rows too.
	linked, err := st.UpsertEmployee(ctx, store.Employee{Email: "l@x.example", ServiceUserID: "svc-l", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetDeleted(ctx, linked.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if e, _ := st.EmployeeByID(ctx, linked.ID); e.InviteState != store.InviteDeleted || e.DeletedAt == nil {
		t.Fatalf("deleted %+v", e)
	}
	if err := st.SetReactivated(ctx, linked.ID); err != nil {
		t.Fatal(err)
	}
	if e, _ := st.EmployeeByID(ctx, linked.ID); e.InviteState != store.InviteLinked || e.DeletedAt != nil {
		t.Fatalf("reactivated %+v", e)
	}
	if rows, _ := st.ListAudit(ctx, store.AuditFilter{}); len(rows) != 0 {
		t.Fatalf("audit rows %+v", rows)
	}
}
