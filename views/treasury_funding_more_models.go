package views

import "time"

// FundingProvision is the offer to provision a currency's virtual account
// (POST /vba/eu, /vba/ngn) when the treasury has none.
type FundingProvision struct {
	// Action is the form's target; empty when nothing is offered (the
	// account exists, or it could not be read).
	Action string
	// Allowed: onboarding allows it; the form carries Token.
	Allowed bool
	Token   string
	// Missing says in words what onboarding still needs, and where it is
	// done, when it is not allowed.
	Missing string
	// Error: the onboarding state could not be read.
	Error string
}

// FundingAsset is one supported deposit asset that no treasury wallet
// receives at its own address: the Partner API issues an address for it.
type FundingAsset struct {
	ID       string // element id prefix
	Chain    string
	Currency string
	// Address is the issued address, with its QR code; empty until one is
	// created.
	Address   string
	QR        string
	CreatedAt time.Time
	CreatedBy string
	// Token is the create form's one-time token (no address yet).
	Token string
}

// FundingRoutes is the routing of issued USD and NGN accounts' deposits
// to a treasury wallet.
type FundingRoutes struct {
	// CanManage: the viewer may route and unroute (an owner).
	CanManage bool
	// Error: the treasury's admins could not be read; no form is offered.
	Error   string
	Holders []Option // the treasury's admins known to the app
	Wallets []Option // the treasury's USDB and CNGN wallets
	Token   string
	Routes  []FundingRoute
	// NoAdmins: the treasury's approval policy names no admin, so no
	// account can be routed to its wallets.
	NoAdmins bool
}

// FundingRoute is a route in force.
type FundingRoute struct {
	Holder        string // the account holder's name
	ServiceUserID string
	Rail          string // USD or NGN
	Wallet        string // the wallet's label
	WalletID      string
	RoutedAt      time.Time
	RoutedBy      string
	// Token is the remove form's one-time token (owners only).
	Token string
}
