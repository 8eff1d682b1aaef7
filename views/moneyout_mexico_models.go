package views

import "time"

// MexicoOfframpView is the Mexican offramp page: what is missing before a
// quote can be asked for, and the quote form.
type MexicoOfframpView struct {
	// Wallet is the treasury's MEXe wallet; nil when it has none.
	Wallet   *SepaMXNWallet
	KYC      MexicoKYC
	Form     MexicoQuoteForm
	Problems []FieldProblem
	Error    string
	Recent   []SepaMXNRecent
	// Legacy names a pre-migration MXNe balance of the treasury, which
	// this rail does not sell (spec: "users onboarded before the migration
	// should be checked for a legacy balance").
	Legacy string
}

// MexicoKYC is the treasury user's Mexico KYC, read now.
type MexicoKYC struct {
	Status string // as read; "" when unknown or never activated
	Ready  bool
	// Unread: the status could not be read now (the API failed), as
	// opposed to read and not approved.
	Unread bool
	Words  string
}

// MexicoQuoteForm is what the person typed, kept across errors and
// re-quotes.
type MexicoQuoteForm struct {
	Token  string
	Amount string
	Note   string
	Fields FieldErrors
	// Posted is an answer to the form: it is drawn again with what was
	// typed when the KYC status could not be read this time.
	Posted bool
}

// MexicoOrderView is one offramp on one page: the quote, both owner
// signatures and the order's status to its end.
type MexicoOrderView struct {
	// Back is the way back to the rail's page (its recent offramps).
	Back        string
	ID          int64
	UpstreamID  string
	Source      string // MEXe sent, with its currency
	Destination string // MXN paid out
	Rate        string
	FeeBps      string
	FeeAmount   string
	ExpiresAt   time.Time
	Memo        string
	CreatedBy   string
	CreatedAt   time.Time
	Note        string
	Error       string
	Steps       MexicoSteps
	// Sign is the owner signature on display: the one just issued (with
	// its QR code), else the latest one's state.
	Sign *SignPanel
}

// MexicoSteps is the polled part of the order page: the order's status,
// each signature's step and what the page waits for.
type MexicoSteps struct {
	OrderID     int64
	PollURL     string
	Status      string
	StatusLabel string
	Final       bool
	ReadAt      time.Time
	ReadError   string
	ExpiresAt   time.Time
	Expired     bool
	First       MexicoSignStep
	Burn        MexicoSignStep
	// Waiting says what the order waits for and what to do.
	Waiting string
	// IssueLabel names the signature a new link is for ("" when none may
	// be issued now).
	IssueLabel string
	// ReQuote is the form again with the amount and note, when a new
	// quote is the way on.
	ReQuote string
}

// MexicoSignStep is one of the two owner signatures.
type MexicoSignStep struct {
	State string // not_needed, not_yet, or the sign request's state
	Label string
	Done  bool
}
