package views

import (
	"context"
	"io"
	"testing"

	"github.com/a-h/templ"
)

// BenchmarkLayoutOwner renders the layout around an empty body for the
// owner, whose navigation is the longest: the part every page pays, with
// the navigation rendered each time and with it kept (Page.NavMarkup, as
// the web layer serves it).
func BenchmarkLayoutOwner(b *testing.B) {
	var nav []NavItem
	for _, it := range []struct{ label, href, group string }{
		{"Start", "/", ""}, {"Employees", "/employees", "People"}, {"Approvals", "/approvals", "Money"},
		{"Treasury", "/treasury", "Money"}, {"Money out", "/money-out", "Money"}, {"Payroll", "/payroll", "Money"},
		{"Activity", "/activity", "Money"}, {"Cards", "/cards", "Cards"}, {"Staff", "/staff", "People"},
		{"Audit log", "/audit", "Operations"}, {"API requests", "/actions", "Operations"}, {"Events", "/events", "Operations"},
		{"Webhooks", "/settings/webhooks", "Settings"}, {"Notifications", "/account/notifications", "Settings"},
		{"Second factor", "/settings/security", "Settings"}, {"Single sign-on", "/settings/sign-in", "Settings"},
	} {
		nav = append(nav, NavItem{Label: it.label, Href: it.href, Group: it.group, Active: it.href == "/employees"})
	}
	p := Page{Title: "Employees", Viewer: &Viewer{Name: "Owner One", Email: "owner@example.test", RoleLabel: "Owner"}, Nav: nav}
	body := templ.NopComponent
	run := func(b *testing.B, p Page) {
		b.ReportAllocs()
		for b.Loop() {
			if err := Layout(p, body).Render(context.Background(), io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("nav rendered", func(b *testing.B) { run(b, p) })
	kept, err := RenderBytes(NavBar(nav))
	if err != nil {
		b.Fatal(err)
	}
	p.NavMarkup = kept
	b.Run("nav kept", func(b *testing.B) { run(b, p) })
}
