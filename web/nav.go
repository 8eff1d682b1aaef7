package web

import (
	"strings"

	"partneradmin/store"
	"partneradmin/views"
)

// NavEntry is one link of the main navigation and the permission it needs.
// Description is shown on the dashboard tile.
type NavEntry struct {
	Label       string
	Href        string
	Permission  store.Permission
	Description string
	// Also lists further paths that belong to the area (pages reached
	// from it), so that it is marked current there too.
	Also []string
	// Menu is the menu of the bar the entry sits in (navMenus), "" for
	// one that stands on its own.
	Menu string
}

// navigation lists the main areas, in the order shown.
func navigation() []NavEntry {
	entries := []NavEntry{
		{Label: "Start", Href: "/", Permission: store.PermSignedIn},
		{Label: "Employees", Href: "/employees", Permission: store.PermEmployeesRead, Description: "Invite employees one by one or from a CSV file, follow linking, KYC and per-currency readiness, delete and reactivate accounts."},
		{Label: "Approvals", Href: "/approvals", Permission: store.PermApprovalsRead, Description: "Open proposals: approve, reject, and send the owner's signature to their device."},
		{Label: "Treasury", Href: "/treasury", Permission: store.PermTreasury, Description: "The treasury's balances, what open proposals will take out of them, and proposals to pay employees, swap and send.", Also: []string{"/sign-requests"}},
		{Label: "Money out", Href: "/money-out", Permission: store.PermTreasury, Description: "Every way value leaves the treasury: bank withdrawals and payouts, SEPA, the Mexican offramp, LATAM cash, crypto."},
		{Label: "Money controls", Href: "/controls", Permission: store.PermTreasury, Description: "Trusted destinations, spending limits per wallet, and the account's approval mode: nothing changes without a second person."},
		{Label: "Payroll", Href: "/payroll", Permission: store.PermTreasury, Description: "Pay many employees at once from a CSV file or the employee list: checked and previewed against the treasury's balance, one proposal per row, approved in one action."},
		{Label: "Activity", Href: "/activity", Permission: store.PermActivityRead, Description: "Every deposit, withdrawal, card spend and completed proposal, filtered by kind, currency, employee and dates, with a CSV for accounting."},
		{Label: "Cards", Href: "/cards", Permission: store.PermCardsRead, Description: "Find a card, freeze or unfreeze it in one click, limits, transactions, cancel, activation, issuance."},
		{Label: "Staff", Href: "/staff", Permission: store.PermStaffManage, Description: "Add staff, change roles, disable accounts."},
		{Label: "Audit log", Href: "/audit", Permission: store.PermAuditRead, Description: "Every state-changing action: who, what, target and outcome."},
		{Label: "API requests", Href: "/actions", Permission: store.PermAuditRead, Description: "Every request that changed something at the Partner API, sent once; settle by hand one whose outcome could not be read back."},
		{Label: "Events", Href: "/events", Permission: store.PermSettings, Description: "Webhook deliveries from the Partner API: state, errors, replay."},
		{Label: "Webhooks", Href: "/settings/webhooks", Permission: store.PermSettings, Description: "The webhook subscription: events, secret rotation, reconciliation."},
		{Label: "Notifications", Href: "/account/notifications", Permission: store.PermSignedIn},
		{Label: "Second factor", Href: "/settings/security", Permission: store.PermSettings, Description: "Which roles must sign in with a passkey or an authenticator app."},
		{Label: "Single sign-on", Href: "/settings/sign-in", Permission: store.PermSettings, Description: "Signing in with the company's identity provider: new accounts, its second factor, password sign-in."},
	}
	menuOf := navMenuOf(navMenus())
	for i := range entries {
		entries[i].Menu = menuOf[entries[i].Href]
	}
	return entries
}

// navMenu is one menu of the navigation bar and the areas it holds.
type navMenu struct {
	Label string
	Hrefs []string
}

// navMenus groups the areas into the few menus of the navigation bar, so
// that the owner's bar stays on one line on a laptop's screen. An entry of
// navigation() in no menu stands on its own (Start); views.NavGroups shows
// a menu with a single link for the role as that link. Menus and their
// links appear in navigation()'s order, not this list's.
func navMenus() []navMenu {
	return []navMenu{
		{Label: "People", Hrefs: []string{"/employees", "/staff"}},
		{Label: "Money", Hrefs: []string{"/approvals", "/treasury", "/money-out", "/controls", "/payroll", "/activity"}},
		{Label: "Cards", Hrefs: []string{"/cards"}},
		{Label: "Operations", Hrefs: []string{"/audit", "/actions", "/events"}},
		{Label: "Settings", Hrefs: []string{"/settings/webhooks", "/settings/security", "/settings/sign-in", "/account/notifications"}},
	}
}

// navMenuOf maps an area's path to the menu it sits in.
func navMenuOf(menus []navMenu) map[string]string {
	m := make(map[string]string)
	for _, g := range menus {
		for _, h := range g.Hrefs {
			m[h] = g.Label
		}
	}
	return m
}

// navCurrent reports whether path lies in the entry's area.
func navCurrent(e NavEntry, path string) bool {
	if path == e.Href || (e.Href != "/" && strings.HasPrefix(path, e.Href+"/")) {
		return true
	}
	for _, also := range e.Also {
		if strings.HasPrefix(path, also+"/") {
			return true
		}
	}
	return false
}

// navFor keeps the entries a role may use and marks the current one.
func navFor(entries []NavEntry, role store.Role, path string) []views.NavItem {
	var items []views.NavItem
	for _, e := range entries {
		if !role.Can(e.Permission) {
			continue
		}
		items = append(items, views.NavItem{Label: e.Label, Href: e.Href, Active: navCurrent(e, path), Group: e.Menu})
	}
	return items
}

// areaDescriptions maps each navigation path to its dashboard description.
func areaDescriptions(entries []NavEntry) map[string]string {
	m := make(map[string]string)
	for _, e := range entries {
		if e.Description != "" {
			m[e.Href] = e.Description
		}
	}
	return m
}
