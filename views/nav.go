package views

import "strings"

// NavGroup is one place in the navigation bar: a menu of links, or a
// single link. Groups come from the flat list the handlers hold
// (Page.Nav), which keeps the order of the areas for the start page.
type NavGroup struct {
	// Label is the menu's name; for a single link, the link's own label.
	Label string
	Items []NavItem
	// Active is set when the current page lies in one of the items.
	Active bool
}

// Menu reports whether the group opens as a menu: it has a name and more
// than one link. A group of one link shows the link itself, so that no
// menu offers a single choice.
func (g NavGroup) Menu() bool { return len(g.Items) > 1 }

// Link is the group's only item, for a group shown as a link.
func (g NavGroup) Link() NavItem { return g.Items[0] }

// NavGroups gathers the items into their groups, each where its first item
// comes, the items of a group in their order. An item without a group is a
// group of its own. A group with no items does not exist, so a role sees
// only the menus it has links in.
func NavGroups(items []NavItem) []NavGroup {
	var groups []NavGroup
	at := make(map[string]int)
	for _, it := range items {
		i, ok := at[it.Group]
		if it.Group == "" || !ok {
			label := it.Group
			if label == "" {
				label = it.Label
			}
			groups = append(groups, NavGroup{Label: label})
			i = len(groups) - 1
			if it.Group != "" {
				at[it.Group] = i
			}
		}
		groups[i].Items = append(groups[i].Items, it)
		groups[i].Active = groups[i].Active || it.Active
	}
	for i := range groups {
		if !groups[i].Menu() {
			groups[i].Label = groups[i].Items[0].Label
		}
	}
	return groups
}

// ID is the group's name for tests and styles: its label in lower case,
// spaces as dashes.
func (g NavGroup) ID() string {
	return strings.ReplaceAll(strings.ToLower(g.Label), " ", "-")
}
