// Package treasury creates proposals from the partner's treasury wallets: a
// transfer to an employee, a swap with slippage, and account/send. Amounts
// are parsed as decimals and checked against the wallet balance in the
// mirror before anything is sent; a proposal is created upstream once (no
// retry of the POST) and recorded with its creator, who then may not
// approve it. It also starts crypto withdrawals, whose signature request
// goes to the owner's device through the sign area.
package treasury

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
	"partneradmin/views"
)

// API is what the treasury area calls.
type API interface {
	CreateTransferProposal(ctx context.Context, userID, walletID string, p apiclient.TransferProposal) (*apiclient.Proposal, error)
	CreateSwapProposal(ctx context.Context, userID, walletID string, p apiclient.SwapProposal) (*apiclient.Proposal, error)
	Send(ctx context.Context, userID string, req apiclient.SendRequest) (*apiclient.Proposal, error)
	GetCryptoWithdrawalSupport(ctx context.Context, userID, currency string) (*apiclient.CryptoWithdrawalSupport, error)
	CreateCryptoWithdrawal(ctx context.Context, userID string, req apiclient.CryptoWithdrawalRequest) (*apiclient.CryptoWithdrawal, error)
}

// Store is what the treasury area reads and writes.
type Store interface {
	TreasuryUsers(ctx context.Context) ([]store.Employee, error)
	WalletsByEmployee(ctx context.Context, employeeID int64) ([]store.Wallet, error)
	SearchTreasuryRecipients(ctx context.Context, q string, limit int) ([]store.Recipient, error)
	TreasuryRecipient(ctx context.Context, serviceUserID string) (store.Recipient, bool, error)
	RecordCreatedProposal(ctx context.Context, p store.Proposal, by store.Actor, detail string) error
	Audit(ctx context.Context, e store.AuditEntry) error
	BeginCryptoWithdrawal(ctx context.Context, n store.NewCryptoWithdrawal, by store.Actor) (store.CryptoWithdrawal, bool, error)
	FinishCryptoWithdrawal(ctx context.Context, id int64, o store.CryptoWithdrawalOutcome, by store.Actor) (store.CryptoWithdrawal, error)
	SetCryptoWithdrawalSignRequest(ctx context.Context, id, signRequestID int64) error
	CryptoWithdrawalByID(ctx context.Context, id int64) (store.CryptoWithdrawal, error)
	SignRequestByID(ctx context.Context, id int64) (store.SignRequest, error)
}

// Handler serves the treasury routes.
type Handler struct {
	*handlers.Base
	Store Store
	API   API
	Sign  SignRequests
	Now   func() time.Time
}

// New returns the treasury handler.
func New(base *handlers.Base, st Store, api API) *Handler {
	return &Handler{Base: base, Store: st, API: api, Now: time.Now}
}

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

// treasury is the partner's treasury user and its wallets.
type treasury struct {
	user    store.Employee
	wallets []store.Wallet
}

func (t treasury) wallet(id string) (store.Wallet, bool) {
	for _, w := range t.wallets {
		if w.ID == id {
			return w, true
		}
	}
	return store.Wallet{}, false
}

func (t treasury) walletOf(coin string) (store.Wallet, bool) {
	for _, w := range t.wallets {
		if w.Currency == coin {
			return w, true
		}
	}
	return store.Wallet{}, false
}

func (h *Handler) load(ctx context.Context) (treasury, error) {
	users, err := h.Store.TreasuryUsers(ctx)
	if err != nil {
		return treasury{}, err
	}
	for _, u := range users {
		if u.ServiceUserID == "" {
			continue
		}
		ws, err := h.Store.WalletsByEmployee(ctx, u.ID)
		if err != nil {
			return treasury{}, err
		}
		return treasury{user: u, wallets: ws}, nil
	}
	return treasury{}, errors.New("treasury: the partner has no treasury user in the mirror")
}

func money(w store.Wallet) views.Amount {
	fiat, ok := apiclient.Stablecoin(w.Currency).Fiat()
	a := views.Amount{Value: w.Balance.Decimal, Currency: w.Currency}
	if ok {
		a.Currency, a.Token = string(fiat), w.Currency
	}
	return a
}

// treasuryWallets are the wallets value moves from, labelled with their
// currency and last known balance.
func treasuryWallets(t treasury) []views.TreasuryWallet {
	var out []views.TreasuryWallet
	for _, w := range t.wallets {
		out = append(out, views.TreasuryWallet{ID: w.ID, Label: walletLabel(w), Balance: money(w)})
	}
	return out
}

