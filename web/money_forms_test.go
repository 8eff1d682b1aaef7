package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// fieldProblem checks the design system's error pattern for one field of a
// money form: the summary at the top links to the control (#id), the
// message sits under the control (after it, in the same field block), and
// the control says it is invalid and points at its message.
func fieldProblem(t *testing.T, doc *goquery.Document, id, want string) {
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

// noMinorUnits checks a money page never speaks of minor units.
func noMinorUnits(t *testing.T, doc *goquery.Document, page string) {
	t.Helper()
	if strings.Contains(strings.ToLower(doc.Text()), "minor unit") {
		t.Fatalf("%s speaks of minor units", page)
	}
}
