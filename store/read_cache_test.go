package store_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
)

// atVersions is ctx carrying the versions st reads now, as a request that
// changes nothing carries them.
func atVersions(t *testing.T, st *store.Store) context.Context {
	t.Helper()
	ep, err := st.Epochs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return store.WithVersions(context.Background(), ep.Data)
}

func firstNames(t *testing.T, ctx context.Context, st *store.Store, f store.EmployeeFilter) []string {
	t.Helper()
	page, err := st.ListEmployeesWithReadiness(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Employees {
		out = append(out, e.FirstName)
	}
	return out
}

// TestCachedListIsHonestAcrossReplicas: a list read kept by one replica is
// served again only while no change has committed anywhere; a rename, a
// new employee or a readiness change made on the other replica shows at
// the next read of the versions.
func TestCachedListIsHonestAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	stores := replicaStores(t, 2)
	a, b := stores[0], stores[1]
	e, err := b.UpsertEmployee(ctx, store.Employee{Email: "ada@partner.example", FirstName: "Ada", LastName: "Lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	f := store.EmployeeFilter{Sort: store.SortName}

	old := atVersions(t, a)
	if got := firstNames(t, old, a, f); strings.Join(got, ",") != "Ada" {
		t.Fatalf("first read: %v", got)
	}
	e.FirstName = "Augusta"
	if _, err := b.UpsertEmployee(ctx, e); err != nil {
		t.Fatal(err)
	}
	// A request that read the versions before the rename may be served
	// the kept read: it shows the state as of when it arrived.
	if got := firstNames(t, old, a, f); strings.Join(got, ",") != "Ada" {
		t.Fatalf("kept read at the old versions: %v (the read was not kept)", got)
	}
	if got := firstNames(t, atVersions(t, a), a, f); strings.Join(got, ",") != "Augusta" {
		t.Fatalf("after a rename on the other replica: %v", got)
	}
	// And the older request now reads the database rather than setting
	// the kept reads back.
	if got := firstNames(t, old, a, f); strings.Join(got, ",") != "Augusta" {
		t.Fatalf("old versions after a newer read: %v", got)
	}

	if _, err := b.UpsertEmployee(ctx, store.Employee{Email: "bea@partner.example", FirstName: "Bea"}); err != nil {
		t.Fatal(err)
	}
	if got := firstNames(t, atVersions(t, a), a, f); strings.Join(got, ",") != "Augusta,Bea" {
		t.Fatalf("after an invite on the other replica: %v", got)
	}

	// Readiness alone (no change to the employee's row) moves the version.
	cell := store.ReadinessCell{EmployeeID: e.ID, Currency: "USD", State: store.ReadyActive, ReadAt: time.Now()}
	if err := b.SaveOnboarding(ctx, e.ID, nil, []store.ReadinessCell{cell}); err != nil {
		t.Fatal(err)
	}
	page, counts, err := a.ReadinessMatrixPage(atVersions(t, a), f, []string{"USD"})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Readiness[e.ID]["USD"].State; got != store.ReadyActive {
		t.Fatalf("readiness after a change on the other replica: %q", got)
	}
	if counts["USD"][store.ReadyActive] != 1 {
		t.Fatalf("counts after a change on the other replica: %v", counts)
	}

	// A rolled-back change moves nothing, and the kept read is served.
	ctx2 := atVersions(t, a)
	before, _ := b.Epochs(ctx)
	err = b.Tx(ctx, func(tx *store.Store) error {
		if _, err := tx.UpsertEmployee(ctx, store.Employee{Email: "gone@partner.example", FirstName: "Gone"}); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	if err == nil {
		t.Fatal("the transaction was not rolled back")
	}
	after, _ := b.Epochs(ctx)
	if after.Data != before.Data {
		t.Fatalf("a rolled-back change moved the versions: %v → %v", before.Data, after.Data)
	}
	if got := firstNames(t, ctx2, a, f); strings.Join(got, ",") != "Augusta,Bea" {
		t.Fatalf("after a rolled-back invite: %v", got)
	}
}

// TestCachedListNeverOlderThanVersionsRead: while one replica renames an
// employee again and again, readers on the other never see a name older
// than the last one committed before they read the versions.
func TestCachedListNeverOlderThanVersionsRead(t *testing.T) {
	ctx := context.Background()
	stores := replicaStores(t, 2)
	a, b := stores[0], stores[1]
	e, err := b.UpsertEmployee(ctx, store.Employee{Email: "ada@partner.example", FirstName: "n0"})
	if err != nil {
		t.Fatal(err)
	}
	f := store.EmployeeFilter{Sort: store.SortName}
	var committed atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	// The writer finishes before the test does, however the readers end.
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := int64(1); i <= 60; i++ {
			e.FirstName = "n" + strconv.FormatInt(i, 10)
			if _, err := b.UpsertEmployee(ctx, e); err != nil {
				t.Error(err)
				return
			}
			committed.Store(i)
		}
	}()
	var stale string
	for reads := 0; stale == ""; reads++ {
		finished := false
		select {
		case <-done:
			finished = true
		default:
		}
		floor := committed.Load()
		got := firstNames(t, atVersions(t, a), a, f)
		if len(got) != 1 {
			stale = fmt.Sprintf("read %d: %v", reads, got)
			break
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(got[0], "n"), 10, 64)
		if err != nil || n < floor {
			stale = fmt.Sprintf("read %d saw %q after n%d had committed", reads, got[0], floor)
		}
		if finished {
			break
		}
	}
	if stale != "" {
		t.Fatal(stale)
	}
}

// TestCachedTreasuryAndPayrollRunsFollowTheOtherReplica: the money-out
// page's treasury and the payroll list, kept by one replica, show a
// balance read and a run's new state written through the other replica's
// connection at the next read of the versions.
func TestCachedTreasuryAndPayrollRunsFollowTheOtherReplica(t *testing.T) {
	ctx := context.Background()
	stores := replicaStores(t, 2)
	a, b := stores[0], stores[1]
	db := b.Pool()
	var treasury int64
	if err := db.QueryRow(ctx, `INSERT INTO employees (kind, email, service_user_id) VALUES ('treasury', 't@partner.example', 'svc-t')
		RETURNING id`).Scan(&treasury); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO wallets (id, employee_id, currency, balance) VALUES ('w-usd', $1, 'USDB', 10)`, treasury); err != nil {
		t.Fatal(err)
	}
	balance := func(ctx context.Context) string {
		t.Helper()
		_, ws, err := a.CachedTreasury(ctx)
		if err != nil || len(ws) != 1 {
			t.Fatalf("treasury: %v %v", ws, err)
		}
		return ws[0].Balance.Decimal.String()
	}
	old := atVersions(t, a)
	if got := balance(old); got != "10" {
		t.Fatalf("first read: %s", got)
	}
	if _, err := db.Exec(ctx, `UPDATE wallets SET balance = 25.5 WHERE id = 'w-usd'`); err != nil {
		t.Fatal(err)
	}
	if got := balance(old); got != "10" {
		t.Fatalf("kept read at the old versions: %s (the read was not kept)", got)
	}
	if got := balance(atVersions(t, a)); got != "25.5" {
		t.Fatalf("after a balance read on the other replica: %s", got)
	}

	run, err := b.CreatePayrollRun(ctx, "November", "csv", nil, store.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	state := func(ctx context.Context) string {
		t.Helper()
		runs, err := a.ListPayrollRuns(ctx, 200)
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs: %v %v", runs, err)
		}
		return runs[0].State
	}
	before := state(atVersions(t, a))
	if _, err := db.Exec(ctx, `UPDATE payroll_runs SET state = 'canceled', canceled_at = now() WHERE id = $1`, run.ID); err != nil {
		t.Fatal(err)
	}
	if got := state(atVersions(t, a)); got == before || got != "canceled" {
		t.Fatalf("run state after a change on the other replica: %q (was %q)", got, before)
	}
}

// TestCachedActivityPageFollowsTheOtherReplica: the activity feed's page,
// and what the page derived from it, kept by one replica, make way for a
// money event recorded through the other replica's connection at the next
// read of the versions.
func TestCachedActivityPageFollowsTheOtherReplica(t *testing.T) {
	ctx := context.Background()
	stores := replicaStores(t, 2)
	a, b := stores[0], stores[1]
	record := func(ref string) {
		t.Helper()
		var id int64
		if err := b.Pool().QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
			VALUES ($1, 'x', '{}', 'processed', now()) RETURNING id`, "wh-"+ref).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Pool().Exec(ctx, `INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount,
			currency, reference, occurred_at) VALUES ($1, 'u-1', 'deposit', 'x', 'completed', 5, 'USDB', $2, now())`, id, ref); err != nil {
			t.Fatal(err)
		}
	}
	refs := func(ctx context.Context) (string, *store.Derived) {
		t.Helper()
		page, err := a.ActivityFeedPage(ctx, store.FeedFilter{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range page.Entries {
			out = append(out, e.Reference)
		}
		return strings.Join(out, ","), page.Derived
	}
	record("r1")
	ctx1 := atVersions(t, a)
	got, d1 := refs(ctx1)
	if got != "r1" {
		t.Fatalf("first read: %q", got)
	}
	if _, again := refs(ctx1); again != d1 {
		t.Fatal("the same versions did not serve the kept page")
	}
	record("r2")
	got, d2 := refs(atVersions(t, a))
	if got != "r2,r1" || d2 == d1 {
		t.Fatalf("after a money event on the other replica: %q (a new read: %v)", got, d2 != d1)
	}
}

// A Derived keeps the values most recently made, up to its bound: the
// queue makes one per set of ages, and they must not pile up while the
// read stays kept.
func TestDerivedKeepsTheNewestValuesOnly(t *testing.T) {
	var d store.Derived
	made := 0
	get := func(key string) any {
		return d.Get(key, func() any { made++; return key })
	}
	for i := range 100 {
		if got := get(strconv.Itoa(i)); got != strconv.Itoa(i) {
			t.Fatalf("key %d: %v", i, got)
		}
	}
	if made != 100 {
		t.Fatalf("made %d values for 100 keys", made)
	}
	get("99")
	if made != 100 {
		t.Error("the newest value was made again")
	}
	get("0")
	if made != 101 {
		t.Error("the oldest of 100 values is still kept")
	}
}
