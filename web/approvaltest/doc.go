// Package approvaltest holds the tests of the approval queue and owner
// signing: the queue and its history read from the mirror, approving and
// rejecting, sign requests played through the owner's device (single links
// and batches from one QR code), and payroll runs from upload to signed
// proposals.
//
// Each area's send-once, lost-answer and recovery tests of its writes stay
// in package web (approvals_actions_test.go and the other *_actions tests),
// next to TestEveryActionUnderUpstreamFaults, which posts their forms.
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest). They live apart
// from package web's tests so that each test binary stays well inside go
// test's default 10-minute timeout: go test runs packages in parallel, each
// with its own timeout.
//
// The package has no code of its own: only tests.
package approvaltest
