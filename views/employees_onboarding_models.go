package views

import "time"

// RailStartForm is one currency's "start onboarding" form on the employee
// page, shown only while the currency's readiness is "ready".
type RailStartForm struct {
	Currency    string
	Token       string
	Path        string // the start endpoint's last segment
	WalletToken string // the stablecoin wallet the rail uses
	// Global: the activation asks for an identity level.
	Global         bool
	IdentityLevels []Option
	IdentityLevel  string
	// NeedsBVN: the Nigerian start asks for the BVN, which is sent and
	// never kept (the field is always rendered empty).
	NeedsBVN bool
	Error    string
	Fields   FieldErrors
}

// MexicoKYCView is the MXN card's steps after start-mexico: activate the
// Mexican KYC, then open the provider's hosted verification.
type MexicoKYCView struct {
	EmployeeID    int64
	CanActivate   bool
	ActivateToken string
	CanLaunch     bool
}

// MexicoLaunchView is the page the "Open Mexican KYC" button opens in a new
// tab: the provider's form, fetched at the click, with its deadline.
type MexicoLaunchView struct {
	EmployeeID int64
	Name       string
	URL        string
	GrantType  string
	Assertion  string
	Target     string
	FetchedAt  time.Time
	ExpiresAt  time.Time
}

// OnboardingBulkOffer is one currency's "start for everyone ready" form on
// the readiness matrix.
type OnboardingBulkOffer struct {
	Currency       string
	Ready          int
	Token          string
	Global         bool
	IdentityLevels []Option
}

// OnboardingRunView is a bulk start's progress and per-employee outcomes.
type OnboardingRunView struct {
	ID        int64
	Currency  string
	CreatedBy string
	CreatedAt time.Time
	Total     int
	Done      int
	Percent   int
	Started   int
	Refused   int
	Skipped   int
	Unknown   int
	Finished  bool
	Rows      []OnboardingRunRowView
	ResultURL string
}

// OnboardingRunRowView is one employee of a bulk start.
type OnboardingRunRowView struct {
	EmployeeID int64
	Name       string
	Email      string
	State      string
	StateLabel string
	Detail     string
}
