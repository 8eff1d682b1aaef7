package store_test

import (
	"context"
	"testing"

	"partneradmin/store"
)

// A deposit address asked for again keeps one row with the latest
// address; a route replaced keeps one row per account, listed with its
// holder's name only for the wallets asked about, and cleared it is gone.
func TestDepositAddressesAndRoutes(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	if _, err := st.UpsertEmployee(ctx, store.Employee{Email: "emily@acme.example", FirstName: "Emily", LastName: "Carter",
		InviteState: store.InviteLinked, ServiceUserID: "svc-emily"}); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0xaaa", "0xbbb"} {
		if err := st.SaveDepositAddress(ctx, store.DepositAddress{ServiceUserID: "svc-t", Chain: "ethereum", Currency: "USDC", Address: addr}, store.Actor{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SaveDepositAddress(ctx, store.DepositAddress{ServiceUserID: "svc-t", Chain: "base", Currency: "EURC", Address: "0xccc"}, store.Actor{}); err != nil {
		t.Fatal(err)
	}
	addrs, err := st.DepositAddresses(ctx, "svc-t")
	if err != nil || len(addrs) != 2 || addrs[0].Chain != "base" || addrs[1].Address != "0xbbb" {
		t.Fatalf("addresses: %+v %v", addrs, err)
	}
	if other, _ := st.DepositAddresses(ctx, "svc-other"); len(other) != 0 {
		t.Fatalf("another user's addresses: %+v", other)
	}

	if err := st.SetDepositRoute(ctx, "svc-emily", "USD", "w-1", store.Actor{}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetDepositRoute(ctx, "svc-emily", "USD", "w-2", store.Actor{}); err != nil {
		t.Fatal(err)
	}
	routes, err := st.DepositRoutes(ctx, []string{"w-1", "w-2"})
	if err != nil || len(routes) != 1 || routes[0].WalletID != "w-2" || routes[0].HolderName != "Emily Carter" {
		t.Fatalf("routes: %+v %v", routes, err)
	}
	if routes, _ := st.DepositRoutes(ctx, []string{"w-1"}); len(routes) != 0 {
		t.Fatalf("routes of another wallet: %+v", routes)
	}
	if err := st.SetDepositRoute(ctx, "svc-emily", "EUR", "w-2", store.Actor{}); err == nil {
		t.Fatal("a route of a rail that cannot be routed was kept")
	}
	if err := st.ClearDepositRoute(ctx, "svc-emily", "USD"); err != nil {
		t.Fatal(err)
	}
	if routes, _ := st.DepositRoutes(ctx, []string{"w-2"}); len(routes) != 0 {
		t.Fatalf("routes after clearing: %+v", routes)
	}
}
