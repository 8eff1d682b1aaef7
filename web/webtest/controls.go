// The money controls: trusted destinations and policies set up for tests.

package webtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"partneradmin/store"
)

// TrustDestination puts a destination in the address book as trusted long
// ago: added by one test staff member, confirmed by another, its cooling-off
// over. A destination already in the book is left as it is.
func TrustDestination(t testing.TB, env *Env, kind store.DestinationKind, value, bankCode string) {
	t.Helper()
	ctx := context.Background()
	if _, err := env.Store.DestinationByKey(ctx, store.DestinationKey(kind, bankCode, value)); err == nil {
		return
	}
	long := time.Now().Add(-30 * 24 * time.Hour)
	a, b := env.CreateStaff(store.RoleFinanceApprover), env.CreateStaff(store.RoleOwner)
	d, err := env.Store.AddDestination(ctx, store.NewDestination{Kind: kind, Value: value, BankCode: bankCode, Name: "Trusted in the test " + string(kind) + " " + value[max(len(value)-4, 0):],
		By: a.Actor(), At: long})
	if errors.Is(err, store.ErrConflict) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.ConfirmDestination(ctx, d.ID, b.Actor(), long, 0); err != nil {
		t.Fatal(err)
	}
}
