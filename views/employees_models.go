package views

import (
	"time"
)

// Option is one choice of a select or filter.
type Option struct {
	Value    string
	Label    string
	Selected bool
}

// EmployeeFilterView is the list's filter form as the user set it.
type EmployeeFilterView struct {
	Q         string
	State     string
	Currency  string
	Readiness string
	Sort      string
	// Fields has the search's problem ("q"), shown next to it.
	Fields FieldErrors
}

// EmployeeListView is the employee list page.
type EmployeeListView struct {
	Filter     EmployeeFilterView
	States     []Option
	Currencies []Option
	Readiness  []Option
	Sorts      []Option
	Columns    []string // the readiness currencies, in order
	Rows       []EmployeeRow
	NextURL    string
	SelfURL    string // this page's fragment URL, polled for live updates
	CSVURL     string
	CanWrite   bool
	// Now is when the page was read: "Last activity" is said relative to it.
	Now time.Time
}

// EmployeeRow is one employee in the list or the matrix.
type EmployeeRow struct {
	ID             int64
	Name           string
	Email          string
	ServiceUserID  string
	InviteState    string // store value, for the badge class
	InviteLabel    string
	ActionRequired string
	LastActivity   time.Time
	Cells          []ReadinessCellView
}

// ReadinessCellView is one currency's readiness, in words.
type ReadinessCellView struct {
	Currency string
	State    string // store value, for the badge class
	Label    string // "missing 3 fields", "ready to activate", ...
	Missing  []string
	Detail   string
	ReadAt   *time.Time
}

// ReadinessMatrixView is the employees × currencies page.
type ReadinessMatrixView struct {
	Filter     EmployeeFilterView
	States     []Option
	Currencies []Option
	Readiness  []Option
	Columns    []string
	Rows       []EmployeeRow
	NextURL    string
	SelfURL    string
	CSVURL     string
	Totals     []ReadinessTotal
	// Chart is the whole workforce by currency and state (nil on the
	// 2-second refreshes, which only swap the matrix).
	Chart *ReadinessChart
	// Bulk are the "start for everyone ready" forms (HR admin, owner).
	Bulk []OnboardingBulkOffer
}

// ReadinessChart is a stacked bar per currency: how many employees are in
// each readiness state. Widths are in thousandths of the bar.
type ReadinessChart struct {
	Employees int
	Bars      []ReadinessBar
	Legend    []ReadinessSegment // every state, in order, for the key
}

// ReadinessBar is one currency's bar.
type ReadinessBar struct {
	Currency string
	Summary  string // the counts in words, for screen readers and the tooltip
	Segments []ReadinessSegment
}

// ReadinessSegment is one state's part of a bar.
type ReadinessSegment struct {
	State string
	Label string
	Count int
	X     int
	Width int
}

// ReadinessTotal counts the shown rows of one currency by state.
type ReadinessTotal struct {
	Currency string
	Counts   []Option // Label: state in words, Value: count
}

// InviteForm is the single-invite form, with what the user typed. Identity
// numbers are echoed back only in the response that re-renders the form.
type InviteForm struct {
	Name                   string
	Email                  string
	FirstName              string
	MiddleName             string
	LastName               string
	DateOfBirth            string
	Nationality            string
	PhoneNumber            string
	Gender                 string
	StreetLine1            string
	City                   string
	State                  string
	PostalCode             string
	CountryCode            string
	EmploymentStatus       string
	OccupationCode         string
	OccupationLabel        string
	EmployerName           string
	SourceOfFunds          string
	EstimatedMonthlyVolume string
	AccountPurpose         string
	ActingAsIntermediary   bool
	SSN                    string
	NINO                   string
	RFC                    string
	CURP                   string
	BVN                    string
	Fields                 FieldErrors
	// Problem is a message about the whole form (an upstream fault).
	Problem string
	// Token is the form's one-time token.
	Token string
}

// InvitePageView is the invite page.
type InvitePageView struct {
	Form              InviteForm
	Countries         []Option
	Nationalities     []Option
	NigerianStates    []Option
	EmploymentOptions []Option
	FundsOptions      []Option
	GenderOptions     []Option
	PurposeOptions    []Option
}

// OccupationResultsView is the autocomplete's answer.
type OccupationResultsView struct {
	Query    string
	Results  []Option
	Selected string
	Problem  string
}

// InviteResultView is shown after an invite or re-invite call.
type InviteResultView struct {
	EmployeeID int64
	Name       string
	Email      string
	Sent       bool
	InviteURL  string
	QR         string // data:image/png;base64 URL of the invite link
	Reinvite   bool
	// SameLink is set on a re-invite: whether the API returned the link it
	// gave before (spec: same email → same link).
	SameLink     bool
	PreviousLink string
	Error        string
	// Note says how the outcome was learned when the call itself did not
	// say (a 409 for an earlier attempt, a read-back).
	Note string
}

