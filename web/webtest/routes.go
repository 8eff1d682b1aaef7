// What the tests of several packages name: the sandbox's routes (for its
// request counts and injected faults), the app's paths and fixed values.

package webtest

// The sandbox's routes of the money-out rails' calls.
const (
	CashFundRoute       = "/v1/users/{userId}/latam/cash/orders/fund"
	CashSendRoute       = "/v1/users/{userId}/latam/cash/orders/send"
	MexicoQuoteRoute    = "/v1/users/{userId}/latam/mx/quote"
	MexicoOrderRoute    = "/v1/users/{userId}/latam/mx/orders/{orderId}"
	MexicoSubmitRoute   = "/v1/users/{userId}/wallets/submit-signature"
	NigeriaVerifyRoute  = "/v1/users/{userId}/bank-accounts/verify-nigerian-account"
	NigeriaAccountRoute = "/v1/users/{userId}/bank-accounts/withdrawal-accounts/nigeria"
	NigeriaOfframpRoute = "/v1/users/{userId}/smart-wallets/{smartWalletId}/offramp/nigeria"
	SEPAPrepareRoute    = "/v1/users/{userId}/eu/orders/prepare"
	SEPAStartRoute      = "/v1/users/{userId}/onboarding/start-eur-provider"
	PayoutRoute         = "/v1/users/{userId}/payouts"
)

// The treasury's own Nigerian bank account in the sandbox, and an IBAN to
// pay by SEPA.
const (
	NigeriaTreasuryNUBAN = "8012345678"
	NigeriaTreasuryBank  = "50211"
	NigeriaTreasuryName  = "ACME PAYROLL TREASURY LTD"
	SEPAIBAN             = "DE89 3704 0044 0532 0130 00"
	SEPAIBANElectronic   = "DE89370400440532013000" // as the address book keeps it
)

// The treasury's funding page, and the sandbox's route of the USD rail's
// start.
const (
	FundingPath   = "/treasury/funding"
	StartUSARoute = "/v1/users/{userId}/onboarding/start-usa"
)

// The sandbox's routes of the treasury's writes.
const (
	SendRoute       = "/v1/users/{userId}/smart-wallets/account/send"
	ChallengeRoute  = "/v1/users/{userId}/smart-wallets/owner-proof-challenges"
	WithdrawalRoute = "/v1/users/{userId}/withdrawal/smart-wallet/crypto"
)

// WithdrawalDestination is an address to withdraw the treasury's coins to.
const WithdrawalDestination = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
