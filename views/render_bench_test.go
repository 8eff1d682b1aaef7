package views

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/shopspring/decimal"
)

// The heavy pages' bodies rendered from fixed view models, for their CPU
// and allocations without the database or the layout:
//
//	go test ./views -run '^$' -bench Render -benchmem

var benchAt = time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)

func benchEmployeeRows(n int) []EmployeeRow {
	currencies := []string{"USD", "EUR", "MXN", "NGN", "GBP"}
	rows := make([]EmployeeRow, n)
	for i := range rows {
		cells := make([]ReadinessCellView, len(currencies))
		for j, c := range currencies {
			cells[j] = ReadinessCellView{Currency: c, State: "active", Label: "active"}
			if (i+j)%3 == 0 {
				read := benchAt
				cells[j] = ReadinessCellView{Currency: c, State: "missing", Label: "missing 2 fields",
					Missing: []string{"Date of birth", "Street address"}, ReadAt: &read}
			}
		}
		if i%7 == 0 {
			cells[0] = ReadinessCellView{Currency: "USD", State: "failed", Label: "failed", Detail: "The API said <no> & \"why\""}
		}
		if i%11 == 0 {
			cells[1] = ReadinessCellView{Currency: "EUR", State: "not_read", Label: "not read yet"}
		}
		id := strconv.Itoa(1000 + i)
		name := "Person " + id + " First"
		if i%5 == 0 {
			name = "Zoë O'Brien & <Co> " + id
		}
		last := benchAt.Add(-time.Duration(i) * time.Hour)
		if i%9 == 0 {
			last = time.Time{}
		}
		rows[i] = EmployeeRow{ID: int64(1000 + i), Name: name, Email: "person" + id + "@example.com",
			ServiceUserID: "su-" + id, InviteState: []string{"linked", "invited", "action_required"}[i%3], InviteLabel: "linked", LastActivity: last,
			Cells: cells}
	}
	return rows
}

