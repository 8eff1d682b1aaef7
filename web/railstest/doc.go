// Package railstest holds the tests of the treasury's rail setup pages
// (handlers/railsetup): the EUR provider up to SEPA payouts, with its
// authorization signed on the owner's device; the Mexican onboarding up to
// the CLABE; the USD account; each step as an allowed and as a refused
// role, and bad input that changes nothing.
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest), in their own test
// binary so that each stays well inside go test's default timeout.
//
// The package has no code of its own: only tests.
package railstest
