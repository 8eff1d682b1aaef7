package views

import "time"

// RailsOverviewView is the treasury's rail setup: each rail, where it
// stands, and its next step.
type RailsOverviewView struct {
	Rails []RailSummary
	// Unread, when set, says the API could not be read.
	Unread string
}

// RailSummary is one rail on the overview.
type RailSummary struct {
	Key   string // "eur", "mxn", "usd", "ngn"
	Name  string
	State string // "ready", "next", "waiting", "blocked"
	// StateLabel and Next are in people's words.
	StateLabel string
	Next       string
	Href       string
	HrefLabel  string
}

// RailStep is one step of a rail's task page.
type RailStep struct {
	Key   string
	Title string
	// State is "done", "next", "waiting" (on someone else) or "later".
	State      string
	StateLabel string
	Words      string
	// Code is a value shown after the words, such as an address (it may
	// break anywhere on a phone).
	Code      string
	Href      string
	HrefLabel string
}

// TreasuryRailStart activates the KYC for the rail's currency and starts the
// rail, in one step.
type TreasuryRailStart struct {
	Action string
	Token  string
	Level  string
	Levels []Option
	Button string
	Fields FieldErrors
	Error  string
}

// EURSetupView is the EUR provider's task page.
type EURSetupView struct {
	Steps  []RailStep
	Unread string
	Start  *TreasuryRailStart
	// Authorize is the provider code form, shown while the provider waits
	// for its authorization.
	Authorize *EURAuthorizeForm
	Sign      *SignPanel
	Ready     bool
	// PollURL, set while the provider waits for the owner's device (or
	// its state could not be read), makes the page re-read itself; it
	// carries the state shown, so an unchanged answer is 204.
	PollURL string
}

// EURAuthorizeForm takes the EUR provider's authorization code.
type EURAuthorizeForm struct {
	Token  string
	Code   string
	Fields FieldErrors
	Error  string
	// SandboxCodes are codes to try when the app runs on the sandbox.
	SandboxCodes []string
}

// MXNSetupView is the Mexican offramp's task page.
type MXNSetupView struct {
	Steps  []RailStep
	Unread string
	Start  *TreasuryRailStart
	// KYCToken, when set, offers the Mexico KYC activation.
	KYCToken string
	KYCError string
	// Launch offers the provider's hosted verification.
	Launch  bool
	Sandbox bool
	CLABEs  []CLABEView
	Ready   bool
}

// CLABEView is one Mexican deposit account of the treasury.
type CLABEView struct {
	CLABE, Bank, Name, State string
	Active                   bool
}

// USDSetupView is the treasury's USD account task page.
type USDSetupView struct {
	Steps  []RailStep
	Unread string
	Start  *TreasuryRailStart
}

// RailLaunchView is the provider's hosted verification, fetched at the
// moment of use.
type RailLaunchView struct {
	URL, GrantType, Assertion, Target string
	FetchedAt, ExpiresAt              time.Time
	Sandbox                           bool
}
