package sandbox

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

// railState is the identity and money-movement half of the sandbox state:
// KYC per user, rail onboarding, virtual and deposit accounts, withdrawal
// accounts and every rail's orders and signature workflows. It lives in
// state.Rails and is exported and imported with the rest of the state.
type railState struct {
	KYC                map[string]*kycRecord         `json:"kyc"`        // by serviceUserId
	Onboarding         map[string]*railOnboarding    `json:"onboarding"` // by serviceUserId
	Accounts           map[string]*virtualAccount    `json:"accounts"`   // by account id
	WithdrawalAccounts map[string]*withdrawalAccount `json:"withdrawalAccounts"`
	Workflows          map[string]*workflow          `json:"workflows"` // signature requests by workflowId
	Offramps           map[string]*ngnOfframp        `json:"offramps"`  // Nigerian offramps by proposal id
	Payouts            map[string]*payout            `json:"payouts"`
	CryptoWithdrawals  map[string]*cryptoWithdrawal  `json:"cryptoWithdrawals"`
	DepositWallets     map[string]*depositWallet     `json:"depositWallets"`
	EUOrders           map[string]*euOrder           `json:"euOrders"`
	MXOrders           map[string]*mxOrder           `json:"mxOrders"`
	CashOrders         map[string]*cashOrder         `json:"cashOrders"`
	Quotes             map[string]*exchangeQuote     `json:"quotes"`
	Conversions        map[string]*conversion        `json:"conversions"`
	// FailNext counts the next off-chain operations of a rail that the
	// control API made fail (keys: railFail* constants).
	FailNext map[string]int `json:"failNext"`
	// AssertionKey signs the MXN launch assertions (hex, made on first use).
	AssertionKey string `json:"assertionKey,omitempty"`
}

func newRailState() *railState {
	return &railState{
		KYC:                map[string]*kycRecord{},
		Onboarding:         map[string]*railOnboarding{},
		Accounts:           map[string]*virtualAccount{},
		WithdrawalAccounts: map[string]*withdrawalAccount{},
		Workflows:          map[string]*workflow{},
		Offramps:           map[string]*ngnOfframp{},
		Payouts:            map[string]*payout{},
		CryptoWithdrawals:  map[string]*cryptoWithdrawal{},
		DepositWallets:     map[string]*depositWallet{},
		EUOrders:           map[string]*euOrder{},
		MXOrders:           map[string]*mxOrder{},
		CashOrders:         map[string]*cashOrder{},
		Quotes:             map[string]*exchangeQuote{},
		Conversions:        map[string]*conversion{},
		FailNext:           map[string]int{},
	}
}

// fill replaces the nil maps of a decoded railState.
func (r *railState) fill() *railState {
	if r == nil {
		return newRailState()
	}
	f := newRailState()
	if r.KYC == nil {
		r.KYC = f.KYC
	}
	if r.Onboarding == nil {
		r.Onboarding = f.Onboarding
	}
	if r.Accounts == nil {
		r.Accounts = f.Accounts
	}
	if r.WithdrawalAccounts == nil {
		r.WithdrawalAccounts = f.WithdrawalAccounts
	}
	if r.Workflows == nil {
		r.Workflows = f.Workflows
	}
	if r.Offramps == nil {
		r.Offramps = f.Offramps
	}
	if r.Payouts == nil {
		r.Payouts = f.Payouts
	}
	if r.CryptoWithdrawals == nil {
		r.CryptoWithdrawals = f.CryptoWithdrawals
	}
	if r.DepositWallets == nil {
		r.DepositWallets = f.DepositWallets
	}
	if r.EUOrders == nil {
		r.EUOrders = f.EUOrders
	}
	if r.MXOrders == nil {
		r.MXOrders = f.MXOrders
	}
	if r.CashOrders == nil {
		r.CashOrders = f.CashOrders
	}
	if r.Quotes == nil {
		r.Quotes = f.Quotes
	}
	if r.Conversions == nil {
		r.Conversions = f.Conversions
	}
	if r.FailNext == nil {
		r.FailNext = f.FailNext
	}
	return r
}

// rails returns the rail state, creating it for states restored from files
// written before it existed. Caller holds mu.
func (s *Server) rails() *railState {
	if s.st.Rails == nil {
		s.st.Rails = newRailState()
	}
	return s.st.Rails
}

