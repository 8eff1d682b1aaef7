package sandbox

// The values only the sandbox's test data accepts, exported so that an app
// running on the sandbox can tell its people what to try (the README lists
// them too).

// TestAccount is a Nigerian bank account that verifies in the sandbox.
type TestAccount struct {
	Number, BankCode, Holder string
}

// NigerianTestAccounts are the accounts that verify; any other account
// number and bank code pair is not found.
func NigerianTestAccounts() []TestAccount {
	out := make([]TestAccount, len(sandboxNigerianAccounts))
	for i, a := range sandboxNigerianAccounts {
		out[i] = TestAccount{Number: a.number, BankCode: a.bank, Holder: a.holder}
	}
	return out
}

// TestBVN is the one BVN that verifies (spec: "the digit 2 eleven times").
const TestBVN = sandboxBVN