// EmployeeDetailView is one employee's page.
type EmployeeDetailView struct {
	// Asked is who can provide what the API asks (kyc.action_required).
	Asked *DirectAskedView
	// BackURL is the list the viewer came from, with its filters, and
	// BackList its name.
	BackURL            string
	BackList           string
	ID                 int64
	Name               string
	Email              string
	ServiceUserID      string
	InviteState        string
	InviteLabel        string
	ActionRequired     string
	LinkedAt           *time.Time
	KYCSubmitted       bool
	DeletedAt          *time.Time
	ReactivateDaysLeft int
	InviteURL          string
	InviteQR           string
	Invites            []InviteRow
	CanWrite           bool
	Now                time.Time
	Message            string
	Profile            ProfileView
	Currencies         []CurrencyCardView
	USDAccount         VirtualAccountView
	DepositAccounts    []DepositAccountsView
	Wallets            []WalletView
	WalletsReadAt      *time.Time
	WalletsError       string
	Occupation         OccupationFixForm
	// ResolveError is the confirmation's message when "Mark as resolved"
	// was sent without it.
	ResolveError string
	// Tokens are the one-time tokens of the page's forms.
	Tokens DetailTokens
	// Related links to the employee's cards, proposals, activity and
	// audit rows.
	Related EmployeeRelated
}

// DetailTokens are the one-time tokens of the employee page's forms, one
// per form.
type DetailTokens struct {
	Reinvite   string
	Resolve    string
	Occupation string
	RetryUSD   string
	Reactivate string
}

// InviteRow is one invite call in the employee's history.
type InviteRow struct {
	At       time.Time
	By       string
	State    string
	Reinvite bool
	Bulk     bool
	Error    string
}

// ProfileView summarises GET /kyc without identification numbers.
type ProfileView struct {
	ReadAt            *time.Time
	Error             string
	Empty             bool
	Name              string
	DateOfBirth       string
	Nationality       string
	Address           string
	Country           string
	EmploymentStatus  string
	OccupationCode    string
	EmployerName      string
	SourceOfFunds     string
	IDTypes           []string
	OccupationMissing bool
}

// OccupationFixForm is the one-click fix for a missing occupationCode.
type OccupationFixForm struct {
	Code   string
	Fields FieldErrors
	Done   string
}

// CurrencyCardView is one currency's onboarding card.
type CurrencyCardView struct {
	Currency   string
	Cell       ReadinessCellView
	RailStatus string
	// EURProvider is the EUR provider's onboarding state (EUR only).
	EURProvider string
	Active      bool
	Missing     []string // in words
	ReadAt      *time.Time
	Error       string
	// Start is the start form while the currency is ready (nil otherwise).
	Start *RailStartForm
	// StartNeeds, instead of the start form, says what the currency's start
	// needs first (the wallet it uses, when the employee has none).
	StartNeeds string
	// Mexico is the MXN card's next steps after its start (nil otherwise).
	Mexico *MexicoKYCView
}

// VirtualAccountView is the USD virtual account.
type VirtualAccountView struct {
	ReadAt         *time.Time
	Error          string
	Status         string
	Reason         string
	AccountName    string
	AccountNumber  string
	RoutingNumber  string
	BankName       string
	BankAddress    string
	SwiftCode      string
	AccountType    string
	DepositMessage string
	CanRetry       bool
}

// DepositAccountsView is one currency's deposit accounts.
type DepositAccountsView struct {
	Currency string
	ReadAt   *time.Time
	Error    string
	Accounts []DepositAccountView
}

// DepositAccountView is one deposit account.
type DepositAccountView struct {
	AccountName   string
	BankName      string
	AccountNumber string
	Clabe         string
	Status        string
	Target        string
}

// WalletView is a wallet and its balance.
type WalletView struct {
	Currency string
	Token    string
	Status   string
	Balance  *Amount
	Legacy   bool
}

// DeleteCheckView is the pre-deletion check page.
type DeleteCheckView struct {
	ID          int64
	Name        string
	Email       string
	ReadAt      time.Time
	Balances    []WalletView
	HasBalance  bool
	BalancesErr string
	Cards       []string
	CardsErr    string
	Proposals   []string
	ProposalErr string
	Problem     string // the API's refusal in words
	Retryable   bool   // 503: nothing deleted, retry
	CanDelete   bool
	FormToken   string
}

// ReactivateView answers a reactivation.
type ReactivateView struct {
	ID            int64
	Name          string
	DaysLeft      int
	Problem       string
	SupportNeeded bool
	FormToken     string
}

// BulkUploadView is the bulk invite upload form.
type BulkUploadView struct {
	Error   string
	Columns []string
	Recent  []BulkRunRow
}

// BulkRunRow is a recent run.
type BulkRunRow struct {
	ID        int64
	Filename  string
	State     string
	Total     int
	Valid     int
	CreatedAt time.Time
}

// BulkRunView is a run: its preview before sending, its progress and
// outcomes after.
type BulkRunView struct {
	ID        int64
	Filename  string
	State     string
	Total     int
	Valid     int
	Invalid   int
	Sent      int
	Errors    int
	Unknown   int
	Done      int
	Percent   int
	Finished  bool
	Rows      []BulkRowView
	CanStart  bool
	ResultURL string
	FormToken string
	// WithIDs counts the rows with identification numbers still to send;
	// NeedsFile: the send form takes the file again for their numbers,
	// which were not kept. FileError says what was wrong with it.
	WithIDs   int
	NeedsFile bool
	FileError string
}

// BulkRowView is a row of the preview or result table.
type BulkRowView struct {
	Line       int
	Name       string
	Email      string
	Country    string
	Problems   []string
	State      string
	StateLabel string
	InviteURL  string
	Error      string
}
