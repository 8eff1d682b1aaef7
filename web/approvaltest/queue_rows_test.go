package approvaltest

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/views"
	"partneradmin/web/webtest"
)

// The queue keeps each page's rows and markup with its kept read; what a
// row shows of the viewer ("needs me") and of the
// time (its age) must still be right for every request served from it.
func TestQueueRowsFromOneKeptReadAreRightForEachViewerAndTime(t *testing.T) {
	t.Parallel()
	var now atomic.Pointer[time.Time]
	start := time.Now().Add(2 * time.Minute) // after the demo proposals were made
	now.Store(&start)
	env := webtest.New(t, webtest.Options{Now: func() time.Time { return *now.Load() }})
	admins := webtest.TreasuryAdmins(t, env)
	syncer, _ := webtest.Approver(t, env, admins[2])
	webtest.SyncQueue(t, env, syncer)

	ctx := context.Background()
	var travel store.Proposal
	ps, err := env.Store.ListQueue(ctx, store.QueueFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Description == "Travel reimbursement" {
			travel = p
		}
	}
	if len(travel.Approvals) != 1 {
		t.Fatalf("demo's Travel reimbursement has approvals %v, want one", travel.Approvals)
	}
	approved := travel.Approvals[0]
	var other string
	for _, a := range admins {
		if a != approved {
			other = a
			break
		}
	}
	// Linking the two approvers changes no queue table: both views below
	// are served from the same kept read.
	done, _ := webtest.Approver(t, env, approved)
	waiting, _ := webtest.Approver(t, env, other)
	unlinked, _ := env.SignedIn(store.RoleFinanceApprover)

	needsMe := func(c *http.Client, who string) bool {
		t.Helper()
		row := rowByDescription(queueRows(t, env, c, ""), "Travel reimbursement")
		if row.Length() != 1 {
			t.Fatalf("%s: %d Travel reimbursement rows", who, row.Length())
		}
		return row.Find(`[data-testid="needs-me"]`).Length() == 1
	}
	for range 2 {
		if needsMe(unlinked, "an approver not linked") {
			t.Error("an approver not linked to a wallet admin is told the proposal needs them")
		}
		if needsMe(done, "the approver who approved") {
			t.Error("the approver who already approved is told the proposal needs them")
		}
		if !needsMe(waiting, "the approver who has not") {
			t.Error("the approver who has not approved is not told the proposal needs them")
		}
	}

	// Ages follow the clock with nothing changed in the database.
	age := func() string {
		t.Helper()
		row := rowByDescription(queueRows(t, env, waiting, ""), "Travel reimbursement")
		return strings.TrimSpace(row.Find("td").Eq(6).Text())
	}
	before := age()
	if want := views.Ago(travel.CreatedAt, start); before != want {
		t.Fatalf("age %q, want %q", before, want)
	}
	// The first minute within the session's idle time at which the age
	// reads differently.
	later := start
	for k := 1; k <= 25 && views.Ago(travel.CreatedAt, later) == before; k++ {
		later = start.Add(time.Duration(k) * time.Minute)
	}
	want := views.Ago(travel.CreatedAt, later)
	if want == before {
		t.Fatalf("the age %q reads the same for 25 minutes", before)
	}
	now.Store(&later)
	if got := age(); got != want {
		t.Errorf("age after the clock moved on: %q, want %q (before %q)", got, want, before)
	}
}