// Rail names used by FailNext (control API "fail-next").
const (
	railFailUSDVBA    = "usd-vba"
	railFailNGNPayout = "ngn-payout"
	railFailPayout    = "payout"
	railFailCrypto    = "crypto"
	railFailSEPA      = "sepa"
	railFailMXOfframp = "mx-offramp"
	railFailCashSend  = "cash-send"
	railFailCanada    = "cad-onboarding"
	railFailEUR       = "eur-onboarding"
)

var railFailNames = []string{railFailUSDVBA, railFailNGNPayout, railFailPayout, railFailCrypto, railFailSEPA, railFailMXOfframp, railFailCashSend, railFailCanada, railFailEUR}

// takeFailure consumes one injected failure of rail.
func (s *Server) takeFailure(rail string) bool {
	r := s.rails()
	if r.FailNext[rail] > 0 {
		r.FailNext[rail]--
		if r.FailNext[rail] == 0 {
			delete(r.FailNext, rail)
		}
		return true
	}
	return false
}

// Sandbox delays of the rails' own workflows, in sandbox time. The settle
// control call jumps over them.
const (
	vbaProvisioningDelay = 2 * time.Minute  // provisioning → pending
	vbaBackfillDelay     = 10 * time.Minute // pending → active
	railOnboardingDelay  = 5 * time.Minute  // CAD pending → active
	mxVerificationDelay  = 3 * time.Minute  // proposed → approved_chain_deploying → approved, each
	quoteTTL             = 2 * time.Minute  // MXN and payout quotes
	exchangeQuoteTTL     = 30 * time.Second // exchange quote (firm, time-boxed)
	cashOrderTTL         = 24 * time.Hour
	launchTTL            = 5 * time.Minute // spec: "about 5 minutes"
)

// railSettleDelay is how long an off-chain rail operation takes after its
// signature: the Server's SettleDelay (negative: only the settle control
// call completes it).
func (s *Server) railSettleDelay() (time.Duration, bool) {
	if s.opts.SettleDelay < 0 {
		return 0, false
	}
	return s.opts.SettleDelay, true
}

func (s *Server) due(since *time.Time) bool {
	d, ok := s.railSettleDelay()
	return ok && since != nil && !s.now().Before(since.Add(d))
}

// ---- records ----

type kycIdentification struct {
	Type           string    `json:"type"`
	DocumentNumber string    `json:"documentNumber"`
	IssuingCountry string    `json:"issuingCountry"` // alpha-3
	ExpirationDate string    `json:"expirationDate,omitempty"`
	IssueDate      string    `json:"issueDate,omitempty"`
	Sides          []string  `json:"sides"`
	ContentTypes   []string  `json:"contentTypes"`
	UploadedAt     time.Time `json:"uploadedAt"`
	// SHA256 are the hex digests of the sides' bytes, in the order of Sides.
	SHA256 []string `json:"sha256,omitempty"`
}

type kycFile struct {
	Type        string    `json:"type,omitempty"`
	ContentType string    `json:"contentType"`
	Size        int       `json:"size"`
	UploadedAt  time.Time `json:"uploadedAt"`
	// SHA256 is the hex digest of the file's bytes (the file is not kept).
	SHA256 string `json:"sha256,omitempty"`
}

// kycActivation is one POST /kyc/activate: it opens one onboarding of its
// path (spec: "Activation is per onboarding, not per profile").
type kycActivation struct {
	Path              string     `json:"path"` // global, ngn, cad
	IdentityLevelName string     `json:"identityLevelName,omitempty"`
	Country           string     `json:"country"`
	At                time.Time  `json:"at"`
	UsedBy            string     `json:"usedBy,omitempty"` // fiat currency whose start consumed it
	UsedAt            *time.Time `json:"usedAt,omitempty"`
}

type kycRecord struct {
	UserID  string        `json:"userId"`
	Profile storedProfile `json:"profile"`
	// Fixed submit order bookkeeping.
	OptionsAt      *time.Time         `json:"optionsAt,omitempty"`
	OccupationsAt  *time.Time         `json:"occupationsAt,omitempty"`
	PatchedAt      *time.Time         `json:"patchedAt,omitempty"`
	ReadinessAt    *time.Time         `json:"readinessAt,omitempty"`
	ChangedAt      *time.Time         `json:"changedAt,omitempty"` // last PATCH or upload
	ChangeSeq      int64              `json:"changeSeq"`
	ReadinessSeq   int64              `json:"readinessSeq"`
	FromInvite     bool               `json:"fromInvite"`
	Identification *kycIdentification `json:"identification,omitempty"`
	ProofOfAddress *kycFile           `json:"proofOfAddress,omitempty"`
	Biometric      *kycFile           `json:"biometric,omitempty"`
	Activations    []*kycActivation   `json:"activations"`
	Approved       bool               `json:"approved"` // a global activation succeeded
	MXStatus       string             `json:"mxStatus,omitempty"`
	MXStatusAt     *time.Time         `json:"mxStatusAt,omitempty"`
	MXLaunchedAt   *time.Time         `json:"mxLaunchedAt,omitempty"`
	MXAllowance    decimal.Decimal    `json:"mxAllowance"`
	LegacyMXNe     bool               `json:"legacyMXNe,omitempty"`
	EUAuthorizedAt *time.Time         `json:"euAuthorizedAt,omitempty"`
}

