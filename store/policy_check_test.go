package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// policyFixture is a wallet with a daily limit of 100 USD in force, two
// owners and a finance approver.
func policyFixture(t *testing.T) (*store.Store, store.Wallet, []store.Staff) {
	t.Helper()
	ctx := context.Background()
	st := migratedStore(t)
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "treasury@partner.example", FirstName: "Treasury", LastName: "Account", ServiceUserID: "u-t"})
	if err != nil {
		t.Fatal(err)
	}
	w := store.Wallet{ID: "w-usd", EmployeeID: e.ID, Currency: "USDB", DisplayCurrency: "USD", Balance: decimal.NewNullDecimal(decimal.NewFromInt(1000))}
	if err := st.UpsertWallet(ctx, w); err != nil {
		t.Fatal(err)
	}
	var staff []store.Staff
	for i, role := range []store.Role{store.RoleOwner, store.RoleOwner, store.RoleFinanceApprover} {
		s, err := st.CreateStaff(ctx, store.NewStaff{Email: fmt.Sprintf("s%d@partner.example", i), Name: fmt.Sprintf("Staff %d", i),
			PasswordHash: "x", Role: role}, store.Actor{Email: "test"})
		if err != nil {
			t.Fatal(err)
		}
		staff = append(staff, s)
	}
	past := time.Now().Add(-time.Hour)
	c, err := st.ProposePolicyChange(ctx, store.NewPolicyChange{Kind: store.PolicyLimits, Target: w.ID, Summary: "100 a day",
		Body: store.WalletLimits{Currency: "USDB", Day: decimal.NewNullDecimal(decimal.NewFromInt(100)), MaxSharePercent: decimal.NewNullDecimal(decimal.NewFromInt(50))},
		By:   staff[0].Actor(), At: past})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApprovePolicyChange(ctx, c.ID, staff[0].Actor(), past, past); !errors.Is(err, store.ErrSamePerson) {
		t.Fatalf("the proposer approved: %v", err)
	}
	if _, err := st.ApprovePolicyChange(ctx, c.ID, staff[1].Actor(), past, past); err != nil {
		t.Fatal(err)
	}
	return st, w, staff
}

// begin begins an action and checks its spend in one transaction, as
// handlers.Actions does.
func begin(ctx context.Context, st *store.Store, key string, sp store.Spend) error {
	return st.Tx(ctx, func(tx *store.Store) error {
		a, _, err := tx.BeginAction(ctx, store.NewAction{Key: key, Kind: "proposal.create"})
		if err != nil {
			return err
		}
		return tx.CheckSpend(ctx, a.Key, sp)
	})
}

// Requests checked at once against one daily limit: exactly the ones that
// fit pass, and a refused one leaves no action begun.
func TestCheckSpendAtOnceFitsExactlyTheLimit(t *testing.T) {
	t.Parallel()
	st, w, _ := policyFixture(t)
	ctx := context.Background()
	const n = 8 // of 30 each: three fit 100
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = begin(ctx, st, fmt.Sprintf("k%d", i), store.Spend{WalletID: w.ID, Currency: "USDB", Amount: decimal.NewFromInt(30),
				Destination: store.EmployeeDestination("u-e"), At: time.Now()})
		})
	}
	wg.Wait()
	passed := 0
	for _, err := range errs {
		var refused *store.PolicyRefusal
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
	if open, err := st.ListActions(ctx, store.ActionFilter{}); err != nil || len(open) != 3 {
		t.Fatalf("actions begun: %d %v", len(open), err)
	}
	// A refused action no longer counts: its 30 fits again.
	if _, err := st.FinishAction(ctx, "k"+firstPassed(errs), store.Finish{State: store.ActionRefused, Message: "no"}); err != nil {
		t.Fatal(err)
	}
	if err := begin(ctx, st, "again", store.Spend{WalletID: w.ID, Currency: "USDB", Amount: decimal.NewFromInt(30), At: time.Now()}); err != nil {
		t.Fatalf("after a refusal: %v", err)
	}
}

func firstPassed(errs []error) string {
	for i, err := range errs {
		if err == nil {
			return fmt.Sprint(i)
		}
	}
	return ""
}

