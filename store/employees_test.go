package store_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/shopspring/decimal"

	"partneradmin/store"
	"partneradmin/store/pgtest"
)

func migratedStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return store.New(pool)
}

func TestUpsertEmployeeKeepsServiceUserIDAndIsKeyedByEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "Ada@Partner.example", FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if e.InviteState != store.InviteInvited || e.ServiceUserID != "" {
		t.Fatalf("new employee: %+v", e)
	}
	linked, err := st.UpsertEmployee(ctx, store.Employee{Email: "ada@partner.example", FirstName: "Ada", LastName: "L", ServiceUserID: "u-1", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	if linked.ID != e.ID || linked.ServiceUserID != "u-1" || linked.Name() != "Ada L" {
		t.Fatalf("upsert by email: %+v", linked)
	}
	// A later upsert without the id does not forget it.
	again, err := st.UpsertEmployee(ctx, store.Employee{Email: "ADA@partner.example", FirstName: "Ada", InviteState: store.InviteKYCSubmitted})
	if err != nil || again.ServiceUserID != "u-1" {
		t.Fatalf("id forgotten: %+v %v", again, err)
	}
	// The same serviceUserId cannot belong to two employees.
	_, err = st.UpsertEmployee(ctx, store.Employee{Email: "other@partner.example", ServiceUserID: "u-1"})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate service user id: %v", err)
	}
	got, err := st.EmployeeByServiceUserID(ctx, "u-1")
	if err != nil || got.ID != e.ID {
		t.Fatalf("by service user id: %+v %v", got, err)
	}
	if _, err := st.EmployeeByID(ctx, 99999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing employee: %v", err)
	}
}

func TestWalletBalanceRoundTripsAsDecimal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "w@partner.example", ServiceUserID: "u-w", InviteState: store.InviteLinked})
	if err != nil {
		t.Fatal(err)
	}
	exact := decimal.RequireFromString("12345678901234567.123456789012345678")
	if err := st.UpsertWallet(ctx, store.Wallet{ID: "w-1", EmployeeID: e.ID, Currency: "USDB", Balance: decimal.NullDecimal{Decimal: exact, Valid: true}}); err != nil {
		t.Fatal(err)
	}
	// An upsert without a balance keeps the last one read.
	if err := st.UpsertWallet(ctx, store.Wallet{ID: "w-1", EmployeeID: e.ID, Currency: "USDB", Status: "active"}); err != nil {
		t.Fatal(err)
	}
	w, err := st.WalletByID(ctx, "w-1")
	if err != nil {
		t.Fatal(err)
	}
	if !w.Balance.Valid || !w.Balance.Decimal.Equal(exact) || w.Status != "active" {
		t.Fatalf("wallet: %+v", w)
	}
}
