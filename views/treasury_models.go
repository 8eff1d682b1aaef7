package views

import "time"

// TreasuryView is the page that moves value from the treasury: the three
// proposal forms and the new wallet form.
type TreasuryView struct {
	Wallets   []TreasuryWallet
	Coins     []string
	Transfer  ProposalForm
	Swap      ProposalForm
	Send      ProposalForm
	NewWallet NewWalletForm
	Error     string // the API's refusal or an unknown outcome, with the input kept
	// OwnerProof is the sign request just issued for a new wallet.
	OwnerProof *SignPanel
}

// TreasuryWallet is a treasury wallet to move value from.
type TreasuryWallet struct {
	ID      string
	Label   string // "USD (USDB) · balance 250,000.00 USD"
	Balance Amount
}

// ProposalForm is what was typed into one of the forms that propose moving
// value: a transfer to an employee, a swap, or a send from the treasury
// account. Token is the form's one-time token: posting it twice sends once.
type ProposalForm struct {
	Token        string
	WalletID     string
	To           RecipientPicker // a transfer's or send's recipient; ToUserID chosen in it
	ToUserID     string
	ToStablecoin string // a swap's
	Amount       string
	SlippageBps  string // a swap's
	Description  string // a send's note
	Fields       FieldErrors
}

// NewWalletForm creates a treasury wallet whose owner key is on a device.
type NewWalletForm struct {
	Token    string
	Currency string
	Owner    string
	Fields   FieldErrors
}

// CryptoWithdrawalView is the page that sends a treasury wallet's balance to
// an external address over the crypto rail.
type CryptoWithdrawalView struct {
	Wallets []TreasuryWallet
	Routes  CryptoRoutes
	Form    CryptoWithdrawalForm
	Error   string // the API's refusal or an unknown outcome, with the input kept
}

// CryptoRoutes is the destination chain and token field of the chosen
// wallet; htmx swaps it when another wallet is chosen.
type CryptoRoutes struct {
	Choices     []Choice // Value "chain:TOKEN", Label "USDC on base"
	Selected    string
	Error       string // the field's message
	Unavailable string // the API could not list the routes
}

// CryptoWithdrawalForm is what was typed, with a one-time token: the same
// token posted twice sends one withdrawal.
type CryptoWithdrawalForm struct {
	Token    string
	WalletID string
	Route    string
	Address  string
	Fields   FieldErrors
}

// CryptoWithdrawalRecord is one withdrawal: what was sent, its state, and
// the sign request that carries the owner's signature.
type CryptoWithdrawalRecord struct {
	ID int64
	// State is the withdrawal's ("awaiting_signature", "created",
	// "completed", "rail_failed") once the API opened it, before that the
	// request's ("begun", "refused", "unknown").
	State      string
	StateLabel string
	// Signed: the owner's signature was accepted; the rail is moving it.
	Signed     bool
	From       string // the wallet, "USD (USDB) wallet …"
	Amount     string // what leaves: the whole balance, with the last balance read
	To         string // the destination address (EIP-55)
	Route      string // "USDC on base"
	UpstreamID string
	CreatedBy  string
	CreatedAt  time.Time
	Error      string
	Note       string // e.g. opened without a signature
	Sign       *SignPanel
	// CanIssueLink offers a new signing link (the earlier one is replaced).
	CanIssueLink bool
	// SettledAt is when a withdrawal webhook recorded the outcome on the
	// rail (completed, or failed with the reason in Error).
	SettledAt *time.Time
	// PollURL reloads the record while the request is still being sent.
	PollURL string
}

// withdrawalBadge is the badge class of a withdrawal's state.
func withdrawalBadge(v CryptoWithdrawalRecord) string {
	switch v.State {
	case "awaiting_signature":
		if v.Signed {
			return "badge-ok"
		}
		return "badge-pending"
	case "begun":
		return "badge-pending"
	case "created", "done":
		return "badge-ok"
	case "completed":
		return "badge-completed"
	case "refused":
		return "badge-refused"
	case "rail_failed":
		return "badge-failed"
	}
	return "badge-warn"
}

// WithdrawalFailureWords says why a signed withdrawal did not complete (the
// rail's reason, as the withdrawal webhook gave it).
func WithdrawalFailureWords(reason string) string {
	if reason == "" {
		return "The withdrawal failed on the rail after it was signed; the API gave no reason."
	}
	return "The withdrawal failed on the rail after it was signed: " + reason
}
