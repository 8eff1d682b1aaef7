package directtest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"partneradmin/apiclient"
	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestAddAsUser: HR adds an employee as a user of the Partner API; the
// employee is recorded linked with the API's serviceUserId, one audit row
// says so, and the page leads to the KYC walk. Other roles are refused and
// nothing reaches the API; bad input is said next to its field and sends
// nothing.
func TestAddAsUser(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	ctx := context.Background()
	hr, _ := env.SignedIn(store.RoleHRAdmin)

	doc := webtest.Doc(t, env.Get(hr, "/employees"))
	if href, _ := doc.Find(`[data-testid="direct-link"]`).Attr("href"); href != "/employees/direct" {
		t.Fatalf("no 'Add as a user' beside the invite: %q", href)
	}
	e := addDirect(t, env, hr, "ngozi@acme.example", "Ngozi", "Eze")
	u, err := env.API.LookupUserByEmail(ctx, "ngozi@acme.example")
	if err != nil {
		t.Fatal(err)
	}
	if e.ServiceUserID != u.ServiceUserID || e.InviteState != store.InviteLinked || e.Name() != "Ngozi Eze" {
		t.Fatalf("employee %+v, API user %s", e, u.ServiceUserID)
	}
	rows := auditRows(t, env, "employee.direct_create")
	if len(rows) != 1 || rows[0].Outcome != store.OutcomeOK || !strings.Contains(rows[0].Detail, "ngozi@acme.example") {
		t.Fatalf("audit %+v", rows)
	}

	calls := env.Sandbox.RequestCount("POST", "/v1/users")
	for _, role := range []store.Role{store.RoleFinanceApprover, store.RoleSupport} {
		c, _ := env.SignedIn(role)
		if code := webtest.Status(t, env, c, "/employees/direct"); code != http.StatusForbidden {
			t.Errorf("%s GET: %d", role, code)
		}
		resp := env.PostForm(c, "/employees/direct", webtest.WithFormToken(url.Values{"email": {"x-" + string(role) + "@acme.example"},
			"first_name": {"X"}, "last_name": {"Y"}}))
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s POST: %d", role, resp.StatusCode)
		}
		if _, err := env.Store.EmployeeByEmail(ctx, "x-"+string(role)+"@acme.example"); err == nil {
			t.Errorf("%s added an employee", role)
		}
	}

	resp := env.PostForm(hr, "/employees/direct", webtest.WithFormToken(url.Values{"email": {"not-an-email"}, "first_name": {""}, "last_name": {"Y"}}))
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	doc = webtest.Doc(t, resp)
	if webtest.TestID(doc, "form-errors") == "" || doc.Find(`#f-email-error`).Text() == "" || doc.Find(`#f-first_name-error`).Text() == "" {
		t.Fatalf("bad input not said next to the fields")
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/users") - calls; n != 0 {
		t.Fatalf("%d create-user calls for refused forms", n)
	}
}

// TestAddAsUserConflictRule: spec, a 409 on create-user is "success of a
// prior attempt", recovered by email: a user created earlier with the same
// details is the one recorded. A different person holding the email is
// said next to the email field, and nothing is recorded.
func TestAddAsUserConflictRule(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	ctx := context.Background()
	hr, _ := env.SignedIn(store.RoleHRAdmin)

	earlier, err := env.API.CreateUser(ctx, apiclient.CreateUserRequest{Email: "ada@acme.example", FirstName: "Ada", LastName: "Obi"})
	if err != nil {
		t.Fatal(err)
	}
	e := addDirect(t, env, hr, "ada@acme.example", "Ada", "Obi")
	if e.ServiceUserID != earlier.ServiceUserID {
		t.Fatalf("recorded %q, the earlier attempt made %q", e.ServiceUserID, earlier.ServiceUserID)
	}

	if _, err := env.API.CreateUser(ctx, apiclient.CreateUserRequest{Email: "bo@acme.example", FirstName: "Bo", LastName: "Other"}); err != nil {
		t.Fatal(err)
	}
	resp := env.PostForm(hr, "/employees/direct", webtest.WithFormToken(url.Values{"email": {"bo@acme.example"}, "first_name": {"Bola"}, "last_name": {"Ade"}}))
	wantStatus(t, resp, http.StatusConflict)
	doc := webtest.Doc(t, resp)
	if msg := doc.Find(`#f-email-error`).Text(); !strings.Contains(msg, "Another user") {
		t.Fatalf("email field says %q", msg)
	}
	if _, err := env.Store.EmployeeByEmail(ctx, "bo@acme.example"); err == nil {
		t.Fatal("a different person's user was recorded")
	}
	rows := auditRows(t, env, "employee.direct_create")
	if got := webtest.AuditOutcomes(t, env, "employee.direct_create"); got[store.OutcomeRefused] != 1 || got[store.OutcomeOK] != 1 {
		t.Fatalf("audit %v %+v", got, rows)
	}
}

// TestAddAsUserLostAnswer: the API creates the user but its answer is
// lost; spec, "A timed-out create-user must be recovered through the 409
// rule": the user is recorded once, as the API has it.
func TestAddAsUserLostAnswer(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	ctx := context.Background()
	hr, _ := env.SignedIn(store.RoleHRAdmin)
	webtest.SandboxControl(t, env, http.MethodPost, "/_sandbox/faults", map[string]any{"method": "POST", "route": "/v1/users",
		"status": 502, "after": true, "times": 1})
	e := addDirect(t, env, hr, "lost@acme.example", "Lola", "Ost")
	// The lost answer, then the repeat the API answers with 409.
	if n := env.Sandbox.RequestCount("POST", "/v1/users"); n != 2 {
		t.Fatalf("%d create-user calls, want the lost one and its repeat", n)
	}
	u, err := env.API.LookupUserByEmail(ctx, "lost@acme.example")
	if err != nil {
		t.Fatal(err)
	}
	if e.ServiceUserID != u.ServiceUserID {
		t.Fatalf("recorded %q, the API has %q", e.ServiceUserID, u.ServiceUserID)
	}
	if got := webtest.AuditOutcomes(t, env, "employee.direct_create"); got[store.OutcomeOK] != 1 || len(got) != 1 {
		t.Fatalf("audit %v", got)
	}
}
