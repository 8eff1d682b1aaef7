package views

import "time"

// SEPAPayoutView is the EUR SEPA payout page: what is missing before a
// payout can be sent, the form, or the review of what will be sent.
type SEPAPayoutView struct {
	// Wallet is the treasury's EURe wallet; nil when it has none.
	Wallet   *SepaMXNWallet
	Provider SEPAProvider
	Form     SEPAPayoutForm
	Review   *SEPAPayoutReview
	// Problems is the error summary, in the order of the form's fields.
	Problems []FieldProblem
	Error    string
	Recent   []SepaMXNRecent
}

// SepaMXNWallet is the treasury wallet a SEPA payout or an MXN offramp
// leaves from.
type SepaMXNWallet struct {
	ID      string
	Label   string
	Balance string // as last read, with its currency; "" when never read
}

// SEPAProvider is the treasury user's EUR provider onboarding, read now.
type SEPAProvider struct {
	// Status is eurProviderStatus as read ("" when it could not be read).
	Status string
	// Ready: the provider is active, payouts may be sent.
	Ready bool
	// Unread: the state could not be read now (the API failed), as
	// opposed to read and not active.
	Unread bool
	// Words say what is missing and what to do.
	Words string
}

// SEPAPayoutForm is what the person typed, kept across errors and steps.
type SEPAPayoutForm struct {
	Token  string
	Amount string
	// Book offers the address book's IBANs.
	Book        BookPicker
	IBAN        string
	Beneficiary string
	Reference   string
	Fields      FieldErrors
	// Posted is an answer to the form: it is drawn again with what was
	// typed when the provider's state could not be read this time.
	Posted bool
}

// SEPAPayoutReview is what will be sent, for a last look.
type SEPAPayoutReview struct {
	From        string
	Amount      string
	Understood  string // how an amount with thousands separators was read
	IBAN        string // grouped in fours
	Beneficiary string
	Reference   string
}

// SEPAOrderView is one SEPA payout: its state to the end and its owner
// signature.
type SEPAOrderView struct {
	// Back is the way back to the rail's page (its recent orders).
	Back        string
	ID          int64
	State       string
	StateLabel  string
	Final       bool
	From        string
	Amount      string
	IBAN        string // masked: country and last four
	Beneficiary string
	Reference   string
	UpstreamID  string
	CreatedBy   string
	CreatedAt   time.Time
	// ReadAt is when the state was read from the API; ReadError says the
	// read failed now (the state shown is the last one read).
	ReadAt    time.Time
	ReadError string
	// PollURL reloads the state part while the order is not final.
	PollURL      string
	Note         string
	Error        string
	Sign         *SignPanel
	CanIssueLink bool
}

// SepaMXNRequestView is an order the API has not opened (yet): the request
// that asks for it, as the action ledger has it.
type SepaMXNRequestView struct {
	// Back is the way back to the rail's page (its recent orders).
	Back       string
	Title      string
	State      string
	StateLabel string
	CreatedBy  string
	CreatedAt  time.Time
	Message    string
	// Again is the form to start a new one.
	Again string
	// PollURL reloads the page while the request is still being sent.
	PollURL string
}

// SepaMXNRecent is one of a rail's recent orders, linking to its page.
type SepaMXNRecent struct {
	Href      string
	Label     string // what was sent, and to whom
	Status    string // as last read
	Kind      string // the status's kind: StatusSepa or StatusMexico
	CreatedAt time.Time
}
