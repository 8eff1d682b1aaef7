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

func TestPrevious(t *testing.T) {
	for _, tc := range []struct{ referer, want string }{
		{"", ""},
		{"http://example.test/employees/7", "/employees/7"},
		{"http://example.test/employees?q=ada&state=invited", "/employees?q=ada&state=invited"},
		{"/employees/7", "/employees/7"},
		{"http://evil.test/employees/7", ""},
		{"http://example.test//evil.test/x", "/"},
		{"http://example.test/%2F%2Fevil.test", "/"},
		{"http://example.test/employees/7/delete", ""}, // the page asked for
		{"::bad", ""},
	} {
		r := httptest.NewRequest("POST", "http://example.test/employees/7/delete", nil)
		r.Header.Set("Referer", tc.referer)
		if got := Previous(r); got != tc.want {
			t.Errorf("referer %q: %q, want %q", tc.referer, got, tc.want)
		}
	}
}
