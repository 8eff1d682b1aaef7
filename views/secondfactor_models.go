package views

import "time"

// FactorFormView asks for a second factor: the second step of a sign-in,
// or again before a value-moving action (step-up).
type FactorFormView struct {
	Title string
	Intro string
	// Action is where the form posts; BeginURL starts a passkey check.
	Action     string
	BeginURL   string
	Next       string
	HasPasskey bool
	HasTOTP    bool
	Fields     FieldErrors
	Error      string
	// Replay is the form the step-up interrupted, carried along so
	// nothing typed is lost.
	Replay *ReplayForm
	// Script is the URL of the passkey script.
	Script string
}

// ReplayForm is a posted form to send again: its action and fields.
type ReplayForm struct {
	Action string
	Fields []ReplayField
}

// ReplayField is one field of a ReplayForm.
type ReplayField struct{ Name, Value string }

// ContinueView offers to send the interrupted form again after step-up.
type ContinueView struct {
	Replay ReplayForm
	Next   string
}

// SecurityView is a staff member's own second factors.
type SecurityView struct {
	Required     bool
	HasFactor    bool
	TOTP         bool
	TOTPSetup    *TOTPSetupView
	Passkeys     []PasskeyRow
	RecoveryLeft int
	// RecoveryCodes are new codes, shown once.
	RecoveryCodes []string
	PasskeyName   string
	// PasskeysOff: the app is reached by an address, where passkeys
	// cannot work.
	PasskeysOff bool
	Fields      FieldErrors
	Script      string
}

// TOTPSetupView is an authenticator app being set up.
type TOTPSetupView struct {
	QR     string
	Secret string
}

// PasskeyRow is one passkey in the list.
type PasskeyRow struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	LastUsed  *time.Time
}

// SessionsView lists one's own sessions.
type SessionsView struct {
	Sessions []SessionRow
}

// SessionRow is one session.
type SessionRow struct {
	Key       string
	UserAgent string
	Address   string
	CreatedAt time.Time
	LastSeen  time.Time
	Current   bool
}

// SecurityPolicyView is the owner's page of which roles must have a second
// factor.
type SecurityPolicyView struct {
	Roles   []PolicyRole
	Default string
}

// PolicyRole is one role and whether it must have a second factor.
type PolicyRole struct {
	Value    string
	Label    string
	Required bool
}
