package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"partneradmin/store"
)

func TestListEmployeesKeysetPagesSearchAndFilters(t *testing.T) {
	st := migratedStore(t)
	ctx := context.Background()
	for i := 0; i < 23; i++ {
		state := store.InviteInvited
		if i%3 == 0 {
			state = store.InviteLinked
		}
		if _, err := st.UpsertEmployee(ctx, store.Employee{Email: fmt.Sprintf("p%02d@x.example", i), FirstName: "Pat", LastName: fmt.Sprintf("Name%02d", 22-i),
			InviteState: state, ServiceUserID: map[bool]string{true: fmt.Sprintf("svc_%02d", i)}[i%3 == 0]}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.UpsertEmployee(ctx, store.Employee{Kind: store.KindTreasury, Email: "t@x.example", FirstName: "Treasury"}); err != nil {
		t.Fatal(err)
	}
	for _, sort := range []string{store.SortName, store.SortActivity} {
		seen := map[int64]bool{}
		f := store.EmployeeFilter{Sort: sort, Limit: 5}
		pages := 0
		var prev string
		for {
			page, err := st.ListEmployees(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range page.Employees {
				if seen[e.ID] {
					t.Fatalf("%s: %s on two pages", sort, e.Email)
				}
				if e.Kind != store.KindEmployee {
					t.Fatalf("treasury user listed")
				}
				if sort == store.SortName && prev != "" && e.LastName < prev {
					t.Fatalf("not sorted by name: %s after %s", e.LastName, prev)
				}
				prev = e.LastName
				seen[e.ID] = true
			}
			if page.Next == "" {
				break
			}
			f.After = page.Next
		}
		if len(seen) != 23 || pages != 5 {
			t.Fatalf("%s: %d employees on %d pages", sort, len(seen), pages)
		}
	}
	page, err := st.ListEmployees(ctx, store.EmployeeFilter{Search: "SVC_0", Limit: 50})
	if err != nil || len(page.Employees) != 4 { // svc_00, 03, 06, 09
		t.Fatalf("search by serviceUserId: %d %v", len(page.Employees), err)
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{Search: "_", Limit: 50})
	if len(page.Employees) != 8 {
		t.Fatalf("an underscore is a character, not a wildcard: %d rows", len(page.Employees))
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{InviteState: store.InviteLinked, Limit: 50})
	if len(page.Employees) != 8 {
		t.Fatalf("state filter: %d", len(page.Employees))
	}
	e := page.Employees[0]
	if err := st.SaveOnboarding(ctx, e.ID, []store.Snapshot{{Kind: "kyc_readiness", Body: []byte(`{"canActivate":false}`), ReadAt: time.Now()}},
		[]store.ReadinessCell{{Currency: "USD", State: store.ReadyMissing, Missing: []string{"bvn"}, ReadAt: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{Currency: "USD", Readiness: store.ReadyMissing, Limit: 50})
	if len(page.Employees) != 1 || page.Employees[0].ID != e.ID {
		t.Fatalf("readiness filter: %+v", page.Employees)
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{Currency: "USD", Readiness: store.ReadyNotStarted, Limit: 50})
	if len(page.Employees) != 22 {
		t.Fatalf("not started: %d", len(page.Employees))
	}
	if _, err := st.ListEmployees(ctx, store.EmployeeFilter{After: "garbage"}); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("bad cursor: %v", err)
	}
}

func TestInviteIsStoredBeforeTheCallAndRetryable(t *testing.T) {
	st := migratedStore(t)
	ctx := context.Background()
	by := store.Actor{Email: "hr@x.example"}
	inv, emp, err := st.BeginInvite(ctx, store.NewInvite{Email: "a@x.example", FirstName: "A", LastName: "B", Country: "GBR"}, by)
	if err != nil || inv.State != store.InviteCallSending || emp.InviteState != store.InviteInvited {
		t.Fatalf("begin %+v %+v %v", inv, emp, err)
	}
	if _, err := st.FinishInvite(ctx, inv.ID, store.InviteOutcome{State: store.InviteCallFailed, Error: "500"}, by); err != nil {
		t.Fatal(err)
	}
	// A failed first invite may be sent again as a first invite.
	inv2, emp2, err := st.BeginInvite(ctx, store.NewInvite{Email: "A@x.example", FirstName: "A", LastName: "C"}, by)
	if err != nil || emp2.ID != emp.ID || emp2.LastName != "C" {
		t.Fatalf("retry %+v %v", emp2, err)
	}
	if _, err := st.FinishInvite(ctx, inv2.ID, store.InviteOutcome{State: store.InviteCallSent, InviteURL: "https://x.example/invite/1"}, by); err != nil {
		t.Fatal(err)
	}
	// Once it has its link, a first invite is a conflict: re-invite instead.
	if _, _, err := st.BeginInvite(ctx, store.NewInvite{Email: "a@x.example"}, by); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second first invite: %v", err)
	}
	if _, _, err := st.BeginInvite(ctx, store.NewInvite{Email: "a@x.example", Reinvite: true}, by); err != nil {
		t.Fatalf("reinvite: %v", err)
	}
	list, _ := st.InvitesOf(ctx, emp.ID)
	if len(list) != 3 || list[2].State != store.InviteCallFailed || list[1].State != store.InviteCallSent || list[0].State != store.InviteCallSending {
		t.Fatalf("invites %+v", list)
	}
	audit, _ := st.ListAudit(ctx, store.AuditFilter{Action: "employee.invite"})
	if len(audit) != 2 || audit[0].Outcome != store.OutcomeOK || audit[1].Outcome != store.OutcomeFailed {
		t.Fatalf("audit %+v", audit)
	}
}
