package web_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Every list with a CSV download offers it twice: plain UTF-8 for scripts
// and the spreadsheet form, the same bytes after a UTF-8 byte-order mark.
func TestCSVDownloadsInBothForms(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	lists := []string{"/employees", "/employees/readiness", "/approvals", "/approvals/history", "/audit", "/actions",
		"/cards", "/events", "/activity", "/payroll", "/payroll/new", "/controls", "/treasury", "/staff"}
	for _, path := range lists {
		resp := env.Get(c, path)
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			t.Errorf("GET %s: %d", path, resp.StatusCode)
			continue
		}
		doc := webtest.Doc(t, resp)
		plain := doc.Find(`a[href*=".csv"]:not([href*="for=spreadsheet"])`)
		sheet := doc.Find(`a[href*=".csv"][href*="for=spreadsheet"]`)
		if plain.Length() == 0 || plain.Length() != sheet.Length() {
			t.Errorf("%s: %d plain CSV links, %d for a spreadsheet", path, plain.Length(), sheet.Length())
		}
	}

	bom := []byte("\xEF\xBB\xBF")
	for _, path := range []string{"/employees.csv", "/staff.csv", "/treasury/balances.csv", "/payroll/template.csv"} {
		plain := []byte(webtest.ReadBody(t, env.Get(c, path)))
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		resp := env.Get(c, path+sep+"for=spreadsheet")
		sheet := []byte(webtest.ReadBody(t, resp))
		if bytes.HasPrefix(plain, bom) || len(plain) == 0 {
			t.Errorf("%s: the plain form starts %q", path, plain[:min(len(plain), 8)])
		}
		if !bytes.Equal(sheet, append(append([]byte{}, bom...), plain...)) {
			t.Errorf("%s: the spreadsheet form is not the plain one after a byte-order mark: starts %q", path, sheet[:min(len(sheet), 8)])
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
	}
}
