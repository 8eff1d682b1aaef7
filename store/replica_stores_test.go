package store_test

import (
	"context"
	"log/slog"
	"testing"

	"partneradmin/store"
	"partneradmin/store/pgtest"
)

// replicaStores opens n stores on one fresh migrated database, each with
// its own pool, as n replicas of the app would.
func replicaStores(t *testing.T, n int) []*store.Store {
	t.Helper()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	var stores []*store.Store
	for range n {
		pool, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		stores = append(stores, store.New(pool))
	}
	return stores
}
