// Package peopletest holds the tests of the people pages: the employee list
// and its search, an employee's page, single and bulk invitations and the
// employees the API asks action of, and the cards support manages (search,
// detail, panels read from the issuer).
//
// Each area's send-once, lost-answer and recovery tests of its writes stay
// in package web (employees_actions_test.go, cards_actions_test.go and the
// other *_actions tests), next to TestEveryActionUnderUpstreamFaults,
// which posts the same forms.
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest). They live apart
// from package web's tests so that each test binary stays well inside go
// test's default 10-minute timeout: go test runs packages in parallel, each
// with its own timeout.
//
// The package has no code of its own: only tests.
package peopletest
