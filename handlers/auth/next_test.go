package auth

import "testing"

func TestSafeNext(t *testing.T) {
	tests := []struct{ next, want string }{
		{"", "/"},
		{"/", "/"},
		{"/audit", "/audit"},
		{"/employees?q=ada&page=2", "/employees?q=ada&page=2"},
		{"/cards/abc#limits", "/cards/abc#limits"},
		{"/employees?q=50%25", "/employees?q=50%25"},
		{"/a//b", "/a//b"},
		{"/\t/evil.com", "/"},
		{"/\n/evil.com", "/"},
		{"/\r\n/evil.com", "/"},
		{"\t//evil.com", "/"},
		{"//evil.com", "/"},
		{"///evil.com", "/"},
		{"/\\evil.com", "/"},
		{"\\\\evil.com", "/"},
		{"/\\/evil.com", "/"},
		{"/x\\y", "/"},
		{"https://evil.com", "/"},
		{"http:evil.com", "/"},
		{"javascript:alert(1)", "/"},
		{"data:text/html,x", "/"},
		{"evil.com", "/"},
		{" /evil", "/"},
		{" //evil.com", "/"},
		{"/%2f/evil.com", "/"},
		{"/%2F%2Fevil.com", "/"},
		{"/%5cevil.com", "/"},
		{"/%5C/evil.com", "/"},
		{"/%09/evil.com", "/"},
		{"/%252f%252fevil.com", "/"},
		{"%2f%2fevil.com", "/"},
		{"/\x00/evil.com", "/"},
		{"/\x7f", "/"},
		{"/audit\x1b", "/"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}
