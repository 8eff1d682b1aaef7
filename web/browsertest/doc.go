// Package browsertest holds the app's browser tests: headless chromium,
// driven by chromedp, against the real router, a real PostgreSQL and the
// in-process sandbox (web/webtest). Journeys (sign in, invite, approve and
// sign through a QR code, payroll, money out, treasury, cards), the
// accessibility checks (axe-core, vendored under testdata/axe-core, at
// 1366 and 375 px, console errors and CSP reports, keyboard-only journeys)
// and the README's screenshots (go test ./web/browsertest -run
// TestScreenshots -screenshots).
//
// They live apart from package web's tests so that each test binary stays
// well inside go test's default 10-minute timeout: browsers are the slowest
// tests, and go test runs packages in parallel, each with its own timeout.
// Without chromium these tests skip with an install hint, except under
// CI=true, where they fail (webtest.Browser).
//
// The package has no code of its own: only tests.
package browsertest
