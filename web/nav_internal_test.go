package web

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"partneradmin/store"
	"partneradmin/views"
)

// TestNavigationCoversEveryArea: every page a role may open (a GET route
// that answers HTML, outside the public, account and device pages and the
// scrapers' /metrics) lies
// in an area its navigation shows, and that entry is marked current there.
func TestNavigationCoversEveryArea(t *testing.T) {
	t.Parallel()
	routes := (&App{}).routes()
	for _, role := range store.Roles() {
		for _, r := range routes {
			p := r.Pattern
			if r.Method != "GET" || !role.Can(r.Permission) || r.Permission == store.PermPublic || r.Permission == store.PermSignedIn ||
				strings.Contains(p, ".csv") || strings.HasPrefix(p, "/sign/") || p == "/metrics" {
				continue
			}
			path := strings.NewReplacer("{id}", "x1", "{rid}", "2", "{token}", "t", "*", "x").Replace(p)
			var current []string
			for _, item := range navFor(navigation(), role, path) {
				if item.Active {
					current = append(current, item.Label)
				}
			}
			if len(current) != 1 {
				t.Errorf("%s at %s: current areas %v, want one", role, p, current)
			}
		}
	}
}

// TestNavigationMenus: every area but the start page sits in exactly one
// menu of the navigation bar, and every path a menu names is an area.
func TestNavigationMenus(t *testing.T) {
	t.Parallel()
	areas := make(map[string]bool)
	for _, e := range navigation() {
		areas[e.Href] = true
	}
	seen := make(map[string]string)
	for _, m := range navMenus() {
		if len(m.Hrefs) == 0 {
			t.Errorf("menu %s holds no area", m.Label)
		}
		for _, h := range m.Hrefs {
			if !areas[h] {
				t.Errorf("menu %s names %s, which is not in navigation()", m.Label, h)
			}
			if other, ok := seen[h]; ok {
				t.Errorf("%s is in menus %s and %s", h, other, m.Label)
			}
			seen[h] = m.Label
		}
	}
	for _, e := range navigation() {
		if _, ok := seen[e.Href]; !ok && e.Href != "/" {
			t.Errorf("area %s (%s) is in no menu of navMenus()", e.Label, e.Href)
		}
	}
}

// TestNavigationRendered renders the layout for every role: each link the
// role may use is there once, inside its menu (or on its own when the
// menu would hold one link), no link it may not use is there, no menu is
// empty, the page's link is current and so is its menu, and support sees
// no money menu.
func TestNavigationRendered(t *testing.T) {
	t.Parallel()
	for _, role := range store.Roles() {
		t.Run(string(role), func(t *testing.T) {
			path := "/treasury/wallets/x1"
			if !role.Can(store.PermTreasury) {
				path = "/employees/x1"
			}
			p := views.Page{Title: "t", Viewer: &views.Viewer{Name: "n", RoleLabel: role.Label()}, Nav: navFor(navigation(), role, path)}
			var b strings.Builder
			if err := views.Layout(p, templ.NopComponent).Render(t.Context(), &b); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			nav := doc.Find(`nav[aria-label="Main"][data-testid="nav"]`)
			if nav.Length() != 1 {
				t.Fatalf("%d main navigations", nav.Length())
			}
			menuOf := navMenuOf(navMenus())
			for _, e := range navigation() {
				links := nav.Find(`a[href="` + e.Href + `"]`)
				if !role.Can(e.Permission) {
					if links.Length() != 0 {
						t.Errorf("%s is shown but the role may not use it", e.Href)
					}
					continue
				}
				if links.Length() != 1 {
					t.Errorf("%s shown %d times", e.Href, links.Length())
					continue
				}
				menu := links.Closest("details[data-nav-menu]")
				if menu.Length() == 1 && menu.Find("summary").Text() != menuOf[e.Href] {
					t.Errorf("%s is in menu %q, want %q", e.Href, menu.Find("summary").Text(), menuOf[e.Href])
				}
			}
			nav.Find("details[data-nav-menu]").Each(func(_ int, d *goquery.Selection) {
				if n := d.Find("ul a").Length(); n < 2 {
					t.Errorf("menu %q holds %d links", d.Find("summary").Text(), n)
				}
			})
			current := nav.Find(`a[aria-current="page"]`)
			if current.Length() != 1 {
				t.Fatalf("%d current links", current.Length())
			}
			if d := current.Closest("details[data-nav-menu]"); d.Length() == 1 {
				if v, _ := d.Find("summary").Attr("aria-current"); v != "true" {
					t.Errorf("the current page's menu %q is not marked", d.Find("summary").Text())
				}
			}
			if n := nav.Find(`summary[aria-current]`).Length(); n > 1 {
				t.Errorf("%d menus marked current", n)
			}
			money := nav.Find(`[data-testid="nav-group-money"]`).Length()
			if want := role.Can(store.PermTreasury) || role.Can(store.PermApprovalsRead); (money == 1) != want {
				t.Errorf("money menu shown: %v, want %v", money == 1, want)
			}
		})
	}
}
