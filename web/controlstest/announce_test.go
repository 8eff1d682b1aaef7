package controlstest

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"partneradmin/handlers/notify"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A change of policy is announced to every owner and finance approver (and
// the team's chat) when it is proposed and again when it takes effect on
// the app's clock; HR and support are not told, and a second scan adds
// nothing.
func TestPolicyChangeIsAnnouncedWhenProposedAndWhenInForce(t *testing.T) {
	t.Parallel()
	// Scans record the notifications; nothing is delivered without the
	// workers, so the SMTP and chat addresses need nobody listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	clk := newClock()
	env := webtest.New(t, webtest.Options{Now: clk.Now, SkipDemoImport: true,
		SMTPURL: "smtp://" + addr + "?from=alerts@partner.example", ChatWebhookURL: "http://" + addr + "/services/T000/B000/secret"})
	ctx := context.Background()
	o1, _ := env.SignedIn(store.RoleOwner)
	owner2 := env.CreateStaff(store.RoleOwner)
	finance := env.CreateStaff(store.RoleFinanceApprover)
	hr := env.CreateStaff(store.RoleHRAdmin)
	support := env.CreateStaff(store.RoleSupport)

	if code, _ := post(t, env, o1, "/controls/settings", url.Values{"cooling_off": {"12"}, "outside_book": {string(store.OutsideBookRefused)}}); code != http.StatusSeeOther {
		t.Fatalf("propose settings: %d", code)
	}
	recipients := func(subjectSuffix string) []string {
		t.Helper()
		rows, err := env.Store.Pool().Query(ctx, `SELECT recipient FROM notifications WHERE kind = $1 AND subject LIKE '%' || $2 ORDER BY recipient`,
			notify.KindPolicyChange, subjectSuffix)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	scan := func() int {
		t.Helper()
		n, err := env.App.Notify().Scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	scan()
	got := recipients(":proposed")
	for _, want := range []string{store.StaffRecipient(owner2.ID), store.StaffRecipient(finance.ID), store.ChatRecipient} {
		if !slices.Contains(got, want) {
			t.Fatalf("proposed: %v, want %s among them", got, want)
		}
	}
	for _, not := range []string{store.StaffRecipient(hr.ID), store.StaffRecipient(support.ID)} {
		if slices.Contains(got, not) {
			t.Fatalf("proposed: %v has %s", got, not)
		}
	}
	if n := len(recipients(":effective")); n != 0 {
		t.Fatalf("%d announcements of taking effect before approval", n)
	}

	changes, err := env.Store.PolicyChanges(ctx, 0, 1)
	if err != nil || len(changes) != 1 {
		t.Fatalf("changes: %v %v", changes, err)
	}
	o2 := env.Client()
	env.Login(o2, owner2.Email, owner2.Password)
	if code, _ := post(t, env, o2, "/controls/changes/"+itoa(changes[0].ID)+"/approve", nil); code != http.StatusSeeOther {
		t.Fatalf("approve: %d", code)
	}
	scan()
	if n := len(recipients(":effective")); n != 0 {
		t.Fatalf("%d announcements of taking effect during the cooling-off", n)
	}
	// Past the cooling-off on the app's clock: in force, announced once.
	clk.Advance(24*time.Hour + time.Minute)
	if scan() == 0 || !slices.Contains(recipients(":effective"), store.StaffRecipient(finance.ID)) {
		t.Fatalf("taking effect not announced: %v", recipients(":effective"))
	}
	if n := scan(); n != 0 {
		t.Fatalf("a second scan recorded %d", n)
	}
}
