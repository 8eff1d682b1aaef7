package views

import "sort"

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
	// Step 1.
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

// NGNPayoutSummaryItem is one line of an error summary: the message and the id of
// the field it concerns.
type NGNPayoutSummaryItem struct {
	FieldID string
	Message string
}

// NGNPayoutSummary lists field messages for the error summary at the top of
// a money-out form, in the order of ids (form field → element id).
func NGNPayoutSummary(f FieldErrors, ids map[string]string) []NGNPayoutSummaryItem {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]NGNPayoutSummaryItem, 0, len(keys))
	for _, k := range keys {
		out = append(out, NGNPayoutSummaryItem{FieldID: ids[k], Message: f[k]})
	}
	return out
}

// NigeriaFieldIDs maps the wizard's fields to their elements.
var NigeriaFieldIDs = map[string]string{"bank": "ngn-bank", "account_number": "ngn-account", "holder": "ngn-holder",
	"wallet": "ngn-wallet", "amount": "ngn-amount", "account": "ngn-account-label"}

// NigeriaOfframpView is a Nigerian withdrawal as proposed: the API's quote
// and where it is approved.
type NigeriaOfframpView struct {
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
}