// storedProfile is the stored profile in the shape of the PATCH body.
type storedProfile struct {
	Profile                *kycPersonal     `json:"profile,omitempty"`
	Address                *kycAddress      `json:"address,omitempty"`
	Employment             *kycEmployment   `json:"employment,omitempty"`
	SourceOfFunds          string           `json:"sourceOfFunds,omitempty"`
	EstimatedMonthlyVolume *decimal.Decimal `json:"estimatedMonthlyVolume,omitempty"`
	AccountPurpose         string           `json:"accountPurpose,omitempty"`
	ActingAsIntermediary   *bool            `json:"actingAsIntermediary,omitempty"`
	IdentificationNumbers  []kycIDNumber    `json:"identificationNumbers,omitempty"`
	BVN                    string           `json:"bvn,omitempty"`
}

type kycPersonal struct {
	PersonalInfo *kycPersonalInfo `json:"personalInfo,omitempty"`
}

type kycPersonalInfo struct {
	FirstName   string `json:"firstName,omitempty"`
	LastName    string `json:"lastName,omitempty"`
	MiddleName  string `json:"middleName,omitempty"`
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	Nationality string `json:"nationality,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
	Gender      string `json:"gender,omitempty"`
}

type kycAddress struct {
	StreetLine1 string `json:"streetLine1,omitempty"`
	City        string `json:"city,omitempty"`
	State       string `json:"state,omitempty"`
	PostalCode  string `json:"postalCode,omitempty"`
	CountryCode string `json:"countryCode,omitempty"`
}

type kycEmployment struct {
	EmploymentStatus string  `json:"employmentStatus,omitempty"`
	OccupationCode   *string `json:"occupationCode"`
	EmployerName     string  `json:"employerName,omitempty"`
	Occupation       string  `json:"occupation,omitempty"`
}

type kycIDNumber struct {
	Type               string `json:"type"`
	Number             string `json:"number"`
	IssuingCountryCode string `json:"issuingCountryCode"`
}

func (p *storedProfile) info() kycPersonalInfo {
	if p.Profile == nil || p.Profile.PersonalInfo == nil {
		return kycPersonalInfo{}
	}
	return *p.Profile.PersonalInfo
}

func (p *storedProfile) addr() kycAddress {
	if p.Address == nil {
		return kycAddress{}
	}
	return *p.Address
}

func (p *storedProfile) idNumber(typ string) *kycIDNumber {
	for i := range p.IdentificationNumbers {
		if p.IdentificationNumbers[i].Type == typ {
			return &p.IdentificationNumbers[i]
		}
	}
	return nil
}

// railOnboarding is a user's rail onboardings.
type railOnboarding struct {
	UserID string `json:"userId"`
	// USD: the virtual account drives the status (Accounts).
	USDWalletID      string     `json:"usdWalletId,omitempty"`
	USDWalletAddress string     `json:"usdWalletAddress,omitempty"`
	USDWalletIndex   *int       `json:"usdWalletIndex,omitempty"`
	USDMirrored      bool       `json:"usdMirrored,omitempty"` // spec: NGN wallet mirrored onto the USD fields
	NGNWalletAddress string     `json:"ngnWalletAddress,omitempty"`
	NGNWalletIndex   *int       `json:"ngnWalletIndex,omitempty"`
	NGNStatus        string     `json:"ngnStatus,omitempty"`
	CADWalletAddress string     `json:"cadWalletAddress,omitempty"`
	CADWalletIndex   *int       `json:"cadWalletIndex,omitempty"`
	CADStatus        string     `json:"cadStatus,omitempty"`
	CADStatusAt      *time.Time `json:"cadStatusAt,omitempty"`
	EURWalletAddress string     `json:"eurWalletAddress,omitempty"`
	EURWalletIndex   *int       `json:"eurWalletIndex,omitempty"`
	EURStatus        string     `json:"eurProviderStatus,omitempty"`
	MXNWalletAddress string     `json:"mxnWalletAddress,omitempty"`
	MXNWalletIndex   *int       `json:"mxnWalletIndex,omitempty"`
	MXNStarted       bool       `json:"mxnStarted,omitempty"`
}

// virtualAccount is a virtual bank account or deposit account of a user.
type virtualAccount struct {
	ID             string    `json:"id"`
	UserID         string    `json:"userId"`
	Currency       string    `json:"currency"` // fiat
	Status         string    `json:"status"`
	StatusAt       time.Time `json:"statusAt"`
	Reason         string    `json:"reason,omitempty"`
	WorkflowID     string    `json:"workflowId,omitempty"`
	AccountName    string    `json:"accountName"`
	AccountNumber  string    `json:"accountNumber,omitempty"`
	RoutingNumber  string    `json:"routingNumber,omitempty"`
	BankName       string    `json:"bankName"`
	BankAddress    string    `json:"bankAddress,omitempty"`
	BankCode       string    `json:"bankCode,omitempty"`
	SwiftCode      string    `json:"swiftCode,omitempty"`
	IBAN           string    `json:"iban,omitempty"`
	Clabe          string    `json:"clabe,omitempty"`
	AccountType    string    `json:"accountType,omitempty"`
	DepositMessage string    `json:"depositMessage,omitempty"`
	RouteWalletID  string    `json:"routeWalletId,omitempty"` // onramp routing
	Registered     bool      `json:"registered"`              // employee.vba.registered sent
	CreatedAt      time.Time `json:"createdAt"`
	Seq            int64     `json:"seq"`
}

type withdrawalAccount struct {
	ID                string    `json:"id"`
	UserID            string    `json:"userId"`
	AccountNumber     string    `json:"accountNumber"`
	BankCode          string    `json:"bankCode"`
	BankName          string    `json:"bankName"`
	AccountHolderName string    `json:"accountHolderName"`
	CreatedAt         time.Time `json:"createdAt"`
	Seq               int64     `json:"seq"`
}

// Workflow kinds: what a signature request completes.
const (
	wfPayout      = "payout"
	wfCrypto      = "crypto_withdrawal"
	wfCryptoOff   = "crypto_offramp"
	wfSEPA        = "sepa_payout"
	wfMXAllowance = "mx_allowance"
	wfMXBurn      = "mx_burn"
	wfCashSend    = "cash_send"
	wfConvert     = "convert"
)

// Workflow statuses.
const (
	wfAwaiting  = "awaiting_signature"
	wfSubmitted = "submitted"
	wfCompleted = "completed"
	wfFailed    = "failed"
	wfExpired   = "expired"
)

// workflow is a rail operation waiting for (or past) its owner signature.
type workflow struct {
	ID          string          `json:"id"`
	UserID      string          `json:"userId"`
	WalletID    string          `json:"walletId"`
	Kind        string          `json:"kind"`
	RefID       string          `json:"refId"`
	Amount      decimal.Decimal `json:"amount"`
	Currency    string          `json:"currency"`
	Destination string          `json:"destination"`
	Signers     []string        `json:"signers"`
	Hash        string          `json:"hashToSign"`
	Deadline    time.Time       `json:"deadline"`
	Status      string          `json:"status"`
	Signature   string          `json:"signature,omitempty"`
	CreatedAt   time.Time       `json:"createdAt"`
	SubmittedAt *time.Time      `json:"submittedAt,omitempty"`
}

type ngnOfframp struct {
	ProposalID      string          `json:"proposalId"`
	UserID          string          `json:"userId"`
	WalletID        string          `json:"walletId"`
	BankAccountID   string          `json:"bankAccountId"`
	FromCurrency    string          `json:"fromCurrency"`
	FromAmount      decimal.Decimal `json:"fromAmount"`
	NGNAmount       decimal.Decimal `json:"ngnAmount"`
	Fee             decimal.Decimal `json:"fee"`
	Rate            decimal.Decimal `json:"rate"`
	PayoutStatus    string          `json:"payoutStatus"` // awaiting_chain, processing, completed, failed
	PayoutStartedAt *time.Time      `json:"payoutStartedAt,omitempty"`
	FailureReason   string          `json:"failureReason,omitempty"`
	CreatedAt       time.Time       `json:"createdAt"`
}

type payout struct {
	ID                string          `json:"id"`
	UserID            string          `json:"userId"`
	WalletID          string          `json:"walletId"`
	WorkflowID        string          `json:"workflowId"`
	AmountMinor       minor           `json:"amount"`
	SourceAmount      decimal.Decimal `json:"sourceAmount"`
	Fee               decimal.Decimal `json:"fee"`
	Rate              decimal.Decimal `json:"rate"`
	DestinationAmount decimal.Decimal `json:"destinationAmount"`
	Country           string          `json:"country"`
	Currency          string          `json:"currency"`
	BankID            string          `json:"bankId"`
	AccountNumber     string          `json:"accountNumber"`
	AccountHolderName string          `json:"accountHolderName"`
	Note              string          `json:"note,omitempty"`
	Status            string          `json:"status"`
	ExpiresAt         time.Time       `json:"expiresAt"`
	CreatedAt         time.Time       `json:"createdAt"`
}

type cryptoWithdrawal struct {
	ID                  string          `json:"id"`
	Kind                string          `json:"kind"`
	UserID              string          `json:"userId"`
	WalletID            string          `json:"walletId"`
	WorkflowID          string          `json:"workflowId"`
	Amount              decimal.Decimal `json:"amount"`
	DestinationChain    string          `json:"destinationChain"`
	DestinationCurrency string          `json:"destinationCurrency"`
	DestinationAddress  string          `json:"destinationAddress"`
	Status              string          `json:"status"`
	CreatedAt           time.Time       `json:"createdAt"`
}

type depositWallet struct {
	Address  string `json:"address"`
	UserID   string `json:"userId"`
	Chain    string `json:"chain"`
	Currency string `json:"currency"`
}

type euOrder struct {
	ID              string          `json:"id"`
	UserID          string          `json:"userId"`
	WalletID        string          `json:"walletId"`
	WorkflowID      string          `json:"workflowId"`
	Amount          decimal.Decimal `json:"amount"`
	IBAN            string          `json:"iban"`
	BeneficiaryName string          `json:"beneficiaryName"`
	Reference       string          `json:"reference,omitempty"`
	Status          string          `json:"status"` // prepared, processing, completed, failed, expired
	CreatedAt       time.Time       `json:"createdAt"`
}

type mxOrder struct {
	ID                string          `json:"id"`
	QuoteID           string          `json:"quoteId,omitempty"`
	UserID            string          `json:"userId"`
	WalletID          string          `json:"walletId"`
	OrderType         string          `json:"orderType"` // onramp, offramp
	Status            string          `json:"status"`
	StatusAt          time.Time       `json:"statusAt"`
	AmountInFiat      decimal.Decimal `json:"amountInFiat"`
	AmountInTokens    decimal.Decimal `json:"amountInTokens"`
	FeeAmount         decimal.Decimal `json:"feeAmount"`
	Memo              string          `json:"memo,omitempty"`
	DepositClabe      string          `json:"depositClabe"`
	DepositClabeName  string          `json:"depositClabeName"`
	AllowanceWorkflow string          `json:"allowanceWorkflowId,omitempty"`
	BurnWorkflow      string          `json:"burnWorkflowId,omitempty"`
	ExpiresAt         time.Time       `json:"expiresAt"`
	CreatedAt         time.Time       `json:"createdAt"`
}

type cashOrder struct {
	ID            string          `json:"id"`
	OrderID       string          `json:"orderId"` // provider order id
	UserID        string          `json:"userId"`
	WalletID      string          `json:"walletId"`
	Type          string          `json:"type"` // FUND, SEND
	Status        string          `json:"status"`
	Country       string          `json:"country"`
	Price         decimal.Decimal `json:"price"`
	PriceCurrency string          `json:"priceCurrency"`
	Description   string          `json:"description"`
	WorkflowID    string          `json:"workflowId,omitempty"`
	Expiry        time.Time       `json:"expiry"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
	Seq           int64           `json:"seq"`
}

