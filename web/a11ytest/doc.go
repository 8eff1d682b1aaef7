// Package a11ytest holds the app's accessibility checks in headless
// chromium (chromedp): axe-core, vendored under testdata/axe-core, on every
// page of the main journeys at 1366 and 375 px, failing on any serious or
// critical violation, on a page that scrolls sideways, and on any console
// error, exception or Content-Security-Policy report; two journeys done
// with the keyboard alone; the navigation bar (one line on a laptop, its
// menus by keyboard, by role); and the README's screenshots (go test
// ./web/a11ytest -run TestScreenshots -screenshots).
//
// The browser journeys are in web/browsertest. Both live apart from
// package web's tests so that each test binary stays well inside go test's
// default 10-minute timeout: go test runs packages in parallel, each with
// its own timeout. Without chromium these tests skip with an install hint,
// except under CI=true, where they fail (webtest.Browser).
//
// The package has no code of its own: only tests.
package a11ytest
