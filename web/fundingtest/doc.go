// Package fundingtest holds the tests of the treasury's funding actions:
// crypto deposit addresses per supported asset, opening the EUR and NGN
// accounts when onboarding allows it, and routing an admin's issued USD or
// NGN account into a treasury wallet and back. Each goes through the real
// router, a real PostgreSQL and the in-process sandbox (web/webtest), as
// an allowed and as a refused role, and a bad form changes nothing.
//
// It also holds the test that keeps docs/api-coverage.md honest: every
// method of apiclient's Client is called by the app or listed there.
//
// The package has no code of its own: only tests.
package fundingtest
