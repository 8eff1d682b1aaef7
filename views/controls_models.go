package views

// ControlsView is the money controls page: the address book, each
// treasury wallet's spending policy with what it used, the settings, and
// the policy changes waiting for a second owner.
type ControlsView struct {
	// CanAdd: the viewer may add destinations (finance approvers, owners);
	// CanConfirm: confirm another person's; CanPropose: propose and decide
	// policy changes (owners).
	CanAdd, CanConfirm, CanPropose bool
	Error                          string

	Destinations []DestinationRow
	Add          DestinationForm
	KindOptions  []Option

	Wallets      []WalletPolicyRow
	Limits       LimitsForm
	WalletOption []Option

	Settings     SettingsForm
	SettingsNow  string // the settings in force, in words
	ApprovalMode ApprovalModeForm
	Pending      []PolicyChangeRow
	History      []PolicyChangeRow
}

// DestinationRow is one entry of the address book.
type DestinationRow struct {
	ID       int64
	Name     string
	Kind     string
	Value    string
	AddedBy  string
	AddedAt  string
	State    string // "Waiting for another person to confirm", "Usable from …", "Trusted since …"
	Trusted  bool
	Confirm  bool // the viewer may confirm it
	CanClear bool
	// RemoveLabel is the remove button's words: withdrawn at once before
	// anyone confirmed it, else asked by one person and confirmed by
	// another.
	RemoveLabel string
	Token       string
}

// DestinationForm is the add-a-destination form as typed.
type DestinationForm struct {
	Token    string
	Kind     string
	Name     string
	Value    string
	BankCode string
	Fields   FieldErrors
}

// WalletPolicyRow is one treasury wallet's policy in force and its use.
type WalletPolicyRow struct {
	WalletID string
	Label    string
	Day      string // "12,300.00 of 50,000.00 USD in the last 24 hours" or "No daily limit"
	Week     string
	Share    string
	StepUp   string
	SetBy    string
}

// LimitsForm proposes a wallet's spending policy.
type LimitsForm struct {
	Token           string
	WalletID        string
	Currency        string
	Day             string
	Week            string
	MaxShare        string
	StepUpAbove     string
	StepUpApprovals string
	// StepUpBy: the emails of the named approvers, comma-separated.
	StepUpBy string
	Fields   FieldErrors
}

// SettingsForm proposes the controls' settings.
type SettingsForm struct {
	Token       string
	CoolingOff  string
	OutsideBook string
	Fields      FieldErrors
}

// ApprovalModeForm proposes the account's approval mode.
type ApprovalModeForm struct {
	Token     string
	Current   string // the mode the Partner API reports, in words
	Mode      string
	Threshold string
	Options   []Option
	Fields    FieldErrors
}

// PolicyChangeRow is one proposed, approved or turned-down change.
type PolicyChangeRow struct {
	ID         int64
	What       string
	Summary    string
	ProposedBy string
	ProposedAt string
	State      string
	Decide     bool // the viewer may approve it (an owner who did not propose it)
	Withdraw   bool // the viewer proposed it and may withdraw it
	Token      string
}
