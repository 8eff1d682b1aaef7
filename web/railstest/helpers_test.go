package railstest

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/apiclient"

	"partneradmin/web/webtest"
)

// page opens a rail page and checks it answers 200.
func page(t *testing.T, env *webtest.Env, c *http.Client, path string) *goquery.Document {
	t.Helper()
	resp := env.Get(c, path)
	doc := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %q", path, resp.StatusCode, doc.Find("main").Text())
	}
	return doc
}

// stepState is the state of a step of a task page.
func stepState(doc *goquery.Document, key string) string {
	s, _ := doc.Find(`[data-testid="step-` + key + `"]`).Attr("data-state")
	return s
}

// onboarding reads the treasury's onboarding status from the sandbox.
func onboarding(t *testing.T, env *webtest.Env) *apiclient.OnboardingStatus {
	t.Helper()
	st, err := env.API.GetOnboardingStatus(context.Background(), env.Demo.TreasuryUserID)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// audits counts a kind's audit rows by outcome.
func audits(t *testing.T, env *webtest.Env, action string) map[string]int {
	t.Helper()
	return webtest.AuditOutcomes(t, env, action)
}

// post posts a form of the page with its token and the given values.
func post(t *testing.T, env *webtest.Env, c *http.Client, doc *goquery.Document, form, path string, v url.Values) *http.Response {
	t.Helper()
	if v == nil {
		v = url.Values{}
	}
	v.Set("form_token", webtest.FormTokenOf(t, doc, form))
	return env.PostForm(c, path, v)
}

// signRequests counts the sign requests of a kind.
func signRequests(t *testing.T, env *webtest.Env, kind string) int {
	t.Helper()
	var n int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM sign_requests WHERE kind = $1`, kind).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
