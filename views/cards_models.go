package views

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// CardStatus is a card's status as the API reports it. spec: issuer
// statuses are "read case-insensitively; the set is open"; RESERVED marks a
// card requested but not issued yet.
type CardStatus string

// CardReserved is the status of a requested card not issued yet.
const CardReserved CardStatus = "RESERVED"

// Key is the status lower-cased, for comparing and for data attributes.
func (s CardStatus) Key() string { return strings.ToLower(strings.TrimSpace(string(s))) }

// Active: the card can be used.
func (s CardStatus) Active() bool { return s.Key() == "active" }

// Frozen: frozen by the partner (BLOCKED) or reported frozen by the issuer.
func (s CardStatus) Frozen() bool { k := s.Key(); return k == "frozen" || k == "blocked" }

// Canceled: cancelled permanently (PUT .../deactivate).
func (s CardStatus) Canceled() bool {
	k := s.Key()
	return k == "canceled" || k == "cancelled" || k == "deactivated"
}

// LostOrStolen: reported lost or stolen.
func (s CardStatus) LostOrStolen() bool { k := s.Key(); return k == "lost" || k == "stolen" }

// Pending: issued, never activated.
func (s CardStatus) Pending() bool { return s.Key() == "pending" }

// Reserved: requested, not issued yet.
func (s CardStatus) Reserved() bool { return s.Key() == "reserved" }

// Label is the status in people's words (Status).
func (s CardStatus) Label() string { return StatusLabel(StatusCard, s.Key()) }

// BadgeClass is the chip class for the status (Status).
func (s CardStatus) BadgeClass() string { return StatusClass(StatusCard, s.Key()) }

// Meaning says what the status means for support, and what can be done.
func (s CardStatus) Meaning() string {
	switch k := s.Key(); {
	case s.Active():
		return "Active: the card can be used."
	case s.Frozen():
		return "Frozen: payments are declined until the card is unfrozen."
	case s.Pending():
		return "Issued but never activated. A physical card needs activation with a one-time code; unfreezing (ACTIVE) does not activate it."
	case k == "inactive":
		return "The issuer reports the card as inactive."
	case k == "restricted":
		return "The issuer has restricted this card. The partner cannot lift a restriction; the issuer decides."
	case k == "lost":
		return "Reported lost. A lost card cannot be unfrozen: cancel it and issue a replacement."
	case k == "stolen":
		return "Reported stolen. A stolen card cannot be unfrozen: cancel it and issue a replacement."
	case s.Canceled():
		return "Cancelled permanently. Nothing more can be done with this card."
	case s.Reserved():
		return "Requested, not issued yet: the issuance proposal must be approved and signed first."
	case k == "":
		return "The card's status is not known."
	}
	return "The issuer reports the status " + string(s) + "."
}

// CardBadge is a card's status as a badge and, for the live status, when it
// was read.
type CardBadge struct {
	Status CardStatus
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
	// FormToken is the form's one-time token.
	FormToken string
	// Message explains the last action's outcome; Error marks a refusal.
	Message string
	Error   bool
	// Poll makes the fragment re-read the live status every 2 seconds
	// (detail page only).
	Poll bool
	// Compact is the search-row form (no reason field, no words for the
	// status).
	Compact bool
	// Reason is what the user typed, kept when it was refused.
	Reason string
}

// CardSwatch is a card's colour, drawn as an SVG fill (CSP-safe).
type CardSwatch struct {
	Color string // #RGB or #RRGGBB, validated before it reaches a view
	Name  string
}

// CardSearchView is /cards.
type CardSearchView struct {
	Query string
	// Fields has the search's problem ("q"), shown under it.
	Fields   FieldErrors
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
	// Issuance of a reserved entry.
	Issuance CardIssuance
	Control  CardControl
}

// CardIssuance is where a requested card's issuance proposal stands. The
// approval page is linked only for those who may open it; the others see
// the state in words.
type CardIssuance struct {
	ProposalID string
	// Status is the proposal's status (PENDING_SIGNATURES, …).
	Status          string
	CanOpenApproval bool
	// RequestedBy and RequestedAt come from the action ledger, when the
	// request was made from this app.
	RequestedBy string
	RequestedAt time.Time
}

