package handlers

import (
	"net/http/httptest"
	"testing"
)

func TestLogPathHidesLinkTokens(t *testing.T) {
	for path, want := range map[string]string{
		"/sign/abc123secret":          "/sign/[token]",
		"/sign/abc123secret/qr.png":   "/sign/[token]",
		"/set-password/abc123secret":  "/set-password/[token]",
		"/employees/12":               "/employees/12",
		"/approvals/sign-batch/12345": "/approvals/sign-batch/12345",
	} {
		if got := LogPath(httptest.NewRequest("GET", path, nil)); got != want {
			t.Errorf("LogPath(%q) = %q, want %q", path, got, want)
		}
	}
}
