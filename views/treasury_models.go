package views

import (
	"context"
	"strconv"
	"time"
)

// TreasuryView is the page that moves value from the treasury: the three
// proposal forms and the new wallet form.
type TreasuryView struct {
	Balances  TreasuryBalances
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
	// Quote is a swap's firm quote, shown before it is proposed.
	Quote *SwapQuote
}

// SwapQuote is a firm exchange quote and the conversion it previews.
type SwapQuote struct {
	ID        string
	From, To  Amount
	Preview   Amount // what a conversion at the quote delivers now
	Rate      string
	ExpiresAt time.Time
	Expired   bool
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
	// Review, when set, is shown instead of the form: what will be sent,
	// confirmed before anything is.
	Review *CryptoWithdrawalReview
}

// CryptoWithdrawalReview is a checked withdrawal shown for confirmation:
// the person retypes the end of the address before it is sent.
type CryptoWithdrawalReview struct {
	From   string // "USD (USDB) wallet"
	Amount string // the whole balance, read just now
	Route  string // "USDC on base"
	// Address is the destination in its EIP-55 form.
	Address string
	// NoChecksum: the address was given in one case, so no checksum
	// caught a mistyped character.
	NoChecksum bool
	Tail       int // how many final characters to retype
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
	// Rail is "offramp" for the API's alternative crypto offramp, "" for
	// the crypto withdrawal.
	Rail    string
	Route   string
	Address string
	Fields  FieldErrors
}

// CryptoWithdrawalRecord is one withdrawal: what was sent, its state, and
// the sign request that carries the owner's signature.
type CryptoWithdrawalRecord struct {
	// Title is the rail's name: "Crypto withdrawal" or "Crypto offramp".
	Title string
	ID    int64
	// State is the withdrawal's ("awaiting_signature", "created",
	// "completed", "rail_failed") once the API opened it, before that the
	// request's ("begun", "refused", "unknown").
	State      string
	StateLabel string
	// Signed: the owner's signature was accepted; the rail is moving it.
	Signed bool
	From   string // the wallet, "USD (USDB) wallet"
	FromID string // the wallet's id
	// Back is the way back to the treasury.
	Back       string
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

// withdrawalBadge is the chip class of a withdrawal's state (Status); a
// signature on its way counts as progress.
func withdrawalBadge(v CryptoWithdrawalRecord) string {
	if v.State == "awaiting_signature" && v.Signed {
		return "badge-" + ToneInfo
	}
	return StatusClass(StatusWithdrawal, v.State)
}

// WithdrawalFailureWords says why a signed withdrawal did not complete (the
// rail's reason, as the withdrawal webhook gave it).
func WithdrawalFailureWords(reason string) string {
	if reason == "" {
		return "The withdrawal failed on the rail after it was signed; the API gave no reason."
	}
	return "The withdrawal failed on the rail after it was signed: " + reason
}

// TreasuryBalances is the treasury overview: each treasury wallet's
// balance, how old that figure is, and the value leaving it in proposals
// not yet completed.
type TreasuryBalances struct {
	// TreasuryUserID is the treasury user's serviceUserId (the approval
	// queue's filter for its proposals).
	TreasuryUserID string
	Rows           []TreasuryBalanceRow
	Now            time.Time
	// Error says why the balances could not be read just now (the figures
	// shown are the last ones read).
	Error string
}

// TreasuryBalanceRow is one treasury wallet.
type TreasuryBalanceRow struct {
	WalletID        string
	Token           string // USDB
	DisplayCurrency string // USD
	// Balance is nil until the balance was read once.
	Balance    *Amount
	ReadAt     *time.Time
	StaleSince *time.Time // value moved after ReadAt
	Leaving    Amount     // in proposals not yet completed
	LeavingN   int
	// Available is Balance less Leaving; nil with Balance.
	Available *Amount
	// LegacyToken: MXNe, replaced by MEXe.
	LegacyToken bool
	// LegacyWallet: a pre-multi-signature wallet (it cannot hold cards).
	LegacyWallet bool
}

// proposalCount is "1 proposal", "3 proposals".
func proposalCount(n int) string {
	if n == 1 {
		return "1 proposal"
	}
	return strconv.Itoa(n) + " proposals"
}

// staleAfter is how old a balance may be before the overview says it may be
// out of date.
const staleAfter = 15 * time.Minute

// Freshness says how current the row's balance is, in words.
func (r TreasuryBalanceRow) Freshness(ctx context.Context, now time.Time) string {
	switch {
	case r.ReadAt == nil:
		return "never read from the Partner API"
	case r.StaleSince != nil:
		return "read " + Ago(*r.ReadAt, now) + "; a proposal completed since, so it is being read again"
	case now.Sub(*r.ReadAt) > staleAfter:
		return "read " + Ago(*r.ReadAt, now) + ": it may have changed since; refresh to read it now"
	}
	return "as of " + DateTime(ctx, *r.ReadAt) + " (" + Ago(*r.ReadAt, now) + ")"
}

// Outdated reports whether the figure may no longer be the truth.
func (r TreasuryBalanceRow) Outdated(now time.Time) bool {
	return r.ReadAt == nil || r.StaleSince != nil || now.Sub(*r.ReadAt) > staleAfter
}
