package peopletest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// fieldShown checks the design system's pattern for one field of a form
// sent with a mistake: the summary at the top links to the field, the
// error is under it, the control says it is invalid, and what was typed
// is kept.
func fieldShown(t *testing.T, doc *goquery.Document, id, typed string) {
	t.Helper()
	if doc.Find(`[data-testid="error-summary"] a[href="#`+id+`"]`).Length() != 1 {
		t.Errorf("the error summary does not link to #%s: %q", id, webtest.TestID(doc, "error-summary"))
	}
	ctl := doc.Find("#" + id)
	if ctl.Length() != 1 {
		t.Fatalf("no control #%s", id)
	}
	if inv, _ := ctl.Attr("aria-invalid"); inv != "true" {
		t.Errorf("#%s is not marked invalid", id)
	}
	msg := ctl.Parent().Find("#" + id + "-error")
	if strings.TrimSpace(msg.Text()) == "" {
		t.Errorf("no error under #%s", id)
	}
	if d, _ := ctl.Attr("aria-describedby"); !strings.Contains(d, id+"-error") {
		t.Errorf("#%s is not described by its error: %q", id, d)
	}
	if typed != "\x00" {
		v, _ := ctl.Attr("value")
		if ctl.Is("select") {
			v, _ = ctl.Find("option[selected]").Attr("value")
		}
		if v != typed {
			t.Errorf("#%s lost what was typed: %q, want %q", id, v, typed)
		}
	}
	if lbl := doc.Find(`label[for="` + id + `"]`); strings.TrimSpace(lbl.Text()) == "" {
		t.Errorf("#%s has no label", id)
	}
}

func TestEmployeeFiltersShowErrorsNextToTheSearch(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	long := strings.Repeat("a", 101)
	for _, path := range []string{"/employees", "/employees/readiness"} {
		resp := env.Get(c, path+"?state=invited&q="+long)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
		doc := webtest.Doc(t, resp)
		fieldShown(t, doc, "f-q", long)
		if v, _ := doc.Find(`#f-state option[selected]`).Attr("value"); v != "invited" {
			t.Errorf("%s: the state filter was lost: %q", path, v)
		}
		if doc.Find(`[data-testid="employee-row"], [data-testid="matrix-row"]`).Length() != 0 {
			t.Errorf("%s: rows listed for a search that was refused", path)
		}
		if webtest.TestID(doc, "employees-empty")+webtest.TestID(doc, "matrix-empty") == "" {
			t.Errorf("%s: no words on what to do", path)
		}
	}
	// A select's value that is none of its options (a hand-made or stale
	// link) is refused next to it, and nothing is listed or exported.
	for _, path := range []string{"/employees", "/employees/readiness"} {
		resp := env.Get(c, path+"?q=ada&state=zzz&currency=XXX&readiness=nope")
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s with unknown filter values: %d", path, resp.StatusCode)
		}
		doc := webtest.Doc(t, resp)
		for _, id := range []string{"f-state", "f-currency", "f-readiness"} {
			if doc.Find("#"+id+"-error").Length() != 1 || doc.Find(`[data-testid="error-summary"] a[href="#`+id+`"]`).Length() != 1 {
				t.Errorf("%s: no message next to #%s or in the summary", path, id)
			}
		}
		if v, _ := doc.Find("#f-q").Attr("value"); v != "ada" {
			t.Errorf("%s: the search was lost: %q", path, v)
		}
		if doc.Find(`[data-testid="employee-row"], [data-testid="matrix-row"]`).Length() != 0 {
			t.Errorf("%s: rows listed with unknown filter values", path)
		}
	}
	// An order that is none of the listed ones, the same way.
	resp := env.Get(c, "/employees?q=ada&sort=zzz")
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusBadRequest || doc.Find("#f-sort-error").Length() != 1 ||
		doc.Find(`[data-testid="employee-row"]`).Length() != 0 {
		t.Errorf("unknown order: %d, message %d", resp.StatusCode, doc.Find("#f-sort-error").Length())
	}
	if resp := env.Get(c, "/employees?sort=activity"); resp.StatusCode != http.StatusOK {
		t.Errorf("a listed order: %d", resp.StatusCode)
		resp.Body.Close()
	} else {
		resp.Body.Close()
	}
	for _, path := range []string{"/employees.csv?currency=XXX", "/employees/readiness.csv?readiness=nope", "/employees.csv?sort=zzz"} {
		resp := env.Get(c, path)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", path, resp.StatusCode)
		}
	}
	// Every filter control has a real label.
	doc = webtest.Doc(t, env.Get(c, "/employees"))
	doc.Find(`[data-testid="employee-filters"] input, [data-testid="employee-filters"] select`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		if id == "" || doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("filter control %q has no label", id)
		}
	})
}