type exchangeQuote struct {
	ID        string          `json:"id"`
	UserID    string          `json:"userId"`
	From      string          `json:"fromCurrency"`
	To        string          `json:"toCurrency"`
	Amount    decimal.Decimal `json:"fromAmount"`
	ToAmount  decimal.Decimal `json:"toAmount"`
	Rate      decimal.Decimal `json:"exchangeRate"`
	ExpiresAt time.Time       `json:"expiresAt"`
	Used      bool            `json:"used"`
}

type conversion struct {
	ID         string          `json:"id"`
	UserID     string          `json:"userId"`
	From       string          `json:"fromCurrency"`
	To         string          `json:"toCurrency"`
	Amount     decimal.Decimal `json:"fromAmount"`
	ToAmount   decimal.Decimal `json:"toAmount"`
	Rate       decimal.Decimal `json:"exchangeRate"`
	WorkflowID string          `json:"workflowId"`
	Status     string          `json:"status"`
}

// ---- helpers shared by the rails ----

func (s *Server) kycOf(userID string) *kycRecord {
	r := s.rails()
	k := r.KYC[userID]
	if k == nil {
		k = &kycRecord{UserID: userID, Activations: []*kycActivation{}, MXAllowance: decimal.Zero}
		r.KYC[userID] = k
	}
	return k
}

