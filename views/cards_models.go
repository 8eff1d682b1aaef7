package views

import "time"

// CardBadge is a card's status as a badge: the status word, a badge class
// and, for the live status, when it was read.
type CardBadge struct {
	Status string // as the API spelled it
	Label  string // in words ("frozen")
	Class  string // "badge-frozen"
	// Live is true when Status came from GET /cards/{cardId} just now;
	// otherwise ReadAt says how old it is.
	Live   bool
	ReadAt time.Time
	Now    time.Time
}

// CardControl is the status badge with the freeze or unfreeze button: the
// fragment htmx swaps in place, in search rows and on the detail page.
type CardControl struct {
	CardID   string
	CardName string
	Badge    CardBadge
	// CanWrite: the viewer may freeze and unfreeze.
	CanWrite bool
	// Action is "freeze", "unfreeze" or "" (no button for this status).
	Action string
	// Message explains the last action's outcome; Error marks a refusal.
	Message string
	Error   bool
	// Poll makes the fragment re-read the live status every 2 seconds
	// (detail page only).
	Poll bool
	// Compact is the search-row form (no reason field).
	Compact bool
	// Reason is what the user typed, kept when it was refused.
	Reason string
	// Note explains the status in words (detail page).
	Note string
}

// CardSwatch is a card's colour, drawn as an SVG fill (CSP-safe).
type CardSwatch struct {
	Color string // #RGB or #RRGGBB, validated before it reaches a view
	Name  string
}

// CardSearchView is /cards.
type CardSearchView struct {
	Query    string
	Rows     []CardRow
	NextKey  string
	NextID   string
	Indexed  int
	CanWrite bool
	// IndexNote says when the index was refreshed and what it holds.
	IndexNote string
}

// CardRow is one card in the search results.
type CardRow struct {
	ID           string
	Swatch       CardSwatch
	EmployeeName string
	Email        string
	CardName     string
	Last4        string
	Currency     string
	Type         string
	Funded       bool
	Reserved     bool
	// ProposalID and ProposalStatus of a reserved entry.
	ProposalID     string
	ProposalStatus string
	Control        CardControl
}

// CardDetailView is /cards/{id}.
type CardDetailView struct {
	ID             string
	Swatch         CardSwatch
	CardName       string
	EmployeeName   string
	Email          string
	Currency       string
	Type           string
	Last4          string
	FundingPolicy  string
	FundLifecycle  string
	FundedAt       *time.Time
	Reserved       bool
	ProposalID     string
	ProposalStatus string
	Control        CardControl
	// Balance from balanceMinor (minor units), nil when it could not be read.
	Balance   *Amount
	Ledger    []LedgerRow
	LedgerErr string
	Limits    CardLimitsView
	Txns      CardTxnsView
	Activity  []CardActivityRow
	CanWrite  bool
	Cancel    CardCancelForm
	Activate  CardActivationView
	Canceled  bool
	Physical  bool
	Activated bool
	// UpstreamErr explains a failed live read.
	UpstreamErr string
}

// LedgerRow is one ledger entry (minor units, converted for display).
type LedgerRow struct {
	At          time.Time
	Type        string
	Description string
	Amount      Amount
}

// CardLimitsView is the limits panel and its form.
type CardLimitsView struct {
	CardID    string
	Currency  string
	Loaded    bool
	Error     string
	Current   CardLimitsNow
	Form      CardLimitsForm
	CanWrite  bool
	Saved     bool
	Disabled  bool // the card cannot take limits (cancelled, reserved)
	ReadAt    time.Time
	Unchanged bool
}

// CardLimitsNow are the limits and caps read from GET /limits.
type CardLimitsNow struct {
	TotalDaily     Amount
	MaxSingle      Amount
	AvailableDaily Amount
	CapDaily       Amount
	CapSingle      Amount
}

// CardLimitsForm is what the user typed.
type CardLimitsForm struct {
	TotalDaily string
	MaxSingle  string
	Fields     FieldErrors
}

// CardTxnsView is the transactions panel: filters, a page, paging links.
type CardTxnsView struct {
	CardID   string
	From     string
	To       string
	Status   string
	Page     int
	PageSize int
	Rows     []CardTxnRow
	HasMore  bool
	// AtLimit: the API returns at most 100; older ones need a date filter.
	AtLimit bool
	Error   string
	Fields  FieldErrors
	// Query is the filter as a query string (for paging and CSV links).
	Query string
}

