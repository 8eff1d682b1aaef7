// Package views holds the templ components: the layout, one file per page,
// and the partials htmx swaps. Views receive typed view models shaped like the
// screen and never call the API or the store.
package views

import "time"

// Page is what the layout needs around every page's body.
type Page struct {
	Title  string
	Viewer *Viewer // nil when nobody is signed in
	Nav    []NavItem
	Flash  Flash
	Assets Assets
	// NoHistoryCache turns off htmx's history snapshot for pages that show
	// sensitive data.
	NoHistoryCache bool
}

// Viewer is the signed-in staff member, as the layout shows them.
type Viewer struct {
	Name      string
	Email     string
	RoleLabel string
}

// NavItem is one link of the navigation.
type NavItem struct {
	Label  string
	Href   string
	Active bool
	// Group names the menu the link sits in; "" for a link of its own.
	Group string
}

// Assets are the versioned URLs of the static files.
type Assets struct {
	CSS  string
	JS   string
	Htmx string
	// WebAuthn is the passkey script, loaded by the pages that use it.
	WebAuthn string
}

// Flash is a one-time message shown at the top of the next page.
type Flash struct {
	Kind    string // "ok", "error" or "info"
	Message string
}

// FieldErrors maps a form field's name to the message shown next to it.
type FieldErrors map[string]string

// Get returns the message for a field, or "".
func (f FieldErrors) Get(field string) string { return f[field] }

// Has reports whether the field has a message.
func (f FieldErrors) Has(field string) bool { return f[field] != "" }

// Any reports whether any field has a message.
func (f FieldErrors) Any() bool { return len(f) > 0 }

// ErrorView is the generic error page.
type ErrorView struct {
	Status  int
	Title   string
	Message string
	// Back is the page of this site the person came from ("": the start
	// page is offered).
	Back string
	// BackLabel names Back ("": "Back to the previous page").
	BackLabel string
}

// LoginView is the sign-in form.
type LoginView struct {
	Email  string
	Next   string
	Error  string
	Fields FieldErrors
	// SSOName is the identity provider's name ("" when none is set up);
	// PasswordOff: only the break-glass owner signs in with a password.
	SSOName     string
	PasswordOff bool
}

// UpstreamStatus says which Partner API the app talks to.
type UpstreamStatus struct {
	Mode      string // "sandbox" or "partner-api"
	BaseURL   string
	Available bool
	Note      string
}

// AreaLink is a tile on the dashboard.
type AreaLink struct {
	Label       string
	Href        string
	Description string
}

// AuditRow is one audit entry as shown.
type AuditRow struct {
	ID      int64
	At      time.Time
	Actor   string
	Action  string
	Target  string
	Outcome string
	Detail  string
	// ActorHref and TargetHref are the pages of the actor and of what the
	// entry is about ("" when the app has no page for it).
	ActorHref  string
	TargetHref string
}

// StaffListView is the owner's staff page.
type StaffListView struct {
	Staff   []StaffRow
	Form    StaffForm
	Roles   []RoleOption
	Created *CreatedStaff // set once, right after adding someone
}

// StaffRow is one staff member in the list.
type StaffRow struct {
	ID        int64
	Email     string
	Name      string
	Role      string
	RoleLabel string
	Disabled  bool
	IsSelf    bool
	Error     string
	// SecondFactor: they have a passkey or an authenticator app.
	SecondFactor bool
}

// RoleOption is one choice of role.
type RoleOption struct {
	Value string
	Label string
}

// StaffForm is the add-staff form.
type StaffForm struct {
	Email  string
	Name   string
	Role   string
	Fields FieldErrors
}

// CreatedStaff shows the one-time password of an account just created.
type CreatedStaff struct {
	Email    string
	Password string
}

// PasswordView is the change-own-password form.
type PasswordView struct {
	// MustChange: the password was chosen by someone else and must be
	// replaced before the staff member can do anything else.
	MustChange bool
	Fields     FieldErrors
}
