// Checks shared by the test packages: waiting on a condition, statuses
// and bodies, and the words a page may or must not use for a failure.

package webtest

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/handlers"
)

// WaitFor polls cond until it holds, failing the test after d.
func WaitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	if !Eventually(d, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// Eventually polls cond until it holds and reports whether it did within
// d: WaitFor for a caller with more to do when it does not (a screenshot
// of the page, a benchmark's figures).
func Eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// ReadBody reads and closes a response's body.
func ReadBody(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Status sends a GET to the app and returns its status (body closed).
func Status(t testing.TB, env *Env, c *http.Client, path string) int {
	t.Helper()
	resp := env.Get(c, path)
	resp.Body.Close()
	return resp.StatusCode
}

// APIFailureWords are words a page may use to say the Partner API failed it. Each page says it
// in its own sentence; all of them name the API and what happened.
var APIFailureWords = []string{
	"did not answer", "failed (", "could not be read", "could not read", "not reachable", "unavailable",
	"could not be reached", "cannot be listed now", "Try again in a moment",
}

// ErrorLeaks are words a page must never show: an error's text instead of
// a sentence.
var ErrorLeaks = []string{
	"context deadline exceeded", "connection refused", "connection reset", "dial tcp", "unexpected EOF", ": EOF", "goroutine",
	"apiclient:", "i/o timeout", "panic",
}

// ContainsAny returns the first of words that s contains, or "".
func ContainsAny(s string, words []string) string {
	for _, w := range words {
		if strings.Contains(s, w) {
			return w
		}
	}
	return ""
}

// WithFormToken is a form as a page renders it: a copy of v with a new
// one-time token, made as the app makes them.
func WithFormToken(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set(handlers.FormTokenField, handlers.NewFormToken())
	return out
}

// FieldProblem checks the design system's error pattern for one field of a
// money form: the summary at the top links to the control (#id), the
// message sits under the control (after it, in the same field block), and
// the control says it is invalid and points at its message.
func FieldProblem(t testing.TB, doc *goquery.Document, id, want string) {
	t.Helper()
	link := doc.Find(`[data-testid="error-summary"] a[href="#` + id + `"]`)
	if link.Length() != 1 || !strings.Contains(link.Text(), want) {
		t.Fatalf("summary link to #%s: %d %q, want %q; summary %q", id, link.Length(), link.Text(),
			want, strings.TrimSpace(doc.Find(`[data-testid="error-summary"]`).Text()))
	}
	under := doc.Find(`#` + id + ` ~ #` + id + `-error`)
	if under.Length() != 1 || !strings.Contains(under.Text(), want) {
		t.Fatalf("no message %q under #%s: %q", want, id, doc.Find(`#`+id+`-error`).Text())
	}
	ctl := doc.Find(`#` + id)
	if ctl.AttrOr("aria-invalid", "") != "true" || !strings.Contains(ctl.AttrOr("aria-describedby", ""), id+"-error") {
		t.Fatalf("#%s is not marked invalid: %v %q", id, ctl.AttrOr("aria-invalid", ""), ctl.AttrOr("aria-describedby", ""))
	}
	if doc.Find(`label[for="`+id+`"]`).Length() != 1 {
		t.Fatalf("#%s has no label", id)
	}
}

// WithFormTokenUnlessSet is WithFormToken that keeps the token form already
// has: what a page renders into each form.
func WithFormTokenUnlessSet(form url.Values) url.Values {
	out := WithFormToken(form)
	if tok := form.Get(handlers.FormTokenField); tok != "" {
		out.Set(handlers.FormTokenField, tok)
	}
	return out
}