func TestEmployeePageLeadsBackToTheListAsLeft(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	e, err := env.Store.EmployeeByEmail(context.Background(), env.Demo.Employees[0].Email)
	if err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	for _, tc := range []struct{ referer, want, words string }{
		{"", "/employees", "Employees"},
		{env.URL("/employees?q=ada&state=invited"), "/employees?q=ada&state=invited", "Employees"},
		{env.URL("/employees/readiness?currency=NGN"), "/employees/readiness?currency=NGN", "Readiness by currency"},
		{"https://elsewhere.example/employees?q=x", "/employees", "Employees"},
	} {
		h := http.Header{}
		if tc.referer != "" {
			h.Set("Referer", tc.referer)
		}
		doc := webtest.Doc(t, env.Do(c, http.MethodGet, page, nil, h))
		back := doc.Find(`[data-testid="back-link"]`)
		if href, _ := back.Attr("href"); href != tc.want {
			t.Errorf("from %q: back link %q, want %q", tc.referer, href, tc.want)
		}
		if !strings.Contains(back.Text(), tc.words) {
			t.Errorf("from %q: back link says %q", tc.referer, back.Text())
		}
	}
	if e.ServiceUserID != "" {
		doc := webtest.Doc(t, env.Get(c, page))
		code := doc.Find(`[data-testid="service-user-id"] code`)
		if full, _ := code.Attr("data-full"); full != e.ServiceUserID {
			t.Errorf("service user id %q, want %q", full, e.ServiceUserID)
		}
		if len(e.ServiceUserID) > 16 && (strings.TrimSpace(code.Text()) == e.ServiceUserID || doc.Find(`[data-testid="service-user-id"] button[data-copy]`).Length() != 1) {
			t.Errorf("service user id not shortened with a copy button: %q", code.Text())
		}
	}
}

// TestFilterBarsShowErrorsNextToTheirFields: the activity feed's, the
// audit log's, the approval history's and the event log's filters refuse
// a bad value next to its field, with the summary linking to it and every
// value typed kept.
func TestFilterBarsShowErrorsNextToTheirFields(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleOwner)
	long := strings.Repeat("x", 201)
	for _, tc := range []struct {
		path  string
		typed map[string]string // control id → value typed (kept)
		bad   []string          // control ids with an error
	}{
		{"/activity?currency=12&from=2026-02-31&to=2026-03-01&employee=abc",
			map[string]string{"f-currency": "12", "f-from": "2026-02-31", "f-to": "2026-03-01", "f-employee": "abc"}, []string{"f-currency", "f-from"}},
		{"/audit?q=" + long + "&actor=system&from=not-a-day",
			map[string]string{"f-q": long, "f-actor": "system", "f-from": "not-a-day"}, []string{"f-q", "f-from"}},
		{"/approvals/history?who=" + long[:101] + "&wallet=w-1&to=31/12/2026",
			map[string]string{"f-who": long[:101], "f-wallet": "w-1", "f-to": "31/12/2026"}, []string{"f-who", "f-to"}},
		{"/events?from=yesterday&to=2026-11-22T18:00",
			map[string]string{"f-from": "yesterday", "f-to": "2026-11-22T18:00"}, []string{"f-from"}},
		{"/cards?q=" + long[:101], map[string]string{"f-q": long[:101]}, []string{"f-q"}},
	} {
		resp := env.Get(c, tc.path)
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d", tc.path, resp.StatusCode)
		}
		doc := webtest.Doc(t, resp)
		for _, id := range tc.bad {
			fieldShown(t, doc, id, tc.typed[id])
		}
		for id, v := range tc.typed {
			if got, _ := doc.Find("#" + id).Attr("value"); got != v {
				t.Errorf("%s: #%s lost what was typed: %q", tc.path, id, got)
			}
		}
		if n := doc.Find(`[data-testid="error-summary"] li`).Length(); n != len(tc.bad) {
			t.Errorf("%s: %d problems in the summary, want %d", tc.path, n, len(tc.bad))
		}
		// No control of the bar lacks a label.
		doc.Find(`form.filters input:not([type=hidden]), form.filters select`).Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("id")
			if id == "" || doc.Find(`label[for="`+id+`"]`).Length() != 1 {
				t.Errorf("%s: control %q has no label", tc.path, id)
			}
		})
	}
}

