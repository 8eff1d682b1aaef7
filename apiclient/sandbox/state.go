package sandbox

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// state is everything the sandbox remembers. It is exported and imported as
// JSON by the control API and saved to Options.StatePath.
type state struct {
	Version     int                       `json:"version"`
	ClockOffset time.Duration             `json:"clockOffset"`
	Seq         int64                     `json:"seq"`
	Partners    map[string]*partner       `json:"partners"`
	Users       map[string]*user          `json:"users"`
	Wallets     map[string]*wallet        `json:"wallets"`
	Challenges  map[string]*challenge     `json:"challenges"`
	Proposals   map[string]*proposal      `json:"proposals"`
	Cards       map[string]*card          `json:"cards"`
	Webhooks    map[string]*webhookConfig `json:"webhooks"`
	Deliveries  map[string]*delivery      `json:"deliveries"`
	Invites     map[string]*invite        `json:"invites"`
	Faults      []*fault                  `json:"faults"`
	Rails       *railState                `json:"rails"`

	idx *walletIndex
}

const stateVersion = 1

func newState() *state {
	return &state{
		Version:    stateVersion,
		Partners:   map[string]*partner{},
		Users:      map[string]*user{},
		Wallets:    map[string]*wallet{},
		Challenges: map[string]*challenge{},
		Proposals:  map[string]*proposal{},
		Cards:      map[string]*card{},
		Webhooks:   map[string]*webhookConfig{},
		Deliveries: map[string]*delivery{},
		Invites:    map[string]*invite{},
		Rails:      newRailState(),
	}
}

func decodeState(b []byte) (*state, error) {
	st := newState()
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state version %d, want %d", st.Version, stateVersion)
	}
	fresh := newState()
	if st.Partners == nil {
		st.Partners = fresh.Partners
	}
	if st.Users == nil {
		st.Users = fresh.Users
	}
	if st.Wallets == nil {
		st.Wallets = fresh.Wallets
	}
	if st.Challenges == nil {
		st.Challenges = fresh.Challenges
	}
	if st.Proposals == nil {
		st.Proposals = fresh.Proposals
	}
	if st.Cards == nil {
		st.Cards = fresh.Cards
	}
	if st.Webhooks == nil {
		st.Webhooks = fresh.Webhooks
	}
	if st.Deliveries == nil {
		st.Deliveries = fresh.Deliveries
	}
	if st.Invites == nil {
		st.Invites = fresh.Invites
	}
	st.Rails = st.Rails.fill()
	return st, nil
}

func (st *state) next() int64 {
	st.Seq++
	return st.Seq
}

type partner struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	APIKey string `json:"apiKey"`
}

func sortedPartners(st *state) []*partner {
	var ps []*partner
	for _, p := range st.Partners {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name+ps[i].ID < ps[j].Name+ps[j].ID })
	return ps
}

// Approval modes (spec: "Approval mode of an account: ANY_ADMIN,
// ADMIN_THRESHOLD or OWNER_APPROVAL").
const (
	modeAnyAdmin       = "ANY_ADMIN"
	modeAdminThreshold = "ADMIN_THRESHOLD"
	modeOwnerApproval  = "OWNER_APPROVAL"
)

type approvalPolicy struct {
	Mode      string   `json:"mode"`
	Admins    []string `json:"admins"`
	Threshold int      `json:"threshold"`
}

type user struct {
	ID           string            `json:"serviceUserId"`
	PartnerID    string            `json:"partnerId"`
	Email        string            `json:"email"`
	FirstName    string            `json:"firstName"`
	LastName     string            `json:"lastName"`
	PhoneNumber  string            `json:"phoneNumber"`
	EmployeeID   string            `json:"employeeId"`
	CreatedAt    time.Time         `json:"createdAt"`
	DeletedAt    *time.Time        `json:"deletedAt,omitempty"`
	Policy       approvalPolicy    `json:"approvalPolicy"`
	CardEnrolled bool              `json:"cardEnrolled"`
	KYC          json.RawMessage   `json:"kyc,omitempty"`
	Selfie       bool              `json:"selfie"`
	Onboarding   map[string]string `json:"onboarding,omitempty"`
	Seq          int64             `json:"seq"`
}

type wallet struct {
	ID               string          `json:"id"`
	UserID           string          `json:"userId"`
	Address          string          `json:"address"`
	Chain            string          `json:"chain"`
	Currency         string          `json:"currency"`
	Status           string          `json:"status"`
	Legacy           bool            `json:"legacy"`
	UserOwnerAddress string          `json:"userOwnerAddress"`
	Balance          decimal.Decimal `json:"balance"`
	// Signers is the signer snapshot taken at wallet creation (spec: "the
	// proposal's signer snapshot, which holds the address registered at
	// wallet creation"); Threshold is the signatures a proposal needs.
	Signers   []string  `json:"signers"`
	Threshold int       `json:"threshold"`
	CreatedAt time.Time `json:"createdAt"`
	Seq       int64     `json:"seq"`
}

