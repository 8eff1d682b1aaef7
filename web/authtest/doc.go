// Package authtest holds the tests of who may use the app: sign-in and its
// limits against guessing (per account, per address, behind trusted
// proxies), sessions (idle timeout, renewal, signing out everywhere else),
// passwords and set-password links, the second factor (TOTP, step-up
// before approving), single sign-on (OIDC), staff accounts, and the
// security headers and cross-origin refusals every response carries.
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest). They live apart
// from package web's tests so that each test binary stays well inside go
// test's default 10-minute timeout: go test runs packages in parallel, each
// with its own timeout.
//
// The package has no code of its own: only tests.
package authtest
