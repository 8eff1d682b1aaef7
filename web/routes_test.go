package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// TestRouteTable requests every route of the table as every role and as an
// anonymous visitor and checks the answer: public routes answer everyone,
// anonymous visitors are sent to the sign-in page, roles without the
// permission get 403 and roles with it get through. Every HTML answer
// carries the Content-Security-Policy.
func TestRouteTable(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	victim := env.CreateStaff(store.RoleSupport) // target of {id} routes

	clients := map[store.Role]*http.Client{}
	for _, role := range store.Roles() {
		clients[role], _ = env.SignedIn(role)
	}
	routes := env.App.Routes()
	if len(routes) == 0 {
		t.Fatal("empty route table")
	}
	for _, rt := range routes {
		if rt.Permission == "" {
			t.Errorf("route %s %s has no permission", rt.Method, rt.Pattern)
		}
		path := strings.ReplaceAll(rt.Pattern, "{id}", strconv.FormatInt(victim.ID, 10))
		path = strings.ReplaceAll(path, "*", "app.css")
		type caller struct {
			name   string
			role   store.Role
			client *http.Client
		}
		callers := []caller{{name: "anonymous", client: env.Client()}}
		for _, role := range store.Roles() {
			c := clients[role]
			if rt.Pattern == "/logout" {
				c, _ = env.SignedIn(role) // logging out must not spoil the shared client
			}
			callers = append(callers, caller{name: string(role), role: role, client: c})
		}
		for _, c := range callers {
			t.Run(fmt.Sprintf("%s %s as %s", rt.Method, rt.Pattern, c.name), func(t *testing.T) {
				var resp *http.Response
				if rt.Method == http.MethodGet {
					resp = env.Get(c.client, path)
				} else {
					resp = env.PostForm(c.client, path, url.Values{})
				}
				resp.Body.Close()
				loc := resp.Header.Get("Location")
				toLogin := resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(loc, "/login")
				switch {
				case rt.Permission == store.PermPublic:
					// The second step of a sign-in goes back to the first when none
					// is in progress.
					if resp.StatusCode == http.StatusForbidden || (toLogin && rt.Pattern != "/login" && !strings.HasPrefix(rt.Pattern, "/login/")) {
						t.Fatalf("public route answered %d %s", resp.StatusCode, loc)
					}
				case c.role == "":
					if !toLogin {
						t.Fatalf("anonymous: got %d %q, want 303 to /login", resp.StatusCode, loc)
					}
				case !c.role.Can(rt.Permission):
					if resp.StatusCode != http.StatusForbidden {
						t.Fatalf("%s lacks %s: got %d, want 403", c.role, rt.Permission, resp.StatusCode)
					}
				default:
					if rt.Pattern == "/logout" {
						toLogin = false // signing out ends at the sign-in page by design
					}
					if resp.StatusCode == http.StatusForbidden || toLogin || resp.StatusCode >= 500 {
						t.Fatalf("%s holds %s: got %d %q", c.role, rt.Permission, resp.StatusCode, loc)
					}
				}
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
					csp := resp.Header.Get("Content-Security-Policy")
					if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
						t.Fatalf("HTML answer with CSP %q", csp)
					}
				}
			})
		}
	}
}

// TestRouterServesOnlyTheTable checks that nothing is mounted outside the
// route table, so every URL has a declared permission.
func TestRouterServesOnlyTheTable(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	declared := map[string]bool{}
	for _, rt := range env.App.Routes() {
		declared[rt.Method+" "+rt.Pattern] = true
	}
	mux, ok := env.App.Handler().(chi.Routes)
	if !ok {
		t.Fatalf("handler is %T, not a chi router", env.App.Handler())
	}
	n := 0
	err := chi.Walk(mux, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		n++
		if !declared[method+" "+route] {
			return fmt.Errorf("%s %s is mounted but not in the route table", method, route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(declared) {
		t.Fatalf("router has %d routes, table has %d", n, len(declared))
	}
}

// TestDeniedPostIsAudited: a refused state-changing request leaves an audit
// row with outcome "denied" and changes nothing.
func TestDeniedPostIsAudited(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, hr := env.SignedIn(store.RoleHRAdmin)
	resp := env.PostForm(c, "/staff", url.Values{"email": {"new@partner.example"}, "name": {"New"}, "role": {"owner"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	if _, err := env.Store.StaffByEmail(context.Background(), "new@partner.example"); err == nil {
		t.Fatal("refused request created the account")
	}
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "access.denied"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Actor.StaffID != hr.ID || rows[0].Outcome != store.OutcomeDenied {
		t.Fatalf("audit rows: %+v", rows)
	}
}

// TestDeniedPostWithAnOddPathIsAudited: the path of a refused request is
// whatever was sent; a NUL byte or an 8 KB id in it must not stop its audit
// row from being written (PostgreSQL refuses NUL in text, and the target's
// index refuses rows over about 2.7 KB).
func TestDeniedPostWithAnOddPathIsAudited(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, hr := env.SignedIn(store.RoleHRAdmin)
	long := make([]byte, 8000)
	x := uint32(1)
	for i := range long {
		x = x*1664525 + 1013904223
		long[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(x>>16)%36]
	}
	for _, p := range []string{"/staff/%00/role", "/staff/" + string(long) + "/role"} {
		resp := env.PostForm(c, p, url.Values{"role": {"owner"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%.30s: status %d, want 403", p, resp.StatusCode)
		}
	}
	rows, err := env.Store.ListAudit(context.Background(), store.AuditFilter{Action: "access.denied"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d denial rows, want 2: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if r.Actor.StaffID != hr.ID || !strings.HasPrefix(r.Target, "POST /staff/") || len([]rune(r.Target)) > 320 {
			t.Errorf("denial row %q by %d", r.Target, r.Actor.StaffID)
		}
	}
	if strings.Contains(env.Logs.String(), "audit denied request") {
		t.Fatalf("an audit row failed: %s", env.Logs.String())
	}
}
