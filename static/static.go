// Package static holds the files served under /static/: vendored htmx, the
// stylesheet and the one small script, embedded in the binary.
package static

import "embed"

// FS holds the static files.
//
//go:embed htmx.min.js app.css app.js webauthn.js
var FS embed.FS
