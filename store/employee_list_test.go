package store_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"partneradmin/store"
)

func TestListEmployeesKeysetPagesSearchAndFilters(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	for i := 0; i < 23; i++ {
		state := store.InviteInvited
		if i%3 == 0 {
			state = store.InviteLinked
		}
		if _, err := st.UpsertEmployee(ctx, store.Employee{Email: fmt.Sprintf("p%02d@x.example", i), FirstName: "Pat", LastName: fmt.Sprintf("Name%02d", 22-i),
			InviteState: state, ServiceUserID: map[bool]string{true: fmt.Sprintf("svc_%02d", i)}[i%3 == 0]}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.UpsertEmployee(ctx, store.Employee{Kind: store.KindTreasury, Email: "t@x.example", FirstName: "Treasury"}); err != nil {
		t.Fatal(err)
	}
	for _, sort := range []string{store.SortName, store.SortActivity} {
		seen := map[int64]bool{}
		f := store.EmployeeFilter{Sort: sort, Limit: 5}
		pages := 0
		var prev string
		for {
			page, err := st.ListEmployees(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range page.Employees {
				if seen[e.ID] {
					t.Fatalf("%s: %s on two pages", sort, e.Email)
				}
				if e.Kind != store.KindEmployee {
					t.Fatalf("treasury user listed")
				}
				if sort == store.SortName && prev != "" && e.LastName < prev {
					t.Fatalf("not sorted by name: %s after %s", e.LastName, prev)
				}
				prev = e.LastName
				seen[e.ID] = true
			}
			if page.Next == "" {
				break
			}
			f.After = page.Next
		}
		if len(seen) != 23 || pages != 5 {
			t.Fatalf("%s: %d employees on %d pages", sort, len(seen), pages)
		}
	}
	page, err := st.ListEmployees(ctx, store.EmployeeFilter{Search: "SVC_0", Limit: 50})
	if err != nil || len(page.Employees) != 4 { // svc_00, 03, 06, 09
		t.Fatalf("search by serviceUserId: %d %v", len(page.Employees), err)
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{Search: "_", Limit: 50})
	if len(page.Employees) != 0 {
		t.Fatalf("punctuation alone matches no one (and is no wildcard): %d rows", len(page.Employees))
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{InviteState: store.InviteLinked, Limit: 50})
	if len(page.Employees) != 8 {
		t.Fatalf("state filter: %d", len(page.Employees))
	}
	e := page.Employees[0]
	if err := st.SaveOnboarding(ctx, e.ID, []store.Snapshot{{Kind: "kyc_readiness", Body: []byte(`{"canActivate":false}`), ReadAt: time.Now()}},
		[]store.ReadinessCell{{Currency: "USD", State: store.ReadyMissing, Missing: []string{"bvn"}, ReadAt: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{Currency: "USD", Readiness: store.ReadyMissing, Limit: 50})
	if len(page.Employees) != 1 || page.Employees[0].ID != e.ID {
		t.Fatalf("readiness filter: %+v", page.Employees)
	}
	page, _ = st.ListEmployees(ctx, store.EmployeeFilter{Currency: "USD", Readiness: store.ReadyNotStarted, Limit: 50})
	if len(page.Employees) != 22 {
		t.Fatalf("not started: %d", len(page.Employees))
	}
	if _, err := st.ListEmployees(ctx, store.EmployeeFilter{After: "garbage"}); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("bad cursor: %v", err)
	}
}

func TestEmployeeSearchMatchesTheStartOfWords(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	people := []store.Employee{
		{Email: "ada.lovelace@analytical.example", FirstName: "Ada", LastName: "Lovelace", ServiceUserID: "3f2a9c1e-77b0-4c5e-9d1a-0b5e6f7a8b9c"},
		{Email: "grace@navy.example", FirstName: "Grace", LastName: "Hopper"},
		{Email: "jason.o'neil@x.example", FirstName: "Jason", LastName: "O'Neil"},
		{Email: "zoe@x.example", FirstName: "Zoë", LastName: "Ñúñez"},
		{Email: "50%off@x.example", FirstName: "Percy", LastName: "Under_Score"},
	}
	for _, e := range people {
		if _, err := st.UpsertEmployee(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"ada", []string{"Ada"}},
		{"ADA LOVE", []string{"Ada"}},                        // every word must start a word, any case
		{"lovelace ada", []string{"Ada"}},                    // in any order
		{"ada.lovelace@analytical.example", []string{"Ada"}}, // a whole email pasted
		{"analyt", []string{"Ada"}},                          // the email's domain
		{"3f2a9c1e-77b0-4c5e", []string{"Ada"}},              // a serviceUserId's start
		{"77b0", []string{"Ada"}},                            // a later part of it
		{"ove", nil},                                         // the middle of a word does not match
		{"son", nil},                                         // nor its end ("Jason")
		{"o'neil", []string{"Jason"}},
		{"neil", []string{"Jason"}},
		{"x.example", []string{"Jason", "Percy", "Zoë"}},
		{"zoë", []string{"Zoë"}}, // letters outside ASCII are word characters
		{"ñúñ", []string{"Zoë"}},
		{"zo", []string{"Zoë"}},
		{"50%", []string{"Percy"}}, // % and _ are no wildcards
		{"under_score", []string{"Percy"}},
		{"a%", []string{"Ada"}},    // "a" starts "ada" and "analytical", no word of the others
		{"ÑÚÑEZ", []string{"Zoë"}}, // case folds outside ASCII too
		{"ada hopper", nil},
		{"@", nil},
	} {
		page, err := st.ListEmployees(ctx, store.EmployeeFilter{Search: tc.q, Limit: 50})
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		var got []string
		for _, e := range page.Employees {
			got = append(got, e.FirstName)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("search %q = %v, want %v", tc.q, got, tc.want)
		}
	}

	// A change of name or email changes what finds the employee.
	grace := people[1]
	grace.LastName = "Murray"
	if _, err := st.UpsertEmployee(ctx, grace); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{"hopper": 0, "murray": 1, "grace": 1} {
		page, err := st.ListEmployees(ctx, store.EmployeeFilter{Search: q, Limit: 50})
		if err != nil || len(page.Employees) != want {
			t.Errorf("after the rename, %q finds %d (%v), want %d", q, len(page.Employees), err, want)
		}
	}
}

// TestEmployeeSearchAgreesWithItsDefinition checks the list's search, all
// three ways it is read (by id for a rare longest word, walking the list's
// order for a word of almost everyone, one planned statement in between),
// against a plain reading of its rule: every typed word starts a word of
// the name, email or serviceUserId.
func TestEmployeeSearchAgreesWithItsDefinition(t *testing.T) {
	t.Parallel()
	st := migratedStore(t)
	ctx := context.Background()
	// 2,500 people: "example" in every email, "Maria" (every third), "Mar…"
	// surnames, and rarer words.
	_, err := st.Pool().Exec(ctx, `
		INSERT INTO employees (kind, email, first_name, last_name, invite_state, service_user_id, last_activity_at)
		SELECT 'employee', lower((ARRAY['ana','maria','marco','li'])[1 + i % 4]) || '.' || i || '@' || (ARRAY['acme','mars-co'])[1 + i % 2] || '.example',
			(ARRAY['Ana','Maria','Marco','Li','Maria','Bo'])[1 + i % 6], (ARRAY['Marsh','Lopez','Ng','Marquez','Okafor'])[1 + i % 5] || i % 37,
			(ARRAY['invited','linked'])[1 + i % 2], CASE WHEN i % 3 = 0 THEN NULL ELSE 'svc-' || md5(i::text) END,
			now() - (i % 50) * interval '1 minute'
		FROM generate_series(1, 2500) AS i`)
	if err != nil {
		t.Fatal(err)
	}
	type person struct {
		id       int64
		name     string
		words    []string
		state    string
		activity time.Time
	}
	rows, err := st.Pool().Query(ctx, `SELECT id, first_name, last_name, email, coalesce(service_user_id, ''), invite_state, last_activity_at FROM employees`)
	if err != nil {
		t.Fatal(err)
	}
	var all []person
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
		})
	}
	for rows.Next() {
		var p person
		var first, last, email, svc string
		if err := rows.Scan(&p.id, &first, &last, &email, &svc, &p.state, &p.activity); err != nil {
			t.Fatal(err)
		}
		p.name = strings.ToLower(first + " " + last)
		p.words = split(first + " " + last + " " + email + " " + svc)
		all = append(all, p)
	}
	matches := func(p person, q string) bool {
		typed := split(q)
		if len(typed) == 0 {
			return false
		}
		for _, w := range typed {
			if !slices.ContainsFunc(p.words, func(x string) bool { return strings.HasPrefix(x, w) }) {
				return false
			}
		}
		return true
	}
	for q, mode := range map[string]string{"example": "walking", "bo": "planned", "marquez1": "by id", "ana marsh4": "by id"} {
		plan, err := st.ExplainEmployeeSearch(ctx, store.EmployeeFilter{Search: q})
		if err != nil || !strings.Contains(plan, mode) {
			t.Errorf("%q is not read %s: %v\n%s", q, mode, err, plan)
		}
	}
	for _, q := range []string{"mar", "maria", "example", "example ana", "EXAMPLE li.1", "ana marsh4", "bo", "bo marsh", "MARIA marsh", "marsh maria", "m", "mars-co", "marco 12", "ana.4", "svc", "li ng3", "bo okafor", "zz", "example acme", "marquez1"} {
		for _, sort := range []string{store.SortName, store.SortActivity} {
			for _, state := range []string{"", store.InviteLinked} {
				var want []int64
				var cands []person
				for _, p := range all {
					if matches(p, q) && (state == "" || p.state == state) {
						cands = append(cands, p)
					}
				}
				slices.SortFunc(cands, func(a, b person) int {
					if sort == store.SortActivity {
						if c := b.activity.Compare(a.activity); c != 0 {
							return c
						}
						return cmp.Compare(b.id, a.id)
					}
					if c := strings.Compare(a.name, b.name); c != 0 {
						return c
					}
					return cmp.Compare(a.id, b.id)
				})
				for _, p := range cands {
					want = append(want, p.id)
				}
				var got []int64
				f := store.EmployeeFilter{Search: q, Sort: sort, InviteState: state, Limit: 300}
				for {
					page, err := st.ListEmployees(ctx, f)
					if err != nil {
						t.Fatalf("%q: %v", q, err)
					}
					for _, e := range page.Employees {
						got = append(got, e.ID)
					}
					if page.Next == "" {
						break
					}
					f.After = page.Next
				}
				if !slices.Equal(got, want) {
					t.Errorf("search %q sort %s state %q: %d people %v…, want %d %v…", q, sort, state, len(got), head(got), len(want), head(want))
				}
			}
		}
	}
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }
