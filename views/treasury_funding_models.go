package views

import "time"

// FundingView is the page that tells the accounts team how to put money
// into the treasury: one panel per rail, each with what the API said or why
// it is not known.
type FundingView struct {
	TreasuryName  string
	ServiceUserID string
	ReadAt        time.Time
	// Print: the page for the accounts team, without navigation or
	// buttons.
	Print  bool
	USD    FundingUSD
	NGN    FundingBankRail
	MXN    FundingBankRail
	EUR    FundingBankRail
	Crypto FundingCrypto
	// Routes: issued USD and NGN accounts whose deposits go to a treasury
	// wallet.
	Routes FundingRoutes
}

// FundingUSD is the treasury's USD virtual account.
type FundingUSD struct {
	// Error: the account could not be read (nothing else is set).
	Error  string
	Status string // the API's state: none, provisioning, pending, active, failed, rejected
	Words  string // the state in people's words
	Tone   string // badge: active, pending, failed, rejected
	Reason string // why it was rejected
	// Account is set when the account is active.
	Account *FundingUSDAccount
	// CanStart links to the USD rail's set-up page, which activates and
	// starts in one go (not started, or failed: Retry).
	CanStart bool
	Retry    bool
	// StartBlocked says why start-usa is not offered when it would be.
	StartBlocked string
}

// FundingUSDAccount are the bank details of an active USD account.
type FundingUSDAccount struct {
	AccountName   string
	AccountNumber string
	RoutingNumber string
	BankName      string
	BankAddress   string
	SwiftCode     string
	AccountType   string
	// DepositMessage, when set, is the reference every incoming transfer
	// must carry.
	DepositMessage string
}

// FundingBankRail is a currency's bank deposit accounts (NGN virtual
// account, MXN CLABE).
type FundingBankRail struct {
	Currency string
	Title    string
	Error    string // the accounts could not be read
	Accounts []FundingBankAccount
	NotSetUp string // what the page says, and what would set it up, when there is none
	// Provision offers the account's provisioning when there is none
	// (EUR, NGN).
	Provision FundingProvision
}

// FundingBankAccount is one deposit account.
type FundingBankAccount struct {
	ID          string // element id prefix, for the copy buttons
	AccountName string
	BankName    string
	NumberLabel string // "Account number (NUBAN)", "CLABE"
	Number      string
	BankCode    string
	Status      string
	Active      bool
	Target      string // the stablecoin credited
}

// FundingCrypto is the treasury wallets' crypto deposit addresses.
type FundingCrypto struct {
	// Error: the supported assets could not be read; the wallets are
	// still shown from the mirror.
	Error   string
	Wallets []FundingDepositWallet
	// Others are supported assets no treasury wallet receives at its own
	// address ("USDC on ethereum").
	Others []string
	// Assets are those same assets, each with the address the Partner API
	// issued for it or a form to ask for one.
	Assets []FundingAsset
}

// FundingDepositWallet is a treasury wallet's address.
type FundingDepositWallet struct {
	ID      string // element id prefix
	Token   string
	Fiat    string
	Chain   string
	Address string
	Status  string // the wallet's state upstream, as last read
	QR      string // PNG data: URL of the address
	Accepts string // "USDB on base", when the API lists it
	Note    string // otherwise, what to do
}
