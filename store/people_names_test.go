package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/store"
)

// The activity feed and the approval queue name their people as the
// employees table has them when the page is read: after a rename, after an
// id is linked to someone, and after a removal.
func TestFeedAndQueueNamePeopleAsTheyAreNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := replicaStores(t, 1)[0]
	e, err := st.UpsertEmployee(ctx, store.Employee{Email: "ada@partner.example", FirstName: "Ada", LastName: "Okafor", ServiceUserID: "u-ada"})
	if err != nil {
		t.Fatal(err)
	}
	var wh int64
	if err := st.Pool().QueryRow(ctx, `INSERT INTO webhook_events (webhook_id, event_type, body, state, received_at)
		VALUES ('wh-names', 'x', '{}', 'processed', now()) RETURNING id`).Scan(&wh); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `INSERT INTO activity (webhook_event_id, service_user_id, kind, event_type, status, amount, currency, occurred_at)
		VALUES ($1, 'u-ada', 'deposit', 'x', 'completed', 5, 'USDB', now())`, wh); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := st.UpsertProposal(ctx, store.Proposal{ID: "p-names", WalletID: "w-1", OwnerUserID: "u-ada", ToUserID: "u-later",
		Type: "TRANSFER", Status: store.ProposalPendingApprovals, Currency: "USDB", Amount: decimal.RequireFromString("5"),
		RequiredApprovals: 1, CreatedAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	check := func(when, feedName, owner, recipient string) {
		t.Helper()
		feed, err := st.ActivityFeed(ctx, store.FeedFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, l := range feed {
			if l.ServiceUserID == "u-ada" {
				got = l.Employee
			}
		}
		if got != feedName {
			t.Errorf("%s: the feed names %q, want %q", when, got, feedName)
		}
		page, err := st.ListQueuePage(ctx, store.QueueFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if o := page.Names["u-ada"]; o.FirstName+" "+o.LastName != owner {
			t.Errorf("%s: the queue names the owner %q, want %q", when, o.FirstName+" "+o.LastName, owner)
		}
		if r := page.Names["u-later"]; r.FirstName+" "+r.LastName != recipient {
			t.Errorf("%s: the queue names the recipient %q, want %q", when, r.FirstName+" "+r.LastName, recipient)
		}
	}
	check("at first", "Ada Okafor", "Ada Okafor", " ")
	if _, err := st.Pool().Exec(ctx, `UPDATE employees SET last_name = 'Eze' WHERE id = $1`, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpsertEmployee(ctx, store.Employee{Email: "bo@partner.example", FirstName: "Bo", LastName: "Bello", ServiceUserID: "u-later"}); err != nil {
		t.Fatal(err)
	}
	check("after a rename and a link", "Ada Eze", "Ada Eze", "Bo Bello")
	if _, err := st.Pool().Exec(ctx, `DELETE FROM employees WHERE id = $1`, e.ID); err != nil {
		t.Fatal(err)
	}
	check("after a removal", "", " ", "Bo Bello")
}
