package views

// NigeriaStep is a step of the Nigerian bank withdrawal.
type NigeriaStep string

// The steps of the Nigerian bank withdrawal.
const (
	NigeriaStepAccount NigeriaStep = "account" // bank and NUBAN
	NigeriaStepHolder  NigeriaStep = "holder"  // the registered holder, read-only
	NigeriaStepAmount  NigeriaStep = "amount"  // source wallet and amount
)

// NigeriaWithdrawalView is the Nigerian bank withdrawal wizard: every step
// carries what earlier steps established.
type NigeriaWithdrawalView struct {
	Step  NigeriaStep
	Error string
	// Fields are the messages next to the fields; the summary lists them.
	Fields FieldErrors
	// Step 1: the book's Nigerian accounts, or the bank and NUBAN typed.
	Book             BookPicker
	Banks            []Choice
	BanksUnavailable string
	BankCode         string
	AccountNumber    string
	// Step 2: the holder as the API registered it (never editable).
	BankName string
	Holder   string
	// Token is the one-time token of the step's state-changing form
	// (registering the account, proposing the withdrawal).
	Token string
	// Step 3.
	AccountToken string // the token the account was registered under
	AccountLabel string // "Access Bank ****0031"
	Wallets      []Choice
	WalletID     string
	Amount       string
	// Balances says what each source wallet holds as last read.
	Balances []string
}

// NigeriaFieldIDs maps the wizard's error keys that are not their input's
// name to the element they concern (the rest are "f-"+key).
var NigeriaFieldIDs = map[string]string{"bank": "f-bank_code", "wallet": "f-wallet_id", "account": "ngn-account-label"}

// NigeriaFieldOrder is the wizard's fields in the order they are asked.
var NigeriaFieldOrder = []string{"bank", "account_number", "holder", "account", "wallet", "amount"}

// NigeriaOfframpView is a Nigerian withdrawal as proposed: the API's quote
// and where it is approved.
type NigeriaOfframpView struct {
	// Back is the way back to Money out.
	Back       string
	ActionID   int64
	State      string // the ledger's state of the request
	StateLabel string
	Message    string
	ProposalID string
	Status     string
	Account    string
	Holder     string
	From       Amount
	To         Amount
	Fee        Amount
	Rate       string
	RateUnit   string // the source token
	Swapped    bool
	CreatedBy  string
	// PollURL reloads the request while its proposal can still change
	// (approved, signed, executed elsewhere); "" once it is final.
	PollURL string
}
