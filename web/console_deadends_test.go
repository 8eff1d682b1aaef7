package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// The delete page leads somewhere from every employee: an invited one's
// leads back to the employee, and one whose wallets hold money (which the
// API refuses to delete) offers no delete button, but says what to do.
func TestDeletePageHasNoDeadEnds(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)

	var invited int64
	var name string
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT id FROM employees
		WHERE service_user_id IS NULL AND deleted_at IS NULL AND kind = 'employee' ORDER BY id LIMIT 1`).Scan(&invited); err != nil {
		t.Fatal(err)
	}
	e, err := env.Store.EmployeeByID(context.Background(), invited)
	if err != nil {
		t.Fatal(err)
	}
	name = e.Name()
	resp := env.Get(c, fmt.Sprintf("/employees/%d/delete", invited))
	doc := webtest.Doc(t, resp)
	back, _ := doc.Find(`[data-testid="error-back"]`).Attr("href")
	if resp.StatusCode != http.StatusConflict || back != fmt.Sprintf("/employees/%d", invited) ||
		!strings.Contains(webtest.TestID(doc, "error-back"), name) || !strings.Contains(webtest.TestID(doc, "error-page"), "not accepted the invite") {
		t.Fatalf("invited employee's delete page: %d, back to %q (%q)", resp.StatusCode, back, webtest.TestID(doc, "error-back"))
	}

	rich := webtest.LinkedDemoEmployee(t, env, true)
	doc = webtest.Doc(t, env.Get(c, fmt.Sprintf("/employees/%d/delete", rich.ID)))
	if doc.Find(`[data-testid="delete-confirm"]`).Length() != 0 || !strings.Contains(webtest.TestID(doc, "delete-blocked"), "Move or withdraw") {
		t.Fatal("the delete page of an employee with money offers to delete, which the API refuses")
	}
	poor := webtest.LinkedDemoEmployee(t, env, false)
	doc = webtest.Doc(t, env.Get(c, fmt.Sprintf("/employees/%d/delete", poor.ID)))
	if doc.Find(`[data-testid="delete-confirm"]`).Length() != 1 {
		t.Fatal("the delete page of an employee without money offers no delete")
	}
}

// A refused invite never draws the identification numbers typed back into
// its page (DESIGN 8): the fields are empty and say why.
func TestRefusedInviteAsksForIDNumbersAgain(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{SkipDemoImport: true})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	form := webtest.WithFormToken(webtest.UKInviteForm("not-an-email"))
	form.Set("nino", "AB123456C")
	form.Set("ssn", "123456789")
	form.Set("bvn", "22212345678")
	resp := env.PostForm(c, "/employees/invite", form)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("refused invite: %d", resp.StatusCode)
	}
	html, _ := doc.Html()
	for _, n := range []string{"AB123456C", "123456789", "22212345678"} {
		if strings.Contains(html, n) {
			t.Errorf("the page draws %s back", n)
		}
	}
	for _, name := range []string{"nino", "ssn", "bvn"} {
		in := doc.Find(`input[name="` + name + `"]`)
		id, _ := in.Attr("id")
		if in.Length() != 1 || !strings.Contains(doc.Find("#"+id+"-hint").Text()+in.Parent().Text(), "type it once more") {
			t.Errorf("%s: no word on typing it again", name)
		}
	}
	if strings.Contains(doc.Find(`input[name="rfc"]`).Parent().Text(), "type it once more") {
		t.Error("asks again for a number that was not typed")
	}
}

// A linked employee's page points at no "Send the invite again" button (it
// has none), and says rail states in words.
func TestLinkedEmployeePageHasNoMissingButtonsOrRawStates(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	c, _ := env.SignedIn(store.RoleHRAdmin)
	e := webtest.LinkedDemoEmployee(t, env, true)
	doc := webtest.Doc(t, env.Get(c, fmt.Sprintf("/employees/%d", e.ID)))
	if doc.Find(`[data-testid="reinvite"]`).Length() == 0 && strings.Contains(webtest.TestID(doc, "invites"), "Send the invite again") {
		t.Error("the invites panel points at a button the page does not have")
	}
	rails := doc.Find(`[data-testid^="rail-"]`)
	if rails.Length() == 0 {
		t.Fatal("no payment rail shown")
	}
	text := rails.Text()
	for _, raw := range []string{": none", "(EUR provider", "Rail:"} {
		if strings.Contains(text, raw) {
			t.Errorf("rails say %q: %s", raw, text)
		}
	}
}
