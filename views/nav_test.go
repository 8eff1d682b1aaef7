package views

import (
	"reflect"
	"testing"
)

func TestNavGroups(t *testing.T) {
	tests := []struct {
		name  string
		items []NavItem
		want  []string // label, then "menu" or "link", then the hrefs
		act   []bool
	}{
		{
			name: "a group's items gather where its first comes",
			items: []NavItem{{Label: "Start", Href: "/"}, {Label: "Employees", Href: "/e", Group: "People"},
				{Label: "Treasury", Href: "/t", Group: "Money", Active: true}, {Label: "Staff", Href: "/s", Group: "People"},
				{Label: "Payroll", Href: "/p", Group: "Money"}},
			want: []string{"Start link /", "People menu /e /s", "Money menu /t /p"},
			act:  []bool{false, false, true},
		},
		{
			name:  "a group of one link is the link",
			items: []NavItem{{Label: "Cards", Href: "/c", Group: "Cards"}, {Label: "Notifications", Href: "/n", Group: "Settings", Active: true}},
			want:  []string{"Cards link /c", "Notifications link /n"},
			act:   []bool{false, true},
		},
		{name: "no items, no groups", items: nil, want: nil, act: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var act []bool
			for _, g := range NavGroups(tt.items) {
				kind := "link"
				if g.Menu() {
					kind = "menu"
				}
				s := g.Label + " " + kind
				for _, it := range g.Items {
					s += " " + it.Href
				}
				got = append(got, s)
				act = append(act, g.Active)
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(act, tt.act) {
				t.Errorf("got %q %v, want %q %v", got, act, tt.want, tt.act)
			}
		})
	}
}
