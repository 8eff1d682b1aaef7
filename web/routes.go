package web

import (
	"net/http"

	"partneradmin/store"
)

// Route is one entry of the route table: every URL the app serves, with the
// permission it needs. Stateless routes get no session (static files, the
// health check, webhook deliveries).
type Route struct {
	Method     string
	Pattern    string
	Permission store.Permission
	Stateless  bool
	Handler    http.HandlerFunc
}

// routes is the one table of every route. A reader finds any URL here.
func (a *App) routes() []Route {
	return []Route{
		// Health and static files.
		{Method: "GET", Pattern: "/healthz", Permission: store.PermPublic, Stateless: true, Handler: a.healthz},
		{Method: "GET", Pattern: "/static/*", Permission: store.PermPublic, Stateless: true, Handler: a.static.ServeHTTP},

		// Signing in and out, and one's own password.
		{Method: "GET", Pattern: "/login", Permission: store.PermPublic, Handler: a.auth.LoginForm},
		{Method: "POST", Pattern: "/login", Permission: store.PermPublic, Handler: a.auth.Login},
		{Method: "POST", Pattern: "/logout", Permission: store.PermSignedIn, Handler: a.auth.Logout},
		{Method: "GET", Pattern: "/account/password", Permission: store.PermSignedIn, Handler: a.auth.PasswordForm},
		{Method: "POST", Pattern: "/account/password", Permission: store.PermSignedIn, Handler: a.auth.ChangePassword},

		// Start page.
		{Method: "GET", Pattern: "/", Permission: store.PermSignedIn, Handler: a.dashboard.Home},

		// Staff accounts and roles (owner).
		{Method: "GET", Pattern: "/staff", Permission: store.PermStaffManage, Handler: a.staff.List},
		{Method: "GET", Pattern: "/staff.csv", Permission: store.PermStaffManage, Handler: a.staff.ExportCSV},
		{Method: "POST", Pattern: "/staff", Permission: store.PermStaffManage, Handler: a.staff.Create},
		{Method: "POST", Pattern: "/staff/{id}/role", Permission: store.PermStaffManage, Handler: a.staff.ChangeRole},
		{Method: "POST", Pattern: "/staff/{id}/disable", Permission: store.PermStaffManage, Handler: a.staff.Disable},
		{Method: "POST", Pattern: "/staff/{id}/enable", Permission: store.PermStaffManage, Handler: a.staff.Enable},

		// Audit log (owner).
		{Method: "GET", Pattern: "/audit", Permission: store.PermAuditRead, Handler: a.audit.List},
		{Method: "GET", Pattern: "/audit.csv", Permission: store.PermAuditRead, Handler: a.audit.ExportCSV},
	}
}