// StateWords says where the issuance stands in people's words.
func (i CardIssuance) StateWords() string {
	switch strings.ToUpper(strings.TrimSpace(i.Status)) {
	case "PENDING_APPROVALS":
		return "Waiting for approval: a finance approver decides in the approval queue."
	case "PENDING_SIGNATURES":
		return "Approved; waiting for the wallet owner to sign on their device. A finance approver hands the signature over from the approval queue."
	case "SUBMITTED", "READY_TO_EXECUTE", "EXECUTING":
		return "Signed; the card is being issued."
	case "COMPLETED":
		return "Done: the card is issued. Re-read the card lists to see it."
	case "FAILED":
		return "The issuance failed; a finance approver can restart it from the approval queue."
	case "REJECTED":
		return "Rejected: no card will be issued."
	case "EXPIRED":
		return "Expired before it was signed: no card will be issued."
	case "":
		return "Its state is not known yet."
	}
	return "The proposal's state is " + i.Status + "."
}

// CardDetailView is /cards/{id}.
type CardDetailView struct {
	// BackURL is the card list as the viewer left it (with its search).
	BackURL       string
	ID            string
	Swatch        CardSwatch
	CardName      string
	EmployeeName  string
	Email         string
	Currency      string
	Type          string
	Last4         string
	FundingPolicy string
	FundLifecycle string
	FundedAt      *time.Time
	Reserved      bool
	Issuance      CardIssuance
	Control       CardControl
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
	// PanelsURL, when set, is where the page loads its balance and ledger,
	// limits and transactions from once shown (they are not in the view).
	PanelsURL string
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
	CardID   string
	Currency string
	Loaded   bool
	Error    string
	Current  CardLimitsNow
	Form     CardLimitsForm
	CanWrite bool
	Disabled bool // the card cannot take limits (cancelled, reserved)
	ReadAt   time.Time
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
	FormToken  string
	// Posted is an answer to the form: it is drawn again with what was
	// typed even when the limits could not be read this time.
	Posted bool
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
	CardID    string
	CardName  string
	Typed     string
	Reason    string
	Fields    FieldErrors
	Message   string
	FormToken string
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
	Available        bool // a physical card not yet activated
	// RequestToken and ConfirmToken are the one-time tokens of the two
	// forms.
	RequestToken string
	ConfirmToken string
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
	WalletID     string
	EmployeeName string
	Currency     string // fixed by the wallet: NGN or USD
	Token        string
	Legacy       bool
	NeedsNIN     bool
	// FirstCard: the employee never had a card, so the NIN is looked up
	// and its holder confirmed before the request.
	FirstCard bool
	// NINLookup is the lookup's answer, shown once; NINHolder is the name
	// staff saw, carried back with the form for the confirmation.
	NINLookup     DirectLookupForm
	NINHolder     string
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
	FormToken  string
}

// CardIssueResult is the answer of the issuance.
type CardIssueResult struct {
	CardName          string
	EmployeeName      string
	Issuance          CardIssuance
	Fee               *Amount
	SignReady         bool
	SignPending       bool
	SignHint          string
	SignError         string
	SignDeadline      time.Time
	MigrationRequired bool
	MigrationHint     string
	// Message says this is what an earlier sending of the form did.
	Message string
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
		q += "page=" + strconv.Itoa(page)
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
func signState(ctx context.Context, r CardIssueResult) string {
	switch {
	case r.SignReady && !r.SignDeadline.IsZero():
		return "The sign payload is ready (deadline " + DateTime(ctx, r.SignDeadline) + "): the owner signs it on their device from the approval."
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

// limitHint is a limit field's hint: the provider's cap when the limits
// were read, else that the caps are checked when the form is sent.
func limitHint(v CardLimitsView, withCaps string) string {
	if v.Loaded {
		return withCaps
	}
	return "The provider's caps could not be read now; they are checked again when you save."
}