// CardTxnRow is one transaction (major units from the API).
type CardTxnRow struct {
	ID       string
	At       time.Time
	Merchant string
	Status   string
	Amount   Amount
	Fee      Amount
}

// CardActivityRow is one entry of the webhook-fed activity feed.
type CardActivityRow struct {
	At       time.Time
	Kind     string
	Status   string
	Merchant string
	Detail   string
	Amount   *Amount
	Fee      *Amount
}

// CardActivityView is the activity feed fragment (polled).
type CardActivityView struct {
	CardID string
	Rows   []CardActivityRow
}

// CardCancelForm is the cancel confirmation.
type CardCancelForm struct {
	CardID   string
	CardName string
	Typed    string
	Reason   string
	Fields   FieldErrors
	Message  string
	Done     bool
}

// CardActivationView is the physical card activation assistant.
type CardActivationView struct {
	CardID  string
	Channel string
	// OTPID is set once a code was sent; ExpiresAt from expiresInMinutes.
	OTPID            string
	ExpiresInMinutes int
	ExpiresAt        time.Time
	Fields           FieldErrors
	Message          string
	Error            bool
	Done             bool
	Available        bool // a physical card not yet activated
}

// CardIssueView is the issue-a-card page: choose a wallet, then the form,
// then the outcome.
type CardIssueView struct {
	Query   string
	Wallets []IssueWalletRow
	Form    *CardIssueForm
	Result  *CardIssueResult
}

// IssueWalletRow is a wallet a card can be issued on.
type IssueWalletRow struct {
	WalletID     string
	EmployeeName string
	Email        string
	Currency     string // fiat
	Token        string
	Legacy       bool
	CardCount    int
}

// CardIssueForm is the issuance form, with what the user typed (never the
// NIN or PAN, which are not echoed back).
type CardIssueForm struct {
	WalletID      string
	EmployeeName  string
	Currency      string // fixed by the wallet: NGN or USD
	Token         string
	Legacy        bool
	NeedsNIN      bool
	CardName      string
	CardColor     string
	Type          string
	State         string
	Address       string
	DeliveryState string
	Phone         string
	OTPChannel    string
	Fields        FieldErrors
	Message       string
	// States are the Nigerian states offered for state and delivery state.
	States []string
	// NINEntered/PANEntered: the user typed one that was not echoed back.
	NINEntered bool
	PANEntered bool
}

// CardIssueResult is the answer of the issuance.
type CardIssueResult struct {
	CardName          string
	EmployeeName      string
	ProposalID        string
	ProposalStatus    string
	Fee               *Amount
	SignReady         bool
	SignPending       bool
	SignHint          string
	SignError         string
	SignDeadline      time.Time
	MigrationRequired bool
	MigrationHint     string
}

// CardActionLabel is the button text of a status action.
func CardActionLabel(action string) string {
	switch action {
	case "freeze":
		return "Freeze"
	case "unfreeze":
		return "Unfreeze"
	}
	return action
}

// CardTxnsLink is the address of a transactions page with its filter.
func CardTxnsLink(v CardTxnsView, page int, csv bool) string {
	p := "/cards/" + v.CardID + "/transactions"
	if csv {
		p += ".csv"
	}
	q := v.Query
	if !csv && page > 1 {
		if q != "" {
			q += "&"
		}
		q += "page=" + itoa(page)
	}
	if q != "" {
		p += "?" + q
	}
	return p
}

// YesNo says yes or no.
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// signState says where the issuance's sign payload stands, in words.
func signState(r CardIssueResult) string {
	switch {
	case r.SignReady && !r.SignDeadline.IsZero():
		return "The sign payload is ready (deadline " + DateTime(r.SignDeadline) + "): the owner signs it on their device from the approval."
	case r.SignReady:
		return "The sign payload is ready: the owner signs it on their device from the approval."
	case r.SignPending:
		s := "The sign payload is not ready yet (the fee sweep is confirming); the approval shows it once it is."
		if r.SignHint != "" {
			s += " The API says: " + r.SignHint
		}
		return s
	case r.SignError != "":
		return "The sign payload could not be prepared: " + r.SignError
	}
	return "The sign payload is not available yet; the approval shows it once it is."
}
