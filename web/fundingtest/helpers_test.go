package fundingtest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/web/webtest"
)

// page is the funding page as c sees it.
func page(t *testing.T, env *webtest.Env, c *http.Client) *goquery.Document {
	t.Helper()
	resp := env.Get(c, webtest.FundingPath)
	if resp.StatusCode != http.StatusOK {
		body := webtest.ReadBody(t, resp)
		t.Fatalf("GET %s: %d %s", webtest.FundingPath, resp.StatusCode, body)
	}
	return webtest.Doc(t, resp)
}

// formOf is the values of a form's inputs (its one-time token and hidden
// fields), as a browser would post them.
func formOf(t *testing.T, form *goquery.Selection) url.Values {
	t.Helper()
	if form.Length() != 1 {
		t.Fatalf("want one form, found %d", form.Length())
	}
	v := url.Values{}
	form.Find("input").Each(func(_ int, in *goquery.Selection) {
		if name, ok := in.Attr("name"); ok {
			v.Set(name, in.AttrOr("value", ""))
		}
	})
	return v
}

// post sends a form and returns the status and the text of the page it
// answered with.
func post(t *testing.T, env *webtest.Env, c *http.Client, path string, form url.Values) (int, string) {
	t.Helper()
	resp := env.PostForm(c, path, form)
	status := resp.StatusCode
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(webtest.ReadBody(t, resp)))
	if err != nil {
		t.Fatal(err)
	}
	return status, doc.Text()
}

// flash is the message the funding page shows after a post.
func flash(t *testing.T, env *webtest.Env, c *http.Client) string {
	t.Helper()
	return webtest.TestID(page(t, env, c), "flash")
}

// sent is how many calls the sandbox received on a route.
func sent(env *webtest.Env, method, route string) int {
	return env.Sandbox.RequestCount(method, route)
}

var bg = context.Background()
