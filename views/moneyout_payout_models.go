package views

import "time"

// BankPayoutStep is a step of the bank payout wizard.
type BankPayoutStep string

// The steps of the bank payout wizard, in order.
const (
	BankPayoutStepCountry BankPayoutStep = "country"
	BankPayoutStepBank    BankPayoutStep = "bank"
	BankPayoutStepBranch  BankPayoutStep = "branch"
	BankPayoutStepAccount BankPayoutStep = "account"
	BankPayoutStepAmount  BankPayoutStep = "amount"
	BankPayoutStepReview  BankPayoutStep = "review"
)

// BankPayoutView is the bank payout wizard: each step carries what the earlier
// ones established in hidden fields, and shows it.
type BankPayoutView struct {
	Step   BankPayoutStep
	Error  string
	Fields FieldErrors
	// Unavailable says a list the step needs could not be read.
	Unavailable string

	Countries   []Choice
	Country     string
	CountryName string
	Currency    string
	Banks       []Choice
	BankID      string
	BankName    string
	Branches    []Choice
	BranchID    string
	BranchName  string
	// NoBranch: the bank has no branches, so none is asked.
	NoBranch bool
	// Book offers the address book's accounts at the chosen bank.
	Book          BookPicker
	AccountNumber string
	Holder        string
	Amount        string
	Note          string
	// Balance is the USDB wallet's balance as last read.
	Balance string

	// Review: the typed decimal and what leaves the wallet.
	Review *BankPayoutReview
	// Token is the confirm form's one-time token.
	Token string
	// Retry: a confirmed payout could not be checked again because the
	// API did not answer; nothing was sent. The page keeps what was typed
	// and offers to send the same confirmation again.
	Retry bool
}

// BankPayoutReview is what will be sent, shown both ways the spec warns must
// not be confused: the amount typed, and the amount the request carries
// (its minor units read back as a decimal of the token).
type BankPayoutReview struct {
	Amount  Amount // the decimal typed, in USD (USDB)
	Sent    Amount // the request's amount, in USDB
	Account string // masked
	Balance string // read just now
}

// BankPayoutFieldIDs maps the wizard's error keys that are not their
// input's name to the input's id (the rest are "f-"+key).
var BankPayoutFieldIDs = map[string]string{"bank": "f-bank_id", "branch": "f-branch_id", "holder": "f-account_number"}

// BankPayoutFieldOrder is the wizard's fields in the order they are asked.
var BankPayoutFieldOrder = []string{"country", "bank", "branch", "account_number", "holder", "amount", "note"}

// BankPayoutRecord is one bank payout: what was sent, the API's quote, its
// state on the rail and its owner signature.
type BankPayoutRecord struct {
	ID          int64
	State       string
	StateLabel  string
	Final       bool
	UpstreamID  string
	Destination string
	Holder      string
	Amount      Amount
	// Sent is the amount the request carried, in USDB.
	Sent Amount
	Note string
	// The quote.
	QuoteSource      *Amount
	QuoteDestination *Amount
	QuoteRate        string
	QuoteFee         *Amount
	QuoteExpiresAt   *time.Time
	QuoteExpired     bool
	CreatedBy        string
	CreatedAt        time.Time
	SettledAt        *time.Time
	Error            string
	Notice           string
	CanIssueLink     bool
	// Back is the way back to Money out.
	Back string
	// PollURL reloads the body while the payout is not final.
	PollURL string
	Sign    *SignPanel
}