func benchRender(b *testing.B, c templ.Component) {
	b.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := c.Render(context.Background(), &buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderEmployeeList25(b *testing.B) {
	opts := []Option{{Value: "", Label: "Any"}, {Value: "a", Label: "A"}, {Value: "b", Label: "B"}}
	v := EmployeeListView{Columns: []string{"USD", "EUR", "MXN", "NGN", "GBP"}, Rows: benchEmployeeRows(25), CanWrite: true,
		States: opts, Currencies: opts, Readiness: opts, Sorts: opts,
		CSVURL: "/employees.csv", SelfURL: "/employees?since=1", NextURL: "/employees?after=abc"}
	benchRender(b, EmployeeListPage(v))
}

func BenchmarkRenderReadinessMatrix50(b *testing.B) {
	opts := []Option{{Value: "", Label: "Any"}, {Value: "a", Label: "A"}, {Value: "b", Label: "B"}}
	v := ReadinessMatrixView{Columns: []string{"USD", "EUR", "MXN", "NGN", "GBP"}, Rows: benchEmployeeRows(50),
		States: opts, Currencies: opts, Readiness: opts, CSVURL: "/employees/readiness.csv", SelfURL: "/employees/readiness?since=1"}
	for _, c := range v.Columns {
		v.Totals = append(v.Totals, ReadinessTotal{Currency: c, Counts: []Option{{Value: "33", Label: "active"}, {Value: "17", Label: "missing fields"}}})
	}
	benchRender(b, ReadinessMatrixPage(v))
}

func benchActivity() ActivityView {
	v := ActivityView{Filter: ActivityFilterForm{Kinds: []string{"deposit", "withdrawal", "card_transaction", "transfer"}, Fields: FieldErrors{}},
		CSV: "/activity.csv", Older: "/activity?before=x"}
	for i := 0; i < 100; i++ {
		id := strconv.Itoa(1000 + i)
		r := ActivityRow{At: benchAt.Add(-time.Duration(i) * time.Hour), Kind: "card_transaction", ServiceUserID: "0x12ab34cd56ef78901234567890abcdef9f3c" + id,
			Amount: "1,234.56", Fee: "0.50", Currency: "USD (USDB)", Reference: "7f0c2a3e-5b1d-4c8e-9a6f-2d3e4f5a6b7c", Status: "completed"}
		if i%2 == 0 {
			r.Employee = "Person " + id
		}
		if i%3 == 0 {
			r.Kind, r.Amount, r.Fee, r.Currency, r.Status = "deposit", "", "", "", "PENDING_THING"
		}
		if i%4 == 1 {
			r.Reference, r.ServiceUserID = "ref-<"+id+">", "short&id"
		}
		if i%10 == 0 {
			r.Reference, r.ServiceUserID = "", "0x12ab34cd56ef78901234567890abcdëf9f3c"
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}

func BenchmarkRenderActivity100(b *testing.B) {
	benchRender(b, ActivityPage(benchActivity()))
}

func benchQueue() ApprovalQueueView {
	v := ApprovalQueueView{Types: []string{"TRANSFER", "SWAP"}, CanAct: true, LinkedAs: "x", SyncedAgo: "5 s ago", PollURL: "/approvals?hx=1",
		CSVURL: "/approvals.csv", Total: 2000, OlderURL: "/approvals?before=x", SignBatchToken: "tok", ReturnTo: "/approvals"}
	for i := 0; i < 50; i++ {
		id := "59e7b667-6c08-44aa-9f00-0000000" + strconv.Itoa(10000+i)
		dl := &benchAt
		if i%4 == 0 {
			dl = nil
		}
		row := ProposalRow{ID: id, Type: "TRANSFER", Amount: Amount{Value: decimal.New(123456, -2), Currency: "USD", Token: "USDB"},
			From: "Payroll wallet", To: "Person " + strconv.Itoa(i), Description: "November stipend", Status: "PENDING_SIGNATURES",
			StatusLabel: "waiting for the owner's signature", Approvals: "2 of 2", Signatures: "0 of 1", Age: "5 min ago", Deadline: dl,
			Selectable: i%2 == 0, Owner: "owner-1", NeedsMe: i%3 == 0}
		if i%5 == 0 {
			row.Description, row.To, row.Type = "", "Zoë & <Co>", "SWAP"
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func BenchmarkRenderApprovalQueue50(b *testing.B) {
	benchRender(b, ApprovalQueuePage(benchQueue()))
}

// The heavy pages' bodies render byte for byte as the golden files kept
// from before their rows were written by hand (go test ./views -run
// TestHeavyPagesGolden -update rewrites them).
func TestHeavyPagesGolden(t *testing.T) {
	opts := []Option{{Value: "", Label: "Any"}, {Value: "a", Label: "A", Selected: true}}
	list := EmployeeListView{Columns: []string{"USD", "EUR", "MXN", "NGN", "GBP"}, Rows: benchEmployeeRows(25), CanWrite: true,
		States: opts, Currencies: opts, Readiness: opts, Sorts: opts,
		CSVURL: "/employees.csv", SelfURL: "/employees?since=1", NextURL: "/employees?after=abc"}
	matrix := ReadinessMatrixView{Columns: list.Columns, Rows: benchEmployeeRows(50), States: opts, Currencies: opts, Readiness: opts,
		CSVURL: "/employees/readiness.csv", SelfURL: "/employees/readiness?since=1"}
	for _, c := range matrix.Columns {
		matrix.Totals = append(matrix.Totals, ReadinessTotal{Currency: c, Counts: []Option{{Value: "33", Label: "active"}}})
	}
	for _, tt := range []struct {
		name string
		c    templ.Component
	}{
		{"employees", EmployeeListPage(list)},
		{"matrix", ReadinessMatrixPage(matrix)},
		{"activity", ActivityPage(benchActivity())},
		{"queue", ApprovalQueuePage(benchQueue())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.c.Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "page_"+tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != string(want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("differs at byte %d:\n got: %.200s\nwant: %.200s", i, got[i:], want[i:])
			}
		})
	}
}
