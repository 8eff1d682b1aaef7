package store_test

import (
	"context"
	"fmt"
	"testing"

	"partneradmin/store"
)

func TestSearchTreasuryRecipientsFindsLinkedEmployeesByNameOrEmail(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	add := func(e store.Employee) {
		t.Helper()
		if _, err := st.UpsertEmployee(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 30; i++ {
		add(store.Employee{Email: fmt.Sprintf("staff%02d@acme.example", i), FirstName: "Sam", LastName: fmt.Sprintf("Row%02d", 29-i),
			InviteState: store.InviteLinked, ServiceUserID: fmt.Sprintf("svc-%02d", i)})
	}
	add(store.Employee{Email: "half@acme.example", FirstName: "Fifty", LastName: "Fifty%Off", InviteState: store.InviteLinked, ServiceUserID: "svc-pct"})
	add(store.Employee{Email: "under_score@acme.example", FirstName: "Una", LastName: "Score", InviteState: store.InviteLinked, ServiceUserID: "svc-us"})
	add(store.Employee{Email: "invited@acme.example", FirstName: "Ivy", LastName: "Invited", InviteState: store.InviteInvited})
	add(store.Employee{Email: "gone@acme.example", FirstName: "Gus", LastName: "Gone", InviteState: store.InviteLinked, ServiceUserID: "svc-gone"})
	add(store.Employee{Kind: store.KindTreasury, Email: "treasury@acme.example", FirstName: "Treasury", InviteState: store.InviteLinked, ServiceUserID: "svc-treasury"})
	if _, err := st.Pool().Exec(ctx, `UPDATE employees SET deleted_at = now() WHERE email = 'gone@acme.example'`); err != nil {
		t.Fatal(err)
	}

	search := func(q string, limit int) []store.Recipient {
		t.Helper()
		rs, err := st.SearchTreasuryRecipients(ctx, q, limit)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	// By the start of words of the name, case-insensitively, and of the email.
	if rs := search("ROW07", 0); len(rs) != 1 || rs[0].ServiceUserID != "svc-22" || rs[0].Name != "Sam Row07" || rs[0].Email != "staff22@acme.example" {
		t.Fatalf("by name: %+v", rs)
	}
	if rs := search("sam row0", 0); len(rs) != 10 {
		t.Fatalf("across first and last name: %d", len(rs))
	}
	if rs := search("staff22@", 0); len(rs) != 1 || rs[0].ServiceUserID != "svc-22" {
		t.Fatalf("by email: %+v", rs)
	}
	// Ordered by name and limited.
	rs := search("acme.example", 0)
	if len(rs) != store.RecipientSearchLimit || rs[0].Name != "Fifty Fifty%Off" || rs[1].Name != "Sam Row00" || rs[2].Name != "Sam Row01" {
		t.Fatalf("order or limit: %d %+v", len(rs), rs[:3])
	}
	if rs := search("acme.example", 5); len(rs) != 5 {
		t.Fatalf("limit 5: %d", len(rs))
	}
	// LIKE's wildcards separate words; they match nothing themselves.
	if rs := search("fifty%off", 0); len(rs) != 1 || rs[0].ServiceUserID != "svc-pct" {
		t.Fatalf("literal %%: %+v", rs)
	}
	for _, q := range []string{"m%w", "m_r"} {
		if rs := search(q, 0); len(rs) != 0 {
			t.Fatalf("%q matched as a wildcard: %+v", q, rs)
		}
	}
	if rs := search("under_score", 0); len(rs) != 1 || rs[0].ServiceUserID != "svc-us" {
		t.Fatalf("literal _: %+v", rs)
	}
	// Not invited-only people, deleted people or treasury users; nothing for
	// an empty search.
	for _, q := range []string{"ivy", "gus gone", "treasury", "  "} {
		if rs := search(q, 0); len(rs) != 0 {
			t.Fatalf("%q: %+v", q, rs)
		}
	}

	if r, ok, err := st.TreasuryRecipient(ctx, "svc-05"); err != nil || !ok || r.Name != "Sam Row24" || r.Email != "staff05@acme.example" {
		t.Fatalf("by id: %+v %v %v", r, ok, err)
	}
	for _, id := range []string{"svc-gone", "svc-treasury", "nobody", ""} {
		if r, ok, err := st.TreasuryRecipient(ctx, id); err != nil || ok {
			t.Fatalf("%q: %+v %v %v", id, r, ok, err)
		}
	}
}