// A destination outside the book, not confirmed, or cooling off is
// refused; one confirmed by another person is usable after the cooling-off.
func TestCheckSpendDestinations(t *testing.T) {
	t.Parallel()
	st, w, staff := policyFixture(t)
	ctx := context.Background()
	now := time.Now()
	key := store.DestinationKey(store.DestIBAN, "", "DE89370400440532013000")
	sp := store.Spend{WalletID: w.ID, Currency: "USDB", Amount: decimal.NewFromInt(10), Destination: key, At: now}
	rule := func(k string, sp store.Spend) string {
		var refused *store.PolicyRefusal
		if err := begin(ctx, st, k, sp); errors.As(err, &refused) {
			return refused.Rule
		} else if err != nil {
			t.Fatal(err)
		}
		return ""
	}
	if got := rule("outside", sp); got != "Trusted destinations" {
		t.Fatalf("outside the book: %q", got)
	}
	d, err := st.AddDestination(ctx, store.NewDestination{Kind: store.DestIBAN, Value: "DE89370400440532013000", Name: "Supplier", By: staff[2].Actor(), At: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := rule("unconfirmed", sp); got != "Trusted destinations" {
		t.Fatalf("unconfirmed: %q", got)
	}
	if _, err := st.ConfirmDestination(ctx, d.ID, staff[2].Actor(), now, 24*time.Hour); !errors.Is(err, store.ErrSamePerson) {
		t.Fatalf("confirmed by its adder: %v", err)
	}
	if _, err := st.ConfirmDestination(ctx, d.ID, staff[0].Actor(), now, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := rule("cooling", sp); got != "Cooling-off period" {
		t.Fatalf("cooling off: %q", got)
	}
	sp.At = now.Add(24*time.Hour + time.Second)
	if got := rule("trusted", sp); got != "" {
		t.Fatalf("trusted: %q", got)
	}
}

// A payout or an order that failed gives its amount back to the limits:
// its spend stops counting, as a failed proposal's does.
func TestVelocityLeavesOutFailedPayoutsAndOrders(t *testing.T) {
	st, w, staff := policyFixture(t)
	ctx := context.Background()
	spend := func(key string, amount int64) {
		t.Helper()
		if err := begin(ctx, st, key, store.Spend{WalletID: w.ID, Currency: "USDB", Amount: decimal.NewFromInt(amount),
			Destination: store.EmployeeDestination("u-e"), At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	used := func(want int64) {
		t.Helper()
		v, err := st.VelocityUsed(ctx, w.ID, time.Now())
		if err != nil || !v.Day.Equal(decimal.NewFromInt(want)) || !v.Week.Equal(decimal.NewFromInt(want)) {
			t.Fatalf("used %s / %s (%v), want %d", v.Day, v.Week, err, want)
		}
	}
	by := staff[2].Actor()
	spend("payout", 40)
	id, err := st.ReserveBankPayoutID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertBankPayout(ctx, store.BankPayout{ID: id, ActionKey: "payout", UserID: "u-t", WalletID: w.ID, Amount: decimal.NewFromInt(40),
		AmountMinor: 4000, Country: "MX", Currency: "MXN", BankID: "b", BankName: "Bank", AccountLast4: "1234", HolderName: "H", UpstreamID: "po-1",
		State: store.BankPayoutFailed, CreatedByStaffID: by.StaffID, CreatedBy: by.Email}); err != nil {
		t.Fatal(err)
	}
	used(0)

	spend("sepa", 30)
	oid, err := st.ReserveSepaMXNOrderID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertSepaMXNOrder(ctx, store.SepaMXNOrder{ID: oid, Rail: store.RailSEPA, ActionKey: "sepa", UpstreamID: "eu-1", UserID: "u-t",
		WalletID: w.ID, Currency: "EURe", Amount: decimal.NewFromInt(30), Beneficiary: "B", IBANMasked: "DE****0000", Status: "prepared",
		CreatedByStaffID: by.StaffID, CreatedBy: by.Email}); err != nil {
		t.Fatal(err)
	}
	used(30)
	if err := st.RecordSepaMXNRead(ctx, oid, "failed", "", "", nil); err != nil {
		t.Fatal(err)
	}
	used(0)
}
