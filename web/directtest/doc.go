// Package directtest holds the tests of the direct onboarding: HR adds an
// employee as a user of the Partner API (for partners whose own app
// onboards their people) and walks their KYC in the spec's fixed order —
// the lookups, the document uploads, the profile, the readiness, the
// activation and start per currency — with the BVN and NIN lookups, and
// the employee page's answer to kyc.action_required.
//
// The tests run the whole app through the real router against a real
// PostgreSQL and the in-process sandbox (web/webtest).
//
// The package has no code of its own: only tests.
package directtest
