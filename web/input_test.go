package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"partneradmin/store"
	"partneradmin/web/webtest"
)

// Text that is not text never reaches a handler: every route answers a
// query or a form holding invalid UTF-8 or a NUL with 400 in words, and
// nothing is stored.
func TestEveryRouteRefusesInputThatIsNotText(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.Options{})
	owner, _ := env.SignedIn(store.RoleOwner)
	victim := env.CreateStaff(store.RoleSupport)
	auditBefore := countAudit(t, env)
	for _, rt := range env.App.Routes() {
		path := strings.ReplaceAll(rt.Pattern, "{id}", strconv.FormatInt(victim.ID, 10))
		path = strings.ReplaceAll(path, "*", "app.css")
		for _, bad := range []string{"\xff\xfe", "a\x00b", "bell\a"} {
			var resp *http.Response
			if rt.Method == http.MethodGet {
				resp = env.Get(owner, path+"?q="+url.QueryEscape(bad))
			} else {
				resp = env.PostForm(owner, path, url.Values{"name": {bad}, "q": {"ok"}})
			}
			doc := webtest.Doc(t, resp)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s %s with %q: %d, want 400", rt.Method, rt.Pattern, bad, resp.StatusCode)
				continue
			}
			if !strings.Contains(doc.Text(), "not valid UTF-8") {
				t.Errorf("%s %s: no words for the person", rt.Method, rt.Pattern)
			}
		}
	}
	if after := countAudit(t, env); after != auditBefore {
		t.Fatalf("refused input wrote %d audit rows", after-auditBefore)
	}
	// A form far larger than any field takes is refused as such.
	resp := env.PostForm(owner, "/staff", url.Values{"name": {strings.Repeat("x", 1<<20)}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("1 MB form: %d", resp.StatusCode)
	}
}

func countAudit(t *testing.T, env *webtest.Env) int {
	t.Helper()
	var n int
	if err := env.Store.Pool().QueryRow(t.Context(), `SELECT count(*) FROM audit_log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