// walletLabel is "USD (USDB) · balance 250,000.00 USD (USDB)".
func walletLabel(w store.Wallet) string {
	m := money(w)
	label := m.Currency
	if m.Token != "" {
		label += " (" + m.Token + ")"
	}
	if w.Balance.Valid {
		label += " · balance " + m.String()
	}
	return label
}

// view is the page: the forms as fill leaves them (what was typed, the
// messages; nil for empty forms), with their recipient fields.
func (h *Handler) view(ctx context.Context, t treasury, fill func(*views.TreasuryView)) (views.TreasuryView, error) {
	v := views.TreasuryView{
		Transfer: views.TransferForm{Fields: views.FieldErrors{}},
		Swap:     views.SwapForm{Fields: views.FieldErrors{}},
		Send:     views.SendForm{Fields: views.FieldErrors{}},
	}
	v.Wallets = treasuryWallets(t)
	for _, c := range apiclient.Stablecoins() {
		if !c.IsLegacy() {
			v.Coins = append(v.Coins, string(c))
		}
	}
	if fill != nil {
		fill(&v)
	}
	return v, h.pickers(ctx, &v)
}

// Form shows the three proposal forms.
func (h *Handler) Form(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v, err := h.view(r.Context(), t, nil)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Render(w, r, http.StatusOK, "New treasury proposal", views.TreasuryPage(v), nil)
}

// parseAmount checks a typed amount: a positive decimal with at most 18
// places, not more than the wallet's last known balance.
func parseAmount(s string, w *store.Wallet) (decimal.Decimal, string) {
	s = strings.TrimSpace(strings.ReplaceAll(s, ",", ""))
	if s == "" {
		return decimal.Zero, "Enter an amount."
	}
	if strings.ContainsAny(s, "eE+") {
		return decimal.Zero, "Write the amount as plain digits, like 1250.50."
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, "Write the amount as plain digits, like 1250.50."
	}
	if !d.IsPositive() {
		return decimal.Zero, "The amount must be more than zero."
	}
	if -d.Exponent() > 18 {
		return decimal.Zero, "Use at most 18 decimal places."
	}
	if w != nil && w.Balance.Valid && d.GreaterThan(w.Balance.Decimal) {
		return decimal.Zero, "More than the wallet holds (" + money(*w).String() + ")."
	}
	return d, ""
}

func checkText(s string, max int) string {
	if n := len([]rune(s)); n > max {
		return fmt.Sprintf("Keep it to %d characters (it has %d).", max, n)
	}
	return ""
}

// created records a proposal the API created, with its creator, and opens it.
func (h *Handler) created(w http.ResponseWriter, r *http.Request, t treasury, p *apiclient.Proposal, walletID, detail string) {
	sp := approvals.FromAPI(*p, t.user.ServiceUserID)
	if sp.WalletID == "" {
		sp.WalletID = walletID
	}
	if err := h.Store.RecordCreatedProposal(r.Context(), sp, handlers.ActorFrom(r.Context()), detail); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "Proposal created. Another approver must approve it.")
	h.Redirect(w, r, "/approvals/"+p.ID)
}

// upstreamFailed audits a refused or failed create and maps the API's
// answer to a field message where it names one, keeping the input.
func (h *Handler) upstreamFailed(ctx context.Context, action string, err error) (field, msg string, auditErr error) {
	var ae *apiclient.Error
	outcome := store.OutcomeRefused
	switch {
	case errors.As(err, &ae) && strings.Contains(strings.ToLower(ae.Message()), "no active account"):
		field, msg = "to", "This employee has no active account in this currency, so nothing can be sent to them yet."
	case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound:
		field, msg = "to", "The API does not know this employee (deleted, or another partner's)."
	case errors.As(err, &ae) && ae.StatusCode < 500:
		msg = "The API refused the proposal: " + ae.Message()
	case errors.As(err, &ae):
		outcome, msg = store.OutcomeFailed, "The API failed ("+ae.Message()+"); nothing was created. Your input is kept: try again."
	default:
		outcome, msg = store.OutcomeFailed, "The API did not answer; a proposal may or may not have been created. Check the approval queue (refresh it) before trying again."
	}
	auditErr = h.Store.Audit(ctx, store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: action, Target: "treasury",
		Outcome: outcome, Detail: msg})
	return field, msg, auditErr
}
