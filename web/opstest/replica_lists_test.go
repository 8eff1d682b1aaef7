package opstest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/web"
	"partneradmin/web/webtest"
)

// TestListPagesFollowChangesOnTheOtherReplica: a change committed through
// the other replica's database connection shows at the very next request,
// on every list page it concerns.
func TestListPagesFollowChangesOnTheOtherReplica(t *testing.T) {
	t.Parallel()
	a := webtest.New(t, webtest.Options{EncryptionKey: web.Secret(strings.Repeat("6b", 32))})
	b := webtest.New(t, webtest.Options{ReplicaOf: a})
	ctx := context.Background()
	c, _ := b.SignedIn(store.RoleHRAdmin)
	e, err := a.Store.UpsertEmployee(ctx, store.Employee{Email: "grace@partner.example", FirstName: "Grace", LastName: "Hopper"})
	if err != nil {
		t.Fatal(err)
	}
	page := func(path string) string {
		t.Helper()
		resp := b.Get(c, path)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		return string(body)
	}
	paths := []string{"/employees", "/employees/readiness", "/employees?q=grace", "/employees/readiness?q=hopper"}
	for _, p := range paths {
		// Twice: the second is served from what the first kept.
		for range 2 {
			if body := page(p); !strings.Contains(body, "Grace Hopper") {
				t.Fatalf("%s does not list the new employee", p)
			}
		}
	}

	e.LastName = "Brewster"
	if _, err := a.Store.UpsertEmployee(ctx, e); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/employees", "/employees/readiness", "/employees?q=grace", "/employees/readiness?q=grace"} {
		if body := page(p); !strings.Contains(body, "Grace Brewster") || strings.Contains(body, "Grace Hopper") {
			t.Fatalf("%s after a rename through the other replica: still the old name", p)
		}
	}
	if body := page("/employees/readiness?q=hopper"); strings.Contains(body, "Grace") {
		t.Fatal("the matrix still finds the employee by the old name")
	}

	// A readiness change alone (no change to the employee's row) shows in
	// the matrix's cell and in its chart of the whole workforce.
	before := page("/employees/readiness")
	cell := store.ReadinessCell{EmployeeID: e.ID, Currency: "EUR", State: store.ReadyRejected, Detail: "document unreadable",
		ReadAt: time.Now()}
	if err := a.Store.SaveOnboarding(ctx, e.ID, nil, []store.ReadinessCell{cell}); err != nil {
		t.Fatal(err)
	}
	after := page("/employees/readiness")
	if strings.Contains(before, "document unreadable") || !strings.Contains(after, "document unreadable") {
		t.Fatal("the matrix does not show the readiness changed through the other replica")
	}
	if !strings.Contains(page("/employees"), "document unreadable") {
		t.Fatal("the list does not show the readiness changed through the other replica")
	}
}
