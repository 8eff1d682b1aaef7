// Package opstest holds the tests of what runs behind the pages: the
// webhook receiver and its jobs (end to end with the sandbox, duplicates,
// crashes between commit and acknowledgement, replays, retention of
// bodies), river jobs orphaned by a dead process, notifications by email
// and chat, metrics, readiness and configuration checks, and two replicas
// of the app sharing one database behind nginx (web/nginxtest: a skip
// without nginx, a failure under CI=true). TestBrowserOwnerRotatesWebhookSecret
// drives chromium (webtest.Browser: a skip without it, a failure under
// CI=true).
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest). They live apart
// from package web's tests so that each test binary stays well inside go
// test's default 10-minute timeout: go test runs packages in parallel, each
// with its own timeout.
//
// The package has no code of its own: only tests.
package opstest