func (s *Server) onboardingOf(userID string) *railOnboarding {
	r := s.rails()
	o := r.Onboarding[userID]
	if o == nil {
		o = &railOnboarding{UserID: userID}
		r.Onboarding[userID] = o
	}
	return o
}

// userAccount returns the user's virtual/deposit account in fiat currency.
func (s *Server) userAccount(userID, fiat string) *virtualAccount {
	var found *virtualAccount
	for _, a := range s.rails().Accounts {
		if a.UserID == userID && a.Currency == fiat && (found == nil || a.Seq > found.Seq) {
			found = a
		}
	}
	return found
}

func (s *Server) accountsInOrder() []*virtualAccount {
	var out []*virtualAccount
	for _, a := range s.rails().Accounts {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// digitsFrom derives n decimal digits from a label, deterministically.
func digitsFrom(label string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		h := ethsig.Keccak256([]byte(fmt.Sprintf("%s/%d", label, i)))
		for _, x := range h {
			if b.Len() == n {
				break
			}
			b.WriteByte('0' + x%10)
		}
	}
	return b.String()
}

// addressFrom derives an EVM address from a label.
func addressFrom(label string) string {
	h := ethsig.Keccak256([]byte(label))
	var a ethsig.Address
	copy(a[:], h[12:])
	return a.Hex()
}

// isActiveAdmin applies spec: "the caller must be an active admin of the
// wallet": the path user owns the wallet or is an admin of the owner's
// approval policy, and neither is deleted.
func (s *Server) isActiveAdmin(caller *user, w *wallet) bool {
	owner := s.st.Users[w.UserID]
	if owner == nil || owner.DeletedAt != nil || caller.DeletedAt != nil || owner.PartnerID != caller.PartnerID {
		return false
	}
	if w.Status != "active" {
		return false
	}
	return owner.ID == caller.ID || slices.Contains(owner.Policy.Admins, caller.ID)
}

// partnerWallet finds a wallet of the caller's partner (404 otherwise).
func (c *call) partnerWallet(id string) (*wallet, error) {
	w := c.s.st.Wallets[id]
	if w == nil {
		return nil, notFound(msgItemNotFound)
	}
	owner := c.s.st.Users[w.UserID]
	if owner == nil || owner.PartnerID != c.partner.ID || owner.DeletedAt != nil {
		return nil, notFound(msgItemNotFound)
	}
	return w, nil
}

// emitUser sends a partner-scoped event about u.
func (s *Server) emitUser(u *user, name string, payload map[string]any) {
	if u == nil {
		return
	}
	payload["userId"] = u.ID
	payload["serviceUserId"] = u.ID
	s.emit(u.PartnerID, name, payload)
}

// withdrawalEvent fires employee.withdrawal.* (wallet.withdrawal.* on
// global subscriptions).
func (s *Server) withdrawalEvent(w *wallet, state string, amount decimal.Decimal, rail, reference, reason string) {
	u := s.st.Users[w.UserID]
	p := map[string]any{
		"smartWalletId": w.ID,
		"currency":      w.Currency,
		"amount":        amount.String(),
		"rail":          rail,
		"reference":     reference,
	}
	if reason != "" {
		p["reason"] = reason
	}
	s.emitUser(u, "employee.withdrawal."+state, p)
}

// credit adds amount to w and fires the deposit event.
func (s *Server) credit(w *wallet, amount decimal.Decimal, source, reference string) {
	w.Balance = w.Balance.Add(amount)
	s.depositEvent(w, amount, source, reference)
}

// debit removes amount from w or reports the shortfall.
func debit(w *wallet, amount decimal.Decimal) error {
	if w.Balance.LessThan(amount) {
		return badRequest(fmt.Sprintf("Insufficient balance: %s %s available, %s needed", w.Balance, w.Currency, amount))
	}
	w.Balance = w.Balance.Sub(amount)
	return nil
}

func numDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}
