package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
)

// pagingNames are names in several scripts and cases, with duplicates: the
// list's order is PostgreSQL's lower(), whose folding of letters outside
// ASCII depends on the database's locale (a C-locale cluster folds none).
var pagingNames = [][2]string{
	{"Ñoño", "Pérez"}, {"Óscar", "Núñez"}, {"Úrsula", "Ødegaard"}, {"Øystein", "Ødegaard"},
	{"Émile", "Zola"}, {"émile", "zola"}, {"ÉMILE", "ZOLA"},
	{"Ana", "Álvarez"}, {"ana", "álvarez"}, {"Ana", "Álvarez"},
	{"Αλέξανδρος", "Παπαδόπουλος"}, {"ΑΛΈΞΑΝΔΡΟΣ", "ΠΑΠΑΔΌΠΟΥΛΟΣ"}, {"Ωμέγα", "Σίσυφος"},
	{"Дмитрий", "Иванов"}, {"дмитрий", "иванов"}, {"Ёлка", "Щукина"},
	{"李", "小龍"}, {"王", "芳"}, {"王", "芳"},
	{"İlker", "Şahin"}, {"Straße", "Groß"}, {"Ǆemal", "Ǉubić"},
	{"Zoë", "Smith"}, {"Bob", "Smith"}, {"Bob", "Smith"}, {"bob", "smith"}, {"BOB", "SMITH"},
	{"Pat|ty", "O'Neil"}, {"Ángel", ""}, {"", "Ñ"},
}

// pagedEmployee is what the test knows of an employee it inserted.
type pagedEmployee struct {
	linked bool
	team   bool // has the word "team" in its email
}

func TestListEmployeesPagesEveryoneOnceWhateverTheScript(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	inserted := map[int64]pagedEmployee{}
	for i, n := range pagingNames {
		p := pagedEmployee{linked: i%3 == 0, team: i%2 == 0}
		state, local := store.InviteInvited, fmt.Sprintf("p%02d", i)
		if p.linked {
			state = store.InviteLinked
		}
		if p.team {
			local = "team." + local
		}
		e, err := st.UpsertEmployee(ctx, store.Employee{Email: local + "@x.example", FirstName: n[0], LastName: n[1], InviteState: state})
		if err != nil {
			t.Fatal(err)
		}
		inserted[e.ID] = p
	}
	// Ties on the activity order: half the employees share one instant.
	if _, err := st.Pool().Exec(ctx, `UPDATE employees SET last_activity_at = $1 WHERE id % 2 = 0`,
		time.Date(2026, 11, 22, 10, 0, 0, 123456000, time.UTC)); err != nil {
		t.Fatal(err)
	}

	filters := []struct {
		name   string
		filter store.EmployeeFilter
		keep   func(pagedEmployee) bool
	}{
		{"everyone", store.EmployeeFilter{}, func(pagedEmployee) bool { return true }},
		{"linked", store.EmployeeFilter{InviteState: store.InviteLinked}, func(p pagedEmployee) bool { return p.linked }},
		{"search team", store.EmployeeFilter{Search: "TEAM"}, func(p pagedEmployee) bool { return p.team }},
		{"search team, linked", store.EmployeeFilter{Search: "team", InviteState: store.InviteLinked},
			func(p pagedEmployee) bool { return p.team && p.linked }},
	}
	lists := []struct {
		name string
		list func(store.EmployeeFilter) ([]store.Employee, string, error)
	}{
		{"ListEmployees", func(f store.EmployeeFilter) ([]store.Employee, string, error) {
			p, err := st.ListEmployees(ctx, f)
			return p.Employees, p.Next, err
		}},
		{"ListEmployeesWithReadiness", func(f store.EmployeeFilter) ([]store.Employee, string, error) {
			p, err := st.ListEmployeesWithReadiness(ctx, f)
			return p.Employees, p.Next, err
		}},
	}
	for _, l := range lists {
		for _, sort := range []string{store.SortName, store.SortActivity} {
			for _, fc := range filters {
				var want []int64
				for id, p := range inserted {
					if fc.keep(p) {
						want = append(want, id)
					}
				}
				// The order of one page holding everyone is the order pages
				// must walk.
				all := fc.filter
				all.Sort, all.Limit = sort, 1000
				one, next, err := l.list(all)
				if err != nil || next != "" {
					t.Fatalf("%s %s %s: one page: next %q, %v", l.name, sort, fc.name, next, err)
				}
				order := idsOf(one)
				if got := slices.Sorted(slices.Values(order)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
					t.Fatalf("%s %s %s: one page has %d employees, want %d", l.name, sort, fc.name, len(got), len(want))
				}
				for _, size := range []int{1, 2, 50} {
					f := fc.filter
					f.Sort, f.Limit = sort, size
					var walked []int64
					for pages := 0; ; pages++ {
						if pages > len(want)+1 {
							t.Errorf("%s %s %s size %d: paging does not end", l.name, sort, fc.name, size)
							break
						}
						list, next, err := l.list(f)
						if err != nil {
							t.Fatalf("%s %s %s size %d: %v", l.name, sort, fc.name, size, err)
						}
						if len(list) > size {
							t.Fatalf("%s %s %s size %d: page of %d", l.name, sort, fc.name, size, len(list))
						}
						walked = append(walked, idsOf(list)...)
						if next == "" {
							break
						}
						f.After = next
					}
					if !slices.Equal(walked, order) {
						t.Errorf("%s %s %s size %d: pages walked %d employees (%s), want all %d once in order (%s)",
							l.name, sort, fc.name, size, len(walked), namesOf(t, st, walked), len(order), namesOf(t, st, order))
					}
				}
			}
		}
	}
}

func idsOf(list []store.Employee) []int64 {
	ids := make([]int64, len(list))
	for i, e := range list {
		ids[i] = e.ID
	}
	return ids
}

func namesOf(t *testing.T, st *store.Store, ids []int64) string {
	t.Helper()
	names := make([]string, len(ids))
	for i, id := range ids {
		e, err := st.EmployeeByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		names[i] = e.FirstName + " " + e.LastName
	}
	return strings.Join(names, ", ")
}
