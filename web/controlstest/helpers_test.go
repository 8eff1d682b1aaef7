package controlstest

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/web/webtest"
)

// clock is the app's clock, which a test moves forward.
type clock struct{ at atomic.Pointer[time.Time] }

func newClock() *clock {
	c := &clock{}
	now := time.Now()
	c.at.Store(&now)
	return c
}

func (c *clock) Now() time.Time { return *c.at.Load() }

func (c *clock) Advance(d time.Duration) {
	next := c.Now().Add(d)
	c.at.Store(&next)
}

// post posts a form of the controls page with a fresh token.
func post(t *testing.T, env *webtest.Env, c *http.Client, path string, v url.Values) (int, *goquery.Document) {
	t.Helper()
	resp := env.PostForm(c, path, webtest.WithFormToken(v))
	code := resp.StatusCode
	return code, webtest.Doc(t, resp)
}

// page opens the controls page.
func page(t *testing.T, env *webtest.Env, c *http.Client) *goquery.Document {
	t.Helper()
	resp := env.Get(c, "/controls")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/controls: %d", resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

// destinationRow finds the book's row of a destination by its name.
func destinationRow(doc *goquery.Document, name string) *goquery.Selection {
	return doc.Find(`[data-testid="book"] tbody tr`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.TrimSpace(s.Find("th").Text()) == name
	})
}
