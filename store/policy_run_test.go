package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// startRun begins a run's send action and decides its rows in one
// transaction, as the payroll send does.
func startRun(ctx context.Context, st *store.Store, key string, rows []store.RunSpend) error {
	return st.Tx(ctx, func(tx *store.Store) error {
		a, _, err := tx.BeginAction(ctx, store.NewAction{Key: key, Kind: "payroll.send"})
		if err != nil {
			return err
		}
		return tx.CheckRunSpend(ctx, a.Key, rows, true)
	})
}

func runRows(w store.Wallet, amounts ...int64) []store.RunSpend {
	out := make([]store.RunSpend, len(amounts))
	for i, a := range amounts {
		out[i] = store.RunSpend{Line: i + 2, Spend: store.Spend{WalletID: w.ID, Currency: "USDB", Amount: decimal.NewFromInt(a),
			Destination: store.EmployeeDestination("u-e"), At: time.Now()}}
	}
	return out
}

// A run is refused per row over the share of the balance and as a whole
// over the daily limit, naming the rows; runs started at once pass exactly
// as many as fit, and each counts as one spend of its wallet.
func TestCheckRunSpendPerRowAndAsAWhole(t *testing.T) {
	t.Parallel()
	st, w, _ := policyFixture(t) // 100 a day, 50% of the 1000 balance a request
	ctx := context.Background()
	var refused *store.PolicyRefusal
	err := startRun(ctx, st, "over-share", runRows(w, 10, 600, 20))
	if !errors.As(err, &refused) || !strings.Contains(refused.Message, "Share of the balance: row 3:") ||
		!strings.Contains(refused.Message, "Daily limit: The run's rows 2, 3 and 4 from this wallet together") {
		t.Fatalf("refusal: %v", err)
	}
	if _, err := st.ActionByKey(ctx, "over-share"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused run left its action: %v", err)
	}
	const n = 6 // runs of 30 (two rows of 15) each: three fit 100
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = startRun(ctx, st, fmt.Sprintf("run%d", i), runRows(w, 15, 15)) })
	}
	wg.Wait()
	passed := 0
	for _, err := range errs {
		switch {
		case err == nil:
			passed++
		case errors.As(err, &refused) && refused.Rule == "Daily limit":
		default:
			t.Fatalf("unexpected: %v", err)
		}
	}
	used, err := st.VelocityUsed(ctx, w.ID, time.Now())
	if passed != 3 || err != nil || !used.Day.Equal(decimal.NewFromInt(90)) {
		t.Fatalf("passed %d, used %s %v", passed, used.Day, err)
	}
}
