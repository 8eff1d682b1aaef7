package web

import (
	"strings"
	"testing"

	"partneradmin/store"
)

// TestNavigationCoversEveryArea: every page a role may open (a GET route
// that answers HTML, outside the public, account and device pages and the
// scrapers' /metrics) lies
// in an area its navigation shows, and that entry is marked current there.
func TestNavigationCoversEveryArea(t *testing.T) {
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
