package views

import "time"

// CryptoWithdrawalView is the page that sends a treasury wallet's balance to
// an external address over the crypto rail.
type CryptoWithdrawalView struct {
	Wallets []TreasuryWallet
	Routes  CryptoRoutes
	Form    CryptoWithdrawalForm
	Error   string // an upstream failure, with the input kept
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
	ID         int64
	State      string
	StateLabel string
	StateClass string
	From       string // the wallet, "USD (USDB) · balance …"
	Amount     string // what leaves: the whole balance, with the last balance read
	To         string // the destination address (EIP-55)
	Route      string // "USDC on base"
	UpstreamID string
	CreatedBy  string
	CreatedAt  time.Time
	Error      string
	Note       string // e.g. the form was sent twice
	Sign       *SignPanel
	// CanIssueLink offers a new signing link (the earlier one is replaced).
	CanIssueLink bool
	// SettledAt is when a withdrawal webhook recorded the outcome on the
	// rail (completed, or failed with the reason in Error).
	SettledAt *time.Time
}

// WithdrawalFailureWords says why a signed withdrawal did not complete (the
// rail's reason, as the withdrawal webhook gave it).
func WithdrawalFailureWords(reason string) string {
	if reason == "" {
		return "The withdrawal failed on the rail after it was signed; the API gave no reason."
	}
	return "The withdrawal failed on the rail after it was signed: " + reason
}
