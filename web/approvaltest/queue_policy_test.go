package approvaltest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Each waiting value-moving row of the queue says in one line what the
// money controls say of it; the page's times are in the zone the browser
// sent.
func TestQueueRowsSayWhatTheMoneyControlsSay(t *testing.T) {
	t.Parallel()
	var now atomic.Pointer[time.Time]
	start := time.Now()
	now.Store(&start)
	env := webtest.New(t, webtest.Options{Now: func() time.Time { return *now.Load() }})
	ctx := context.Background()
	admins := webtest.TreasuryAdmins(t, env)
	first, _ := webtest.Approver(t, env, admins[0])
	webtest.SyncQueue(t, env, first)
	// The one who reads the queue: sessions end with the day the clock
	// moves on below.
	reader := first
	policy := func(desc string) (string, string) {
		t.Helper()
		row := rowByDescription(queueRows(t, env, reader, ""), desc)
		if row.Length() != 1 {
			t.Fatalf("%d rows %q", row.Length(), desc)
		}
		s := row.Find(`[data-testid="proposal-policy"]`)
		ok, _ := s.Attr("data-ok")
		return strings.TrimSpace(s.Text()), ok
	}
	if got, _ := policy("Travel reimbursement"); got != "No spending policy" {
		t.Errorf("without a policy the row says %q", got)
	}

	o1, _ := env.SignedIn(store.RoleOwner)
	o2, _ := env.SignedIn(store.RoleOwner)
	usd := webtest.TreasuryWallet(t, env, "USDB").ID
	if resp := env.PostForm(o1, "/controls/limits", webtest.WithFormToken(url.Values{"wallet_id": {usd}, "currency": {"USD"},
		"day": {"1000"}, "step_up_above": {"50"}, "step_up_approvals": {"1"}})); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("propose limits: %d", resp.StatusCode)
	}
	changes, err := env.Store.PolicyChanges(ctx, 0, 1)
	if err != nil || len(changes) != 1 {
		t.Fatal(changes, err)
	}
	if resp := env.PostForm(o2, "/controls/changes/"+strconvI(changes[0].ID)+"/approve", webtest.WithFormToken(nil)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve limits: %d", resp.StatusCode)
	}
	later := start.Add(24*time.Hour + time.Minute)
	now.Store(&later)
	creator, _ := webtest.Approver(t, env, admins[0])
	reader = creator
	for desc, amount := range map[string]string{"queue policy big": "60", "queue policy small": "10"} {
		form := webtest.WithTreasuryFormToken(t, env, creator, "transfer", url.Values{"wallet_id": {usd},
			"to_user_id": {env.DemoEmployee("Emily").ServiceUserID}, "amount": {amount}, "description": {desc}})
		if resp := env.PostForm(creator, "/treasury/transfer", form); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("transfer %s: %d", desc, resp.StatusCode)
		}
	}
	if got, ok := policy("queue policy big"); got != "Needs a second approver" || ok != "false" {
		t.Errorf("above the step-up tier the row says %q (ok %s)", got, ok)
	}
	if got, ok := policy("queue policy small"); got != "Within limits" || ok != "true" {
		t.Errorf("below every limit the row says %q (ok %s)", got, ok)
	}

	// The browser sent its zone: the row's exact time is in it.
	u, _ := url.Parse(env.URL("/"))
	creator.Jar.SetCookies(u, []*http.Cookie{{Name: "tz", Value: "Asia/Kolkata", Path: "/"}})
	row := rowByDescription(queueRows(t, env, creator, ""), "queue policy big")
	p, err := env.Store.ProposalByID(ctx, webtest.ProposalID(t, env, "queue policy big"))
	if err != nil {
		t.Fatal(err)
	}
	title, _ := row.Find(`td[data-label="Age"] time`).Attr("title")
	if want := p.CreatedAt.In(mustZone(t, "Asia/Kolkata")).Format("2 Jan 2006 15:04") + " IST"; title != want {
		t.Errorf("age's exact time %q, want %q", title, want)
	}
	if got := strings.TrimSpace(row.Find(`td[data-label="Age"]`).Text()); !strings.HasSuffix(got, " ago") && got != "just now" {
		t.Errorf("age %q is not in words", got)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func strconvI(n int64) string { return strconv.FormatInt(n, 10) }