// TestEventLogShortensIDsAndSaysStates: the event log's long delivery and
// source ids are shortened with a copy button and the whole id kept for
// it; states read in words; a delivery's page leads back to the log as
// left and shows no bare enum.
func TestEventLogShortensIDsAndSaysStates(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	secret := webtest.AdoptWebhookSecret(t, env)
	id := "wh-people-0123456789abcdef0123456789"
	garbage := []byte(`{"id":"` + id + `","hello":"world"}`)
	if code := webtest.MustDeliver(t, env, secret, id, garbage); code != http.StatusOK {
		t.Fatalf("delivery: %d", code)
	}
	c, _ := env.SignedIn(store.RoleOwner)
	doc := webtest.Doc(t, env.Get(c, "/events?state=unparseable"))
	row := doc.Find(`[data-testid="event-row"][data-state="unparseable"]`)
	if row.Length() != 1 {
		t.Fatalf("%d unparseable rows", row.Length())
	}
	for _, full := range []string{id, "src-" + id} {
		code := row.Find(`code[data-full="` + full + `"]`)
		if code.Length() != 1 {
			t.Fatalf("id %s not in the row: %s", full, row.Text())
		}
		codeID, _ := code.Attr("id")
		if strings.Contains(code.Text(), full) || row.Find(`button[data-copy="#`+codeID+`"]`).Length() != 1 {
			t.Errorf("id %s not shortened with a copy button: %q", full, code.Text())
		}
	}
	if st := strings.TrimSpace(row.Find(`[data-testid="event-state"]`).Text()); st != "could not be read" {
		t.Errorf("state says %q", st)
	}
	href, _ := row.Find("a").First().Attr("href")
	h := http.Header{"Referer": {env.URL("/events?state=unparseable")}}
	detail := webtest.Doc(t, env.Do(c, http.MethodGet, href, nil, h))
	if back, _ := detail.Find(`[data-testid="back-link"]`).Attr("href"); back != "/events?state=unparseable" {
		t.Errorf("back link %q", back)
	}
	if st := webtest.TestID(detail, "detail-state"); st != "could not be read" {
		t.Errorf("detail state says %q", st)
	}
}

// An error page leads back to the page the person came from on this site
// (an employee's page, for a deletion refused there), never elsewhere.
func TestRefusedDeleteLeadsBackToTheEmployee(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	var id int64
	if err := env.Store.Pool().QueryRow(context.Background(),
		`SELECT id FROM employees WHERE service_user_id IS NULL AND invite_state <> 'deleted' ORDER BY id LIMIT 1`).Scan(&id); err != nil {
		t.Fatalf("no employee who is only invited: %v", err)
	}
	page := fmt.Sprintf("/employees/%d", id)
	e, err := env.Store.EmployeeByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	// The refusal to delete an invited employee leads back to the
	// employee, wherever the person came from (handlers/back_test.go
	// covers the previous-page rule of other error pages).
	name := "Back to " + strings.TrimSpace(e.FirstName+" "+e.LastName)
	for _, tc := range []struct{ referer, want, words string }{
		{env.URL(page), page, name},
		{"https://elsewhere.example" + page, page, name},
		{"", page, name},
	} {
		h := http.Header{}
		if tc.referer != "" {
			h.Set("Referer", tc.referer)
		}
		resp := env.Do(c, http.MethodGet, page+"/delete", nil, h)
		if resp.StatusCode != http.StatusConflict {
			t.Errorf("deleting an employee who is only invited: %d", resp.StatusCode)
		}
		back := webtest.Doc(t, resp).Find(`[data-testid="error-back"]`)
		if href, _ := back.Attr("href"); href != tc.want || strings.TrimSpace(back.Text()) != tc.words {
			t.Errorf("from %q: back link %q %q, want %q %q", tc.referer, href, back.Text(), tc.want, tc.words)
		}
	}
}

