package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// A run is stored with its audit row; its rows read their action's state;
// it starts once; it finishes (with its audit row) only when every valid
// row has an outcome.
func TestPayrollRunLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	by := store.Actor{Email: "fin@example.com"}
	amount := decimal.NullDecimal{Decimal: decimal.RequireFromString("1250.50"), Valid: true}
	run, err := st.CreatePayrollRun(ctx, "November", store.PayrollFromCSV, []store.PayrollRow{
		{Line: 2, Recipient: "a@example.com", ServiceUserID: "u-a", AmountText: "1250.50", Amount: amount, Currency: "USDB", WalletID: "w"},
		{Line: 3, Recipient: "b@example.com", AmountText: "x", Problems: []string{"amount: bad"}},
	}, by)
	if err != nil {
		t.Fatal(err)
	}
	if run.State != store.PayrollPreview || run.Rows != 2 || run.ValidRows != 1 || auditCount(t, st, "payroll.create") != 1 {
		t.Fatalf("run %+v", run)
	}
	enqueued := 0
	start := func(ctx context.Context, _ pgx.Tx) error { enqueued++; return nil }
	if err := st.StartPayrollRun(ctx, run.ID, start); err != nil {
		t.Fatal(err)
	}
	if err := st.StartPayrollRun(ctx, run.ID, start); !errors.Is(err, store.ErrConflict) || enqueued != 1 {
		t.Fatalf("second start: %v, %d enqueued", err, enqueued)
	}
	if done, err := st.FinishPayrollRun(ctx, run.ID, by); err != nil || done {
		t.Fatalf("finished with a row unsent: %v %v", done, err)
	}
	if _, _, err := st.BeginAction(ctx, store.NewAction{Key: store.PayrollActionKey(run.ID, 2), Kind: "payroll.transfer"}); err != nil {
		t.Fatal(err)
	}
	rows, err := st.PayrollRows(ctx, run.ID)
	if err != nil || len(rows) != 2 || rows[0].ActionState != store.ActionBegun || !rows[0].Amount.Decimal.Equal(amount.Decimal) || rows[1].Valid() {
		t.Fatalf("rows %+v %v", rows, err)
	}
	if done, _ := st.FinishPayrollRun(ctx, run.ID, by); done {
		t.Fatal("finished with a row begun")
	}
	if _, err := st.FinishAction(ctx, store.PayrollActionKey(run.ID, 2), store.Finish{State: store.ActionRefused, Message: "no"}); err != nil {
		t.Fatal(err)
	}
	if done, err := st.FinishPayrollRun(ctx, run.ID, by); err != nil || !done || auditCount(t, st, "payroll.send.finish") != 1 {
		t.Fatalf("finish: %v %v", done, err)
	}
	if err := st.CancelPayrollRun(ctx, run.ID, "late"); err != nil {
		t.Fatal(err)
	}
	if err := st.CancelPayrollRun(ctx, run.ID, "late"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second cancel: %v", err)
	}
}

// A run's approval is one per form, records each row's outcome once, and
// finishes with its audit row.
func TestPayrollApprovalOncePerForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t)
	staff, err := st.CreateStaff(ctx, store.NewStaff{Email: "fin@example.com", Name: "Fin", PasswordHash: "x", Role: store.RoleFinanceApprover}, store.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	by := store.Actor{StaffID: staff.ID, Email: staff.Email}
	run, err := st.CreatePayrollRun(ctx, "R", store.PayrollFromCSV, []store.PayrollRow{{Line: 2, Recipient: "a"}, {Line: 3, Recipient: "b"}}, by)
	if err != nil {
		t.Fatal(err)
	}
	jobs := 0
	enqueue := func(context.Context, pgx.Tx, int64) error { jobs++; return nil }
	a, fresh, err := st.StartPayrollApproval(ctx, run.ID, "form:x", by, []int{2, 3}, enqueue)
	if err != nil || !fresh {
		t.Fatalf("start: %v %v", fresh, err)
	}
	if again, fresh, err := st.StartPayrollApproval(ctx, run.ID, "form:x", by, []int{2, 3}, enqueue); err != nil || fresh || again.ID != a.ID || jobs != 1 {
		t.Fatalf("second start: %+v %v %v, %d jobs", again, fresh, err, jobs)
	}
	for _, o := range []store.PayrollOutcome{{Line: 3, Text: "not approved"}, {Line: 2, OK: true, Text: "approved."}, {Line: 2, OK: true, Text: "approved."}} {
		if err := st.RecordPayrollApprovalOutcome(ctx, a.ID, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishPayrollApproval(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishPayrollApproval(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	got, err := st.LatestPayrollApproval(ctx, run.ID, staff.ID)
	if err != nil || !got.Done() || len(got.Outcomes) != 2 || got.Outcomes[0].Line != 2 || !got.Outcomes[0].OK || got.Outcomes[1].OK {
		t.Fatalf("approval %+v %v", got, err)
	}
	if auditCount(t, st, "payroll.approve") != 1 || auditCount(t, st, "payroll.approve.finish") != 1 {
		t.Fatal("audit rows")
	}
}
