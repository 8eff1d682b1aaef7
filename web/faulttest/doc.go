// Package faulttest holds the tests of the app under faults of what it
// depends on: every GET page while the Partner API hangs, is slow, answers
// 5xx, resets connections or is down (TestEveryPageAnswersWhenTheAPIHangs,
// TestEveryPageUnderUpstreamFaults), and the app's own PostgreSQL stopped
// and started again under a running app (TestDatabaseStoppedAndStartedMidRun).
// Every form that writes upstream is tested under the same faults in
// package web (TestEveryActionUnderUpstreamFaults), next to the forms it
// walks.
//
// They live apart from package web's tests so that each test binary stays
// well inside go test's default 10-minute timeout: these tests mostly wait
// on injected latency, and go test runs packages in parallel, each with its
// own timeout.
//
// The package has no code of its own: only tests.
package faulttest
