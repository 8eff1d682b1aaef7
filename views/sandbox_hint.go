package views

import (
	"context"

	"partneradmin/apiclient/sandbox"
)

type sandboxKey struct{}

// WithSandbox marks a render as the app running on the sandbox, whose test
// data alone some forms' values must come from (SandboxHint).
func WithSandbox(ctx context.Context, on bool) context.Context {
	if !on {
		return ctx
	}
	return context.WithValue(ctx, sandboxKey{}, true)
}

// OnSandbox reports whether the app runs on the sandbox.
func OnSandbox(ctx context.Context) bool {
	on, _ := ctx.Value(sandboxKey{}).(bool)
	return on
}

// Kinds of sandbox hint.
const (
	HintNigerianAccounts = "ngn-accounts"
	HintBVN              = "bvn"
	HintPayoutAccounts   = "payout-accounts"
	HintIBAN             = "iban"
)

// nigerianTestAccounts are the sandbox's accounts that verify, as lines.
func nigerianTestAccounts() []sandbox.TestAccount { return sandbox.NigerianTestAccounts() }

// sandboxBVN is the sandbox's test BVN.
func sandboxBVN() string { return sandbox.TestBVN }

// sandboxIBAN is an IBAN the sandbox pays out to.
func sandboxIBAN() string { return sandbox.TestIBAN }

// sandboxPayoutMissing ends the sandbox's payout accounts that do not exist.
func sandboxPayoutMissing() string { return sandbox.PayoutMissingSuffix }
