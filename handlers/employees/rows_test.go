package employees

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"partneradmin/store"
	"partneradmin/views"
)

func sampleListed(n int) ([]store.Employee, map[int64]map[string]store.ReadinessCell) {
	at := time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)
	states := []string{store.ReadyMissing, store.ReadyToActivate, store.ReadyOnboarding, store.ReadyActive, store.ReadyFailed, store.ReadyRejected}
	list := make([]store.Employee, n)
	readiness := map[int64]map[string]store.ReadinessCell{}
	for i := range list {
		id := int64(100 + i)
		list[i] = store.Employee{ID: id, FirstName: "Person" + strconv.Itoa(i), LastName: "First", Email: "p" + strconv.Itoa(i) + "@load.example",
			InviteState: inviteStates()[i%5], LastActivityAt: at.Add(-time.Duration(i) * time.Minute)}
		if i%7 == 3 {
			continue // not read in any currency
		}
		cells := map[string]store.ReadinessCell{}
		for j, c := range store.ReadinessCurrencies() {
			if (i+j)%11 == 4 {
				continue // not read in this one
			}
			cell := store.ReadinessCell{EmployeeID: id, Currency: c, State: states[(i+j)%6], ReadAt: at}
			if cell.State == store.ReadyMissing {
				cell.Missing = []string{"employment.occupationCode", "identificationNumbers.ssn"}
				if i%2 == 0 {
					cell.Missing = cell.Missing[:1]
				}
			}
			if cell.State == store.ReadyRejected {
				cell.Detail = "Documents unreadable"
			}
			cells[c] = cell
		}
		readiness[id] = cells
	}
	return list, readiness
}

// employeeRows builds each cell as cellView does for one employee's page.
func TestEmployeeRowsCellsAsCellView(t *testing.T) {
	list, readiness := sampleListed(60)
	rows := employeeRows(list, readiness)
	if len(rows) != len(list) {
		t.Fatalf("%d rows for %d employees", len(rows), len(list))
	}
	for i, e := range list {
		r := rows[i]
		if r.ID != e.ID || r.Name != e.Name() || r.Email != e.Email || r.InviteLabel != views.StatusLabel(views.StatusInvite, e.InviteState) ||
			!r.LastActivity.Equal(e.LastActivityAt) {
			t.Errorf("row %d: %+v from %+v", i, r, e)
		}
		if len(r.Cells) != len(store.ReadinessCurrencies()) {
			t.Fatalf("row %d: %d cells", i, len(r.Cells))
		}
		for j, cur := range store.ReadinessCurrencies() {
			c, ok := readiness[e.ID][cur]
			if want := cellView(cur, c, ok); !reflect.DeepEqual(r.Cells[j], want) {
				t.Errorf("row %d %s: %+v, want %+v", i, cur, r.Cells[j], want)
			}
		}
	}
}

// go test ./handlers/employees -run '^$' -bench EmployeeRows -benchmem
func BenchmarkEmployeeRows25(b *testing.B) {
	list, readiness := sampleListed(25)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		employeeRows(list, readiness)
	}
}
