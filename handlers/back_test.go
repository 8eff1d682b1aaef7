package handlers

import (
	"net/http/httptest"
	"testing"
)

func TestBackTo(t *testing.T) {
	for _, tc := range []struct{ referer, want string }{
		{"", "/approvals"},
		{"http://example.test/approvals?status=FAILED&who=ada", "/approvals?status=FAILED&who=ada"},
		{"http://example.test/approvals", "/approvals"},
		{"http://evil.test/approvals?x=1", "/approvals"},
		{"http://example.test/cards?q=1", "/approvals"},
		{"::bad", "/approvals"},
	} {
		r := httptest.NewRequest("GET", "http://example.test/approvals/p1", nil)
		r.Header.Set("Referer", tc.referer)
		if got := BackTo(r, "/approvals"); got != tc.want {
			t.Errorf("referer %q: %q, want %q", tc.referer, got, tc.want)
		}
	}
}
