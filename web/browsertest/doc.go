// Package browsertest holds the app's browser journeys: headless chromium,
// driven by chromedp, against the real router, a real PostgreSQL and the
// in-process sandbox (web/webtest). Sign in with a password or a passkey,
// invite employees (one, or fifty from a file), approve and sign through a
// QR code (one proposal, a batch, a payroll run, money-out orders), pick a
// treasury transfer's recipient, copy funding details, freeze a card, keep
// tables open while the dashboard polls.
//
// The accessibility checks and the README's screenshots are in
// web/a11ytest. Both live apart from package web's tests so that each test
// binary stays well inside go test's default 10-minute timeout: browsers
// are the slowest tests, and go test runs packages in parallel, each with
// its own timeout. Without chromium these tests skip with an install hint,
// except under CI=true, where they fail (webtest.Browser).
//
// The package has no code of its own: only tests.
package browsertest
