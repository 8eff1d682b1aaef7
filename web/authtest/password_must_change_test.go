package authtest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// A password an owner chose (and saw) is replaced at the first sign-in:
// until then every page leads to the change form, and no action is taken.
func TestPasswordChosenByOwnerIsChangedFirst(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	resp := env.PostForm(owner, "/staff", url.Values{"email": {"grace@partner.example"}, "name": {"Grace"}, "role": {"hr_admin"}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	first := webtest.TestID(webtest.Doc(t, resp), "created-password")

	c := env.Client()
	env.Login(c, "grace@partner.example", first)
	for _, path := range []string{"/", "/employees", "/employees/invite", "/account/security"} {
		resp := env.Get(c, path)
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/password" {
			t.Errorf("GET %s before the change: %d to %q, want 303 to /account/password", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// An action is not taken either.
	resp = env.PostForm(c, "/employees/invite", webtest.WithFormToken(webtest.UKInviteForm("blocked@example.com")))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/password" {
		t.Errorf("POST before the change: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, found := webtest.SandboxInviteOf(t, env, "blocked@example.com"); found {
		t.Error("an invite was sent before the password was changed")
	}

	doc := webtest.Doc(t, env.Get(c, "/account/password"))
	if got := webtest.TestID(doc, "password-must-change"); !strings.Contains(got, "chosen by an owner") {
		t.Fatalf("the change page does not say why: %q", got)
	}
	resp = env.PostForm(c, "/account/password", url.Values{"current": {first}, "new": {first}, "confirm": {first}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("the same password again: %d, want 422", resp.StatusCode)
	}
	own := "grace's own long passphrase"
	resp = env.PostForm(c, "/account/password", url.Values{"current": {first}, "new": {own}, "confirm": {own}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("change: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := webtest.Status(t, env, c, "/employees"); got != http.StatusOK {
		t.Fatalf("GET /employees after the change: %d", got)
	}
	grace, err := env.Store.StaffByEmail(context.Background(), "grace@partner.example")
	if err != nil || grace.PasswordMustChange {
		t.Fatalf("stored after the change: must change %v, %v", grace.PasswordMustChange, err)
	}
	row := webtest.LastAudit(t, env, "staff.password")
	if row.Actor.StaffID != grace.ID || !strings.Contains(row.Detail, "chosen by an owner") {
		t.Fatalf("audit of the change: %+v", row)
	}
	if row := webtest.LastAudit(t, env, "staff.create"); !strings.Contains(row.Detail, "new password at the first sign-in") {
		t.Fatalf("audit of the creation: %+v", row)
	}

	// A password one chose oneself is never forced: the page is the usual one.
	self, _ := env.SignedIn(store.RoleSupport)
	doc = webtest.Doc(t, env.Get(self, "/account/password"))
	if doc.Find(`[data-testid="password-must-change"]`).Length() != 0 {
		t.Error("a staff member who chose their password is told to change it")
	}
	// Anonymous: the sign-in page, not the change form.
	resp = env.Get(env.Client(), "/account/password")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("anonymous GET: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