type challenge struct {
	ID               string    `json:"id"`
	UserID           string    `json:"userId"`
	Currency         string    `json:"currency"`
	UserOwnerAddress string    `json:"userOwnerAddress"`
	Message          string    `json:"message"`
	ExpiresAt        time.Time `json:"expiresAt"`
	Used             bool      `json:"used"`
}

// Proposal statuses (spec, States: Proposal status; agreed with apiclient).
const (
	statusPendingApprovals  = "PENDING_APPROVALS"
	statusPendingSignatures = "PENDING_SIGNATURES"
	statusSubmitted         = "SUBMITTED"
	statusCompleted         = "COMPLETED"
	statusFailed            = "FAILED"
	statusRejected          = "REJECTED"
	statusExpired           = "EXPIRED"
	statusReadyToExecute    = "READY_TO_EXECUTE"
	statusExecuting         = "EXECUTING"
)

const (
	typeTransfer     = "TRANSFER"
	typeSwap         = "SWAP"
	typeCardIssuance = "CARD_ISSUANCE"
)

type proposal struct {
	ID              string            `json:"id"`
	WalletID        string            `json:"walletId"`
	Type            string            `json:"type"`
	Status          string            `json:"status"`
	Currency        string            `json:"currency"`
	Amount          decimal.Decimal   `json:"amount"`
	ToUserID        string            `json:"toUserId,omitempty"`
	ToAddress       string            `json:"toAddress,omitempty"`
	FromStablecoin  string            `json:"fromStablecoin,omitempty"`
	ToStablecoin    string            `json:"toStablecoin,omitempty"`
	SlippageBps     int               `json:"slippageBps,omitempty"`
	Description     string            `json:"description,omitempty"`
	Policy          approvalPolicy    `json:"policy"`
	Approvals       []string          `json:"approvals"`
	Signers         []string          `json:"signers"`
	Threshold       int               `json:"threshold"`
	Signatures      map[string]string `json:"signatures"`
	WorkflowID      string            `json:"workflowId"`
	Attempt         int               `json:"attempt"`
	SignDeadline    *time.Time        `json:"signDeadline,omitempty"`
	SweepReadyAt    *time.Time        `json:"sweepReadyAt,omitempty"`
	SubmittedAt     *time.Time        `json:"submittedAt,omitempty"`
	RejectionReason string            `json:"rejectionReason,omitempty"`
	FailureReason   string            `json:"failureReason,omitempty"`
	CardID          string            `json:"cardId,omitempty"`
	CreatedAt       time.Time         `json:"createdAt"`
	UpdatedAt       time.Time         `json:"updatedAt"`
	Seq             int64             `json:"seq"`
}

func (p *proposal) open() bool {
	switch p.Status {
	case statusPendingApprovals, statusPendingSignatures, statusFailed:
		return true
	}
	return false
}

type webhookConfig struct {
	ID          string    `json:"id"`
	OwnerID     string    `json:"ownerPartnerId"`
	PartnerID   string    `json:"partnerId,omitempty"` // empty: legacy global scope
	CallbackURL string    `json:"callbackUrl"`
	SecretKey   string    `json:"secretKey"`
	Active      bool      `json:"active"`
	Events      []string  `json:"events"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Delivery statuses (spec: "pending, delivered or failed").
const (
	deliveryPending   = "pending"
	deliveryDelivered = "delivered"
	deliveryFailed    = "failed"
)

type delivery struct {
	ID            string          `json:"id"`
	ConfigID      string          `json:"configId"`
	OwnerID       string          `json:"ownerPartnerId"`
	EventType     string          `json:"eventType"`
	SourceEventID string          `json:"sourceEventId"`
	Body          json.RawMessage `json:"body"`
	Status        string          `json:"status"`
	Attempts      int             `json:"attempts"`
	ErrorMessage  string          `json:"errorMessage,omitempty"`
	LastStatus    int             `json:"lastResponseStatus,omitempty"`
	CreatedAt     time.Time       `json:"createdAt"`
	LastAttemptAt *time.Time      `json:"lastAttemptAt,omitempty"`
	Seq           int64           `json:"seq"`
}

type invite struct {
	ID        string          `json:"id"`
	PartnerID string          `json:"partnerId"`
	Name      string          `json:"name"`
	Email     string          `json:"email"`
	Token     string          `json:"token"`
	Code      string          `json:"code"`
	KYC       json.RawMessage `json:"kyc,omitempty"`
	Sends     int             `json:"sends"`
	Status    string          `json:"status"` // invited, linked
	UserID    string          `json:"serviceUserId,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	SentAt    time.Time       `json:"sentAt"`
	LinkedAt  *time.Time      `json:"linkedAt,omitempty"`
	Seq       int64           `json:"seq"`
}

type ledgerEntry struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	Amount      minor     `json:"amount"`
	Currency    string    `json:"currency"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"createdAt"`
}

