package handlers

import (
	"net/http"
	"strings"
)

// LogPath is a request's path as logs may carry it: the tokens of sign and
// set-password links are credentials, so their paths are logged without
// them.
func LogPath(r *http.Request) string {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/sign/"):
		return "/sign/[token]"
	case strings.HasPrefix(path, "/set-password/"):
		return "/set-password/[token]"
	}
	return path
}
