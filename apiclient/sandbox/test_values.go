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

// TestIBAN is an IBAN whose check digits hold (the ISO 13616 example): the
// sandbox prepares a SEPA payout to any such IBAN.
const TestIBAN = "DE89 3704 0044 0532 0130 00"

// PayoutMissingSuffix ends the payout account numbers that do not exist
// in the sandbox; any other number of the bank's length validates.
const PayoutMissingSuffix = "0000"