type cardTx struct {
	ID           string          `json:"id"`
	Amount       decimal.Decimal `json:"amount"`
	Fee          decimal.Decimal `json:"fee"`
	Currency     string          `json:"currency"`
	Status       string          `json:"status"`
	MerchantName string          `json:"merchantName"`
	CreatedAt    time.Time       `json:"createdAt"`
}

type card struct {
	ID            string          `json:"id"`
	UserID        string          `json:"userId"`
	WalletID      string          `json:"smartWalletId"`
	ProposalID    string          `json:"proposalId"`
	Name          string          `json:"cardName"`
	Color         string          `json:"cardColor"`
	Currency      string          `json:"currency"`
	Type          string          `json:"type"`
	FundingPolicy string          `json:"fundingPolicy"`
	FundLifecycle string          `json:"fundLifecycle"`
	Last4         string          `json:"last4"`
	Issued        bool            `json:"issued"`
	IssuerStatus  string          `json:"issuerStatus"`
	Activated     bool            `json:"activated"`
	PIN           string          `json:"pin,omitempty"`
	OTPID         string          `json:"otpId,omitempty"`
	OTPCode       string          `json:"otpCode,omitempty"`
	OTPExpires    *time.Time      `json:"otpExpiresAt,omitempty"`
	DailyLimit    decimal.Decimal `json:"totalDailyLimit"`
	SingleLimit   decimal.Decimal `json:"maxSingleTransactionAmount"`
	FundedAt      *time.Time      `json:"fundedAt,omitempty"`
	Ledger        []ledgerEntry   `json:"ledger"`
	Transactions  []cardTx        `json:"transactions"`
	CreatedAt     time.Time       `json:"createdAt"`
	Seq           int64           `json:"seq"`
}

// minor is an amount in minor units (cents, kobo). It is written as a JSON
// string (spec: ledger "amount is a minor-unit string") and never mixed with
// decimal major-unit amounts.
type minor int64

func (m minor) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(strconv.FormatInt(int64(m), 10))), nil
}

func (m *minor) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		s = string(b)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("minor units: %w", err)
	}
	*m = minor(v)
	return nil
}

// toMinor converts a major-unit decimal to minor units (two decimals),
// truncating toward zero.
func toMinor(d decimal.Decimal) minor {
	return minor(d.Shift(2).Truncate(0).IntPart())
}

type fault struct {
	ID        string  `json:"id"`
	Method    string  `json:"method,omitempty"`
	Route     string  `json:"route"`
	LatencyMs int     `json:"latencyMs,omitempty"`
	Status    int     `json:"status,omitempty"`
	Message   string  `json:"message,omitempty"`
	Drop      bool    `json:"drop,omitempty"`
	Reset     bool    `json:"reset,omitempty"` // close with a TCP reset (RST) instead of a FIN
	After     bool    `json:"after,omitempty"` // act once the request was handled and saved
	Rate      float64 `json:"rate"`
	Remaining int     `json:"remaining,omitempty"` // 0: unlimited
}

// walletIndex lists each wallet's proposals and cards, so a wallet's own
// lists cost what the wallet holds, not what the whole sandbox holds. It is
// derived from the maps above, never saved, and rebuilt when missing.
type walletIndex struct {
	proposals map[string][]*proposal
	cards     map[string][]*card
}

func (st *state) index() *walletIndex {
	if st.idx != nil {
		return st.idx
	}
	idx := &walletIndex{proposals: map[string][]*proposal{}, cards: map[string][]*card{}}
	for _, p := range st.Proposals {
		idx.proposals[p.WalletID] = append(idx.proposals[p.WalletID], p)
	}
	for _, cd := range st.Cards {
		idx.cards[cd.WalletID] = append(idx.cards[cd.WalletID], cd)
	}
	st.idx = idx
	return idx
}

// putProposal stores a proposal and keeps the wallet index in step.
func (st *state) putProposal(p *proposal) {
	if _, seen := st.Proposals[p.ID]; seen {
		st.idx = nil
	} else if st.idx != nil {
		st.idx.proposals[p.WalletID] = append(st.idx.proposals[p.WalletID], p)
	}
	st.Proposals[p.ID] = p
}

// putCard stores a card and keeps the wallet index in step.
func (st *state) putCard(cd *card) {
	if _, seen := st.Cards[cd.ID]; seen {
		st.idx = nil
	} else if st.idx != nil {
		st.idx.cards[cd.WalletID] = append(st.idx.cards[cd.WalletID], cd)
	}
	st.Cards[cd.ID] = cd
}

// dropCard removes a card; the index is rebuilt at its next use.
func (st *state) dropCard(id string) {
	delete(st.Cards, id)
	st.idx = nil
}

// walletProposals returns the wallet's proposals, oldest first.
func (st *state) walletProposals(walletID string) []*proposal {
	ps := append([]*proposal(nil), st.index().proposals[walletID]...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].Seq < ps[j].Seq })
	return ps
}
