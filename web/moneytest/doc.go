// Package moneytest holds the tests of the money pages: the treasury
// (balances, transfers and swaps at a quote, funding and the USD start,
// recipients, crypto withdrawals and offramps and how they settle) and the
// money-out rails (Nigerian bank payouts, LATAM payouts and cash, EUR SEPA,
// Mexican pesos), with their form checks.
//
// Each area's send-once, lost-answer and recovery tests of its writes stay
// in package web (treasury_actions_test.go and the other *_actions tests),
// next to TestEveryActionUnderUpstreamFaults, which posts the same forms
// (their shared form helpers are in web/webtest).
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest). They live apart
// from package web's tests so that each test binary stays well inside go
// test's default 10-minute timeout: go test runs packages in parallel, each
// with its own timeout.
//
// The package has no code of its own: only tests.
package moneytest
