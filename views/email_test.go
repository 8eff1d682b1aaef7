package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// An address in a narrow column may wrap before its "@" only: the two
// parts do not wrap inside.
func TestEmailWrapsOnlyBeforeTheAt(t *testing.T) {
	var b strings.Builder
	if err := EmployeeListRows([]EmployeeRow{{ID: 1, Name: "Lucía Hernández", Email: "lucia.hernandez@acme-payroll.example"}}, time.Time{}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<table>" + b.String() + "</table>"))
	if err != nil {
		t.Fatal(err)
	}
	cell := doc.Find(`[data-testid="employee-email"]`)
	var parts []string
	cell.Find(".email-part").Each(func(_ int, s *goquery.Selection) { parts = append(parts, s.Text()) })
	if strings.Join(parts, "|") != "lucia.hernandez|@acme-payroll.example" || cell.Find("wbr").Length() != 1 {
		t.Fatalf("email cell %q: parts %q", cell.Text(), parts)
	}
	if got := strings.TrimSpace(cell.Text()); got != "lucia.hernandez@acme-payroll.example" {
		t.Fatalf("the address reads %q", got)
	}
}
