package store_test

import (
	"context"
	"errors"
	"testing"

	"partneradmin/store"
)

// Treasury reads the first treasury user known upstream and only that
// user's wallets, by currency, in one round trip; with none known upstream
// it says so.
func TestTreasuryIsTheFirstTreasuryUserKnownUpstream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	db := st.Pool()
	if _, _, err := st.Treasury(ctx); !errors.Is(err, store.ErrNoTreasury) {
		t.Fatalf("no treasury user: %v, want ErrNoTreasury", err)
	}
	var unknown, known, later, employee int64
	for _, row := range []struct {
		id          *int64
		kind, email string
		svc         any
	}{
		{&unknown, "treasury", "t0@partner.example", nil},
		{&known, "treasury", "t1@partner.example", "svc-t1"},
		{&later, "treasury", "t2@partner.example", "svc-t2"},
		{&employee, "employee", "e1@partner.example", "svc-e1"},
	} {
		if err := db.QueryRow(ctx, `INSERT INTO employees (kind, email, service_user_id) VALUES ($1, $2, $3) RETURNING id`,
			row.kind, row.email, row.svc).Scan(row.id); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := st.Treasury(ctx); err != nil {
		t.Fatalf("with a treasury user known upstream: %v", err)
	}
	for _, w := range []struct {
		id, currency string
		owner        int64
	}{{"w-eur", "EURC", known}, {"w-usd", "USDB", known}, {"w-cad", "CADB", known}, {"w-later", "AUDB", later}, {"w-emp", "ARSB", employee},
		{"w-unknown", "BRLB", unknown}} {
		if _, err := db.Exec(ctx, `INSERT INTO wallets (id, employee_id, currency) VALUES ($1, $2, $3)`, w.id, w.owner, w.currency); err != nil {
			t.Fatal(err)
		}
	}
	u, ws, err := st.Treasury(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.ID)
	}
	if u.ID != known || u.ServiceUserID != "svc-t1" || len(got) != 3 || got[0] != "w-cad" || got[1] != "w-eur" || got[2] != "w-usd" {
		t.Errorf("treasury %d %q with wallets %v; want %d svc-t1 with w-cad, w-eur, w-usd", u.ID, u.ServiceUserID, got, known)
	}
}
