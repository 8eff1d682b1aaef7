package views

import "time"

// ApprovalQueueView is the approval queue page.
type ApprovalQueueView struct {
	Filter QueueFilterForm
	Types  []string
	// EmployeeName names Filter.Employee (a link from an employee's page).
	EmployeeName string
	Rows         []ProposalRow
	// LinkedAs is the wallet admin the viewer approves as ("" when not
	// linked: "needs my approval" then has nothing to show).
	LinkedAs  string
	CanAct    bool
	SyncedAgo string
	PollURL   string // the fragment URL with the current filters
	CSVURL    string
	// Total counts every matching proposal; the page shows PageSize of
	// them, newest first, with OlderURL to the next ones.
	Total     int
	OlderURL  string
	NewestURL string
}

// QueueFilterForm is the queue's filter form, as the user set it.
type QueueFilterForm struct {
	Mine     bool   // needs my approval
	Status   string // "", PENDING_SIGNATURES or FAILED
	Type     string
	Employee string // serviceUserId
	// Who matches the owner's or the recipient's name or email, anywhere
	// in them (search as you type).
	Who string
}

// Choice is one option of a select on the approval pages.
type Choice struct {
	Value string
	Label string
}

// ProposalRow is one proposal in the queue.
type ProposalRow struct {
	ID          string
	Type        string
	Amount      Amount
	From        string
	To          string
	Description string
	Status      string
	StatusClass string
	Approvals   string // "1 of 2"
	Signatures  string // "0 of 1"
	Age         string
	Deadline    *time.Time // while signing
	NeedsMe     bool
}

// ProposalDetailView is one proposal with its timeline and actions.
type ProposalDetailView struct {
	Row          ProposalRow
	WalletID     string
	OwnerUserID  string
	ToAddress    string
	ToStablecoin string
	SlippageBps  int
	Rejection    string
	Failure      string
	ApprovedBy   []string
	Timeline     []TimelineEntry
	Device       DeviceSummary
	// Actions the viewer may take now, and why not when they may not.
	CanApprove      bool
	CanApproveAgain bool
	CanReject       bool
	CanSign         bool
	BlockedReason   string
	RejectForm      RejectForm
	ActionError     string
	Sign            *SignPanel // the latest sign request
}

// DeviceSummary is what the owner sees on the device.
type DeviceSummary struct {
	Title        string
	Amount       string
	From         string
	To           string
	Description  string
	OwnerAddress string
}

// TimelineEntry is one line of a proposal's timeline.
type TimelineEntry struct {
	At     time.Time
	Kind   string
	Actor  string
	Detail string
}

// RejectForm is the reject form, as typed.
type RejectForm struct {
	Reason string
	Fields FieldErrors
}

// ApproverLinkView is the page where a finance approver (or owner) links
// their account to a wallet admin.
type ApproverLinkView struct {
	Current string
	Admins  []Choice
	Fields  FieldErrors
	Value   string
}

// SignPanel shows a sign request on the approver's page: the QR code and
// link (only in the answer that created it: the token is never stored), the
// countdown and the live state.
type SignPanel struct {
	ID        int64
	Link      string
	QRDataURL string
	ExpiresAt time.Time
	State     string
	Label     string
	Class     string
	Error     string
	Final     bool
	PollURL   string
	Steps     []SignStep
}

// SignStep is one step of the sign request's progress.
type SignStep struct {
	Label string
	Done  bool
}

// SignDeviceView is the human page of a sign link opened in a browser.
type SignDeviceView struct {
	Known    bool
	Gone     string // why the link can no longer be used
	Kind     string
	Summary  DeviceSummary
	Deadline time.Time
}

// TreasuryView is the page that creates proposals from the treasury.
type TreasuryView struct {
	Wallets   []TreasuryWallet
	Coins     []string
	Transfer  TransferForm
	Swap      SwapForm
	Send      SendForm
	NewWallet NewWalletForm
	Error     string // an upstream failure, with the input kept
	// OwnerProof is the sign request just issued for a new wallet.
	OwnerProof *SignPanel
}

// NewWalletForm creates a treasury wallet whose owner key is on a device.
type NewWalletForm struct {
	Currency string
	Owner    string
	Fields   FieldErrors
}

// TreasuryWallet is a treasury wallet to move value from.
type TreasuryWallet struct {
	ID      string
	Label   string // "USD (USDB) · balance 250,000.00 USD"
	Balance Amount
}

// TransferForm is a transfer from a treasury wallet to an employee.
type TransferForm struct {
	WalletID    string
	To          RecipientPicker // ToUserID chosen in it
	ToUserID    string
	Amount      string
	Description string
	Fields      FieldErrors
}

// SwapForm exchanges a treasury wallet's stablecoin for another.
type SwapForm struct {
	WalletID     string
	ToStablecoin string
	Amount       string
	SlippageBps  string
	Description  string
	Fields       FieldErrors
}

// SendForm is account/send from the treasury user's account.
type SendForm struct {
	Currency string
	To       RecipientPicker // ToUserID chosen in it
	ToUserID string
	Amount   string
	Note     string
	Fields   FieldErrors
}