// An invite whose email holds a look-alike letter (Cyrillic "а") or an
// invisible character, or whose name holds a bidirectional override, is
// refused next to the field: nothing is stored or sent, and the rest of
// the form is kept.
func TestInviteRefusesLookAlikeEmailsAndInvisibleCharacters(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	before := env.Sandbox.RequestCount("POST", "/v1/partners/employees/invite")
	for _, tc := range []struct{ field, value, want string }{
		{"email", "gr\u0430ce@acme.example", "U+0430"},
		{"email", "grace\u200b@acme.example", "U+200B"},
		{"email", "grace@localhost", "name@company.com"},
		{"name", "Grace \u202eHopper", "U+202E"},
		{"last_name", "Hopper\ufeff", "U+FEFF"},
	} {
		form := webtest.UKInviteForm("lookalike@acme.example")
		form.Set(tc.field, tc.value)
		resp := env.PostForm(c, "/employees/invite", webtest.WithFormToken(form))
		doc := webtest.Doc(t, resp)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s %q: status %d", tc.field, tc.value, resp.StatusCode)
		}
		if got := webtest.TestID(doc, "f-"+tc.field+"-error"); !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: message %q, want %q", tc.field, tc.value, got, tc.want)
		}
		if v, _ := doc.Find(`[data-testid="field-first_name"]`).Attr("value"); v != "Grace" {
			t.Errorf("%s %q: first name lost: %q", tc.field, tc.value, v)
		}
	}
	if n := env.Sandbox.RequestCount("POST", "/v1/partners/employees/invite") - before; n != 0 {
		t.Fatalf("%d invites sent upstream", n)
	}
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM employees WHERE email LIKE '%acme.example' OR email LIKE '%localhost'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused invites stored %d employees (%v)", n, err)
	}
}

// A bulk file saved as a spreadsheet's "Unicode text" (UTF-16) or with
// bytes that are not UTF-8 in its header is refused with what to do, not
// as "unknown columns ��" (lower-casing had turned the bytes into U+FFFD
// before they were checked).
func TestBulkInviteSaysWhenTheFileIsNotUTF8(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	utf16 := []byte{0xff, 0xfe}
	for _, b := range []byte("name,email\r\nAda,ada@acme.example\r\n") {
		utf16 = append(utf16, b, 0)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"utf16.csv", utf16, "UTF-16"},
		{"latin1.csv", []byte("n\xe4me,email\nAda,ada@acme.example\n"), "save the file as UTF-8"},
	} {
		resp := webtest.UploadBulkInvite(t, env, c, tc.name, tc.data)
		doc := webtest.Doc(t, resp)
		got := webtest.TestID(doc, "bulk-file-error")
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, tc.want) || strings.Contains(got, "\ufffd") {
			t.Errorf("%s: %d %q, want %q", tc.name, resp.StatusCode, got, tc.want)
		}
	}
}

// A bulk file with thousands of stray columns is refused with a message a
// person can read: the first few named, then how many more.
func TestBulkInviteNamesAFewUnknownColumns(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	var b strings.Builder
	b.WriteString("name,email")
	for i := range 3000 {
		fmt.Fprintf(&b, ",stray%d", i)
	}
	b.WriteString("\nAda,ada@acme.example\n")
	resp := webtest.UploadBulkInvite(t, env, c, "wide.csv", []byte(b.String()))
	doc := webtest.Doc(t, resp)
	got := webtest.TestID(doc, "bulk-file-error")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, "stray0, stray1") ||
		!strings.Contains(got, "and 2990 more") || len(got) > 500 {
		t.Fatalf("%d %.600q", resp.StatusCode, got)
	}
}
