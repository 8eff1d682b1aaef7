package authtest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

func TestOwnerAddsStaffWhoCanSignIn(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, owner := env.SignedIn(store.RoleOwner)
	resp := env.PostForm(c, "/staff", url.Values{"email": {"ada@partner.example"}, "name": {"Ada"}, "role": {"finance_approver"}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	password := webtest.TestID(doc, "created-password")
	if len(password) < 20 {
		t.Fatalf("one-time password %q", password)
	}
	created, err := env.Store.StaffByEmail(context.Background(), "ada@partner.example")
	if err != nil || created.Role != store.RoleFinanceApprover {
		t.Fatalf("stored: %+v %v", created, err)
	}
	rows, _ := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "staff.create"})
	if len(rows) == 0 || rows[0].Actor.StaffID != owner.ID || rows[0].Target != "staff:"+strconv.FormatInt(created.ID, 10) {
		t.Fatalf("audit: %+v", rows)
	}
	env.Login(env.Client(), "ada@partner.example", password)

	// Bad input: specific messages, nothing created, input kept.
	resp = env.PostForm(c, "/staff", url.Values{"email": {"ADA@partner.example"}, "name": {"Ada again"}, "role": {"finance_approver"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate: %d", resp.StatusCode)
	}
	doc = webtest.Doc(t, resp)
	if got := webtest.TestID(doc, "staff-email-error"); !strings.Contains(got, "already exists") {
		t.Fatalf("duplicate message %q", got)
	}
	if v, _ := doc.Find("#staff-name").Attr("value"); v != "Ada again" {
		t.Fatalf("name lost: %q", v)
	}
	resp = env.PostForm(c, "/staff", url.Values{"email": {"not-an-email"}, "name": {""}, "role": {"king"}})
	doc = webtest.Doc(t, resp)
	for id, want := range map[string]string{"staff-email-error": "email address", "staff-name-error": "name", "staff-role-error": "four roles"} {
		if got := webtest.TestID(doc, id); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
}

func TestDisableEndsAccessAndLastOwnerIsKept(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	ownerClient, owner := env.SignedIn(store.RoleOwner)
	supportClient, support := env.SignedIn(store.RoleSupport)

	resp := env.PostForm(ownerClient, "/staff/"+strconv.FormatInt(support.ID, 10)+"/disable", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	resp = env.Get(supportClient, "/")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disabled staff still in: %d", resp.StatusCode)
	}
	// The sign-in page they are sent to says why.
	if got := webtest.TestID(webtest.Doc(t, env.Get(supportClient, "/login")), "flash"); !strings.Contains(got, "disabled") {
		t.Fatalf("the sign-in page says %q", got)
	}

	// The owner cannot demote themself (htmx row swap shows why).
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}}
	resp = env.Do(ownerClient, http.MethodPost, "/staff/"+strconv.FormatInt(owner.ID, 10)+"/role", strings.NewReader("role=support"), h)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("self demotion: %d", resp.StatusCode)
	}
	webtest.Doc(t, resp)
	if s, _ := env.Store.StaffByID(context.Background(), owner.ID); s.Role != store.RoleOwner {
		t.Fatal("owner demoted")
	}
	// The store refuses to leave no active owner even when asked directly.
	if _, err := env.Store.UpdateStaffAccess(context.Background(), owner.ID, store.RoleSupport, false, store.Actor{}); err == nil {
		t.Fatal("last owner demoted")
	}
	// With a second owner, the first can be demoted by the second.
	second, _ := env.SignedIn(store.RoleOwner)
	resp = env.Do(second, http.MethodPost, "/staff/"+strconv.FormatInt(owner.ID, 10)+"/role", strings.NewReader("role=support"), h)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("demotion by another owner: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	if v, _ := doc.Find("select option[selected]").Attr("value"); v != "support" {
		t.Fatalf("row shows role %q", v)
	}
}

func TestChangeOwnPassword(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, s := env.SignedIn(store.RoleHRAdmin)
	resp := env.PostForm(c, "/account/password", url.Values{"current": {"nope"}, "new": {"short"}, "confirm": {"different"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad change: %d", resp.StatusCode)
	}
	doc := webtest.Doc(t, resp)
	for _, id := range []string{"current-error", "new-error", "confirm-error"} {
		if webtest.TestID(doc, id) == "" {
			t.Errorf("no message for %s", id)
		}
	}
	next := "a much longer passphrase"
	resp = env.PostForm(c, "/account/password", url.Values{"current": {s.Password}, "new": {next}, "confirm": {next}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("change: %d", resp.StatusCode)
	}
	env.Login(env.Client(), s.Email, next)
	resp = env.PostForm(env.Client(), "/login", url.Values{"email": {s.Email}, "password": {s.Password}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("old password still works: %d", resp.StatusCode)
	}
}

func TestAuditLogCSV(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	resp := env.Get(c, "/audit.csv")
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %q", ct)
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "id,at,actor,action,target,outcome,detail" || len(lines) < 3 {
		t.Fatalf("csv: %q", lines)
	}
	if !strings.Contains(b.String(), "auth.login") {
		t.Fatal("sign-in not in the audit export")
	}
}

// A staff email is a sign-in name: one with a look-alike letter or an
// invisible character would make a second account that reads like the
// first, so it is refused next to the field, as is an overlong address or a
// name with a bidirectional override. Nothing is created.
func TestStaffAddRefusesLookAlikeEmailsAndInvisibleNames(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	for _, tc := range []struct{ email, name, id, want string }{
		{"\u0430da@partner.example", "Ada", "staff-email-error", "U+0430"},
		{"ada\u200b@partner.example", "Ada", "staff-email-error", "U+200B"},
		{strings.Repeat("a", 300) + "@partner.example", "Ada", "staff-email-error", "254"},
		{"ada@localhost", "Ada", "staff-email-error", "name@company.com"},
		{"ada@partner.example", "Ada \u202eLovelace", "staff-name-error", "U+202E"},
		{"ada@partner.example", "Ada\u200b", "staff-name-error", "U+200B"},
	} {
		resp := env.PostForm(c, "/staff", url.Values{"email": {tc.email}, "name": {tc.name}, "role": {"support"}})
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%q %q: status %d", tc.email, tc.name, resp.StatusCode)
		}
		if got := webtest.TestID(doc, tc.id); !strings.Contains(got, tc.want) {
			t.Errorf("%q %q: %s = %q, want %q", tc.email, tc.name, tc.id, got, tc.want)
		}
		if v, _ := doc.Find("#staff-email").Attr("value"); v != tc.email {
			t.Errorf("%q: the email typed was lost: %q", tc.email, v)
		}
	}
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM staff WHERE email LIKE '%da%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused staff stored: %d (%v)", n, err)
	}
}
