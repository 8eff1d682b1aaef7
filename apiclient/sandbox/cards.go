package sandbox

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

var (
	colorPattern = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	digits       = regexp.MustCompile(`^[0-9]+$`)
)

// Issuer statuses (spec: "Issuer-reported, read only ... pending, active,
// inactive, frozen, restricted, lost, stolen"); canceled is the sandbox's
// value after PUT .../deactivate.
var issuerStatuses = []string{"pending", "active", "inactive", "frozen", "restricted", "lost", "stolen", "canceled"}

const (
	otpTTL         = 10 * time.Minute
	maxLedger      = 100 // spec: "most recent 100 entries, newest first"
	defaultTxPage  = 20
	maxTxPage      = 100
	reservedStatus = "RESERVED"
)

// cardFee is the creation fee charged to the wallet, in the wallet's token.
func cardFee(currency, typ string) decimal.Decimal {
	fee := map[string]string{"USD/virtual": "1", "USD/physical": "5", "NGN/virtual": "1000", "NGN/physical": "5000"}
	return decimal.RequireFromString(fee[currency+"/"+typ])
}

// cardCaps are the provider caps (spec: "maxTotalDailyLimit,
// maxSingleTransactionLimitCap"), and the default limits of a new card.
func cardCaps(currency string) (maxDaily, maxSingle, daily, single decimal.Decimal) {
	if currency == "NGN" {
		return decimal.NewFromInt(5_000_000), decimal.NewFromInt(1_000_000), decimal.NewFromInt(1_000_000), decimal.NewFromInt(500_000)
	}
	return decimal.NewFromInt(10_000), decimal.NewFromInt(5_000), decimal.NewFromInt(2_000), decimal.NewFromInt(1_000)
}

// majorNumber writes a major-unit amount as a JSON number without going
// through float64.
func majorNumber(d decimal.Decimal) json.Number { return json.Number(d.String()) }

type createCardRequest struct {
	CardName            *string `json:"cardName"`
	CardColor           string  `json:"cardColor"`
	Currency            string  `json:"currency"`
	Type                string  `json:"type"`
	SmartWalletID       string  `json:"smartWalletId"`
	NIN                 *string `json:"nin"`
	State               string  `json:"state"`
	DeliveryAddress     string  `json:"deliveryAddress"`
	DeliveryState       string  `json:"deliveryState"`
	DeliveryPhoneNumber string  `json:"deliveryPhoneNumber"`
	PAN                 string  `json:"pan"`
	OTPChannel          string  `json:"otpChannel"`
	FundingPolicy       string  `json:"fundingPolicy"`
	FundLifecycle       string  `json:"fundLifecycle"`
}

// nigerianPhone accepts the spec's "+234, 234 or 0 prefix".
func nigerianPhone(s string) bool {
	s = normalPhone(s)
	for _, p := range []string{"+234", "234", "0"} {
		if rest, ok := strings.CutPrefix(s, p); ok && len(rest) == 10 && digits.MatchString(rest) {
			return true
		}
	}
	return false
}

// createCard implements POST /v1/users/{userId}/cards.
func (c *call) createCard() (any, error) {
	var in createCardRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if msgs := validateCardRequest(in); len(msgs) > 0 {
		return nil, validation(msgs)
	}
	nin := ""
	if in.NIN != nil {
		nin = strings.TrimSpace(*in.NIN)
		if len(nin) != 11 || !digits.MatchString(nin) {
			// spec: "400 | NIN must be exactly 11 digits | NIN not 11 digits after trimming"
			return nil, badRequest("NIN must be exactly 11 digits")
		}
	}
	w, err := c.ownWallet(in.SmartWalletID)
	if err != nil {
		return nil, err
	}
	if w.Legacy {
		// spec: "migrationRequired: true and migrationHint for legacy wallets"
		return map[string]any{"success": false, "data": map[string]any{
			"flow":              "group",
			"migrationRequired": true,
			"migrationHint":     "This wallet is a legacy (pre-multi-signature) wallet and cannot hold cards. Create a managed wallet (owner proof, create-managed) and issue the card against it.",
		}}, nil
	}
	if fiatOf(w.Currency) != in.Currency {
		return nil, badRequest(fmt.Sprintf("A %s card must be issued against a %s wallet", in.Currency, stablecoinOfFiat(in.Currency)))
	}
	if nin == "" && !c.user.CardEnrolled {
		// spec: "omitting nin for an owner never issued a card returns 400
		// code E101 ('not enrolled for cards')"
		return nil, e101("Card owner is not enrolled for cards: nin is required for the first card")
	}
	fee := cardFee(in.Currency, in.Type)
	if w.Balance.LessThan(fee) {
		return nil, badRequest(fmt.Sprintf("Insufficient balance for the card creation fee (%s %s)", fee, w.Currency))
	}
	c.user.CardEnrolled = true
	out := c.issueCard(in, w, fee)
	c.status = http.StatusCreated
	return map[string]any{"success": true, "data": out}, nil
}

// validateCardRequest returns one message per invalid field of a card
// creation.
func validateCardRequest(in createCardRequest) []string {
	var msgs []string
	if in.CardName == nil || len([]rune(strings.TrimSpace(*in.CardName))) < 1 || len([]rune(*in.CardName)) > 50 {
		// spec: "Card name length | 1 to 50 characters"
		msgs = append(msgs, "cardName must be between 1 and 50 characters")
	}
	if !colorPattern.MatchString(in.CardColor) {
		msgs = append(msgs, "cardColor must be a hex colour #RGB or #RRGGBB")
	}
	if in.Currency != "NGN" && in.Currency != "USD" {
		msgs = append(msgs, "currency must be one of the following values: NGN, USD")
	}
	if in.Type != "virtual" && in.Type != "physical" {
		msgs = append(msgs, "type must be one of the following values: virtual, physical")
	}
	if in.SmartWalletID == "" {
		msgs = append(msgs, "smartWalletId should not be empty")
	}
	if in.PAN != "" && (len(in.PAN) < 13 || len(in.PAN) > 19 || !digits.MatchString(in.PAN)) {
		msgs = append(msgs, "pan must be 13 to 19 digits")
	}
	if in.OTPChannel != "" && in.OTPChannel != "sms" && in.OTPChannel != "email" {
		msgs = append(msgs, "otpChannel must be one of the following values: sms, email")
	}
	if in.DeliveryPhoneNumber != "" && !nigerianPhone(in.DeliveryPhoneNumber) {
		msgs = append(msgs, "deliveryPhoneNumber must be a Nigerian number with a +234, 234 or 0 prefix")
	}
	if in.Type == "physical" && in.PAN == "" && strings.TrimSpace(in.DeliveryAddress) == "" {
		msgs = append(msgs, "deliveryAddress should not be empty for a physical card without pan")
	}
	if in.FundingPolicy != "" && !slices.Contains([]string{"SAFE", "PERSONAL", "BOTH"}, in.FundingPolicy) {
		msgs = append(msgs, "fundingPolicy must be one of the following values: SAFE, PERSONAL, BOTH")
	}
	if in.FundLifecycle != "" && !slices.Contains([]string{"ONE_TIME", "REPEATABLE"}, in.FundLifecycle) {
		msgs = append(msgs, "fundLifecycle must be one of the following values: ONE_TIME, REPEATABLE")
	}
	return msgs
}

// issueCard charges the creation fee, opens the issuance proposal (approved
// on the caller's behalf) and keeps the card; it returns the answer's data.
func (c *call) issueCard(in createCardRequest, w *wallet, fee decimal.Decimal) map[string]any {
	// spec: "feeAmount, feeCurrency (creation fee charged to the wallet)"
	w.Balance = w.Balance.Sub(fee)
	now := c.s.now()
	p := c.s.newProposal(w, typeCardIssuance)
	p.Amount = fee
	p.Description = "Card issuance: " + strings.TrimSpace(*in.CardName)
	// spec: "PENDING_APPROVALS may be skipped for card issuance: the service
	// approves that proposal on the caller's behalf."
	p.Approvals = []string{c.partner.ID}
	c.s.enterSigning(p)
	if c.s.opts.CardSweepDelay > 0 {
		ready := now.Add(c.s.opts.CardSweepDelay)
		p.SweepReadyAt = &ready
	}
	c.s.st.putProposal(p)
	_, _, daily, single := cardCaps(in.Currency)
	cd := &card{
		ID: c.s.newID(), UserID: c.user.ID, WalletID: w.ID, ProposalID: p.ID,
		Name: strings.TrimSpace(*in.CardName), Color: in.CardColor, Currency: in.Currency, Type: in.Type,
		FundingPolicy: orDefault(in.FundingPolicy, "SAFE"), FundLifecycle: orDefault(in.FundLifecycle, "REPEATABLE"),
		DailyLimit: daily, SingleLimit: single, Ledger: []ledgerEntry{}, Transactions: []cardTx{},
		CreatedAt: now, Seq: c.s.st.next(),
	}
	if in.PAN != "" {
		cd.Last4 = in.PAN[len(in.PAN)-4:]
	}
	c.s.st.putCard(cd)
	out := map[string]any{
		"flow":           "group",
		"feeAmount":      fee.String(),
		"feeCurrency":    w.Currency,
		"proposalId":     p.ID,
		"proposalStatus": p.Status,
		"signPayload":    nil,
	}
	if c.s.sweepReady(p) {
		out["signPayload"] = c.s.signPayloadJSON(p, w)
	} else {
		out["signPayloadPending"] = true
		out["signPayloadHint"] = "The fee sweep is still confirming; poll the sign-payload endpoint and sign when it is ready."
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (s *Server) sweepReady(p *proposal) bool {
	return p.SweepReadyAt == nil || !s.now().Before(*p.SweepReadyAt)
}

// cardSignPayload implements the card issuance route of sign-payload:
// GET /v1/users/{userId}/cards/{proposalId}/sign-payload answers 409 while
// not ready (spec: "409 | sign-payload on the card issuance route | payload
// not ready; keep polling").
func (c *call) cardSignPayload() (any, error) {
	p := c.s.st.Proposals[c.param("cardId")]
	if p == nil || p.Type != typeCardIssuance {
		return nil, notFound(msgItemNotFound)
	}
	w := c.s.st.Wallets[p.WalletID]
	if w == nil || w.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	if p.Status != statusPendingSignatures || !c.s.sweepReady(p) {
		return nil, conflict("Sign payload is not ready yet; keep polling")
	}
	return map[string]any{"success": true, "data": c.s.signPayloadJSON(p, w)}, nil
}

// releaseCardReservation undoes a card issuance that will never execute:
// the reserved entry disappears and the fee returns to the wallet.
func (s *Server) releaseCardReservation(p *proposal) {
	if p.Type != typeCardIssuance {
		return
	}
	for _, cd := range s.walletCards(p.WalletID) {
		if cd.ProposalID == p.ID && !cd.Issued {
			s.st.dropCard(cd.ID)
		}
	}
	if w := s.st.Wallets[p.WalletID]; w != nil {
		w.Balance = w.Balance.Add(p.Amount)
	}
}

// issueCard completes a card issuance proposal.
func (s *Server) issueCard(p *proposal) {
	var cd *card
	for _, x := range s.walletCards(p.WalletID) {
		if x.ProposalID == p.ID {
			cd = x
		}
	}
	if cd == nil || cd.Issued {
		return
	}
	now := s.now()
	cd.Issued = true
	if cd.Last4 == "" {
		d, err := s.randomDigits(4)
		if err != nil {
			d = "0000"
		}
		cd.Last4 = d
	}
	// spec: "Virtual cards need no activation. Physical cards need the
	// request and confirm calls."
	if cd.Type == "virtual" {
		cd.IssuerStatus, cd.Activated = "active", true
	} else {
		cd.IssuerStatus = "pending"
	}
	cd.Ledger = append(cd.Ledger, ledgerEntry{ID: s.newID(), Type: "fee", Amount: -toMinor(p.Amount), Currency: cd.Currency, Description: "Card creation fee", CreatedAt: now})
	if w := s.st.Wallets[cd.WalletID]; w != nil && w.Balance.IsPositive() {
		cd.FundedAt = &now
	}
	p.CardID = cd.ID
	if u := s.st.Users[cd.UserID]; u != nil {
		s.emit(u.PartnerID, "card.fulfillment.updated", map[string]any{
			"cardId": cd.ID, "serviceUserId": u.ID, "type": cd.Type, "status": "issued", "issuerStatus": cd.IssuerStatus,
		})
	}
}

// cardsFunded sets fundedAt on the wallet's cards at their first funding.
func (s *Server) cardsFunded(w *wallet) {
	now := s.now()
	for _, cd := range s.walletCards(w.ID) {
		if cd.Issued && cd.FundedAt == nil {
			cd.FundedAt = &now
		}
	}
}

func (s *Server) cardJSON(cd *card) map[string]any {
	return map[string]any{
		"id":            cd.ID,
		"status":        cd.IssuerStatus,
		"currency":      cd.Currency,
		"type":          cd.Type,
		"fundingPolicy": cd.FundingPolicy,
		"fundLifecycle": cd.FundLifecycle,
		"fundedAt":      isoPtr(cd.FundedAt),
		"cardName":      cd.Name,
		"cardColor":     cd.Color,
		"last4":         cd.Last4,
		"smartWalletId": cd.WalletID,
		"isReserved":    false,
		"activated":     cd.Activated,
		"createdAt":     iso(cd.CreatedAt),
	}
}

func (s *Server) reservedJSON(cd *card, p *proposal) map[string]any {
	// spec: "id | card id; for a reserved entry, the issuance proposal id"
	return map[string]any{
		"id":             p.ID,
		"status":         reservedStatus,
		"isReserved":     true,
		"proposalId":     p.ID,
		"proposalStatus": p.Status,
		"cardName":       cd.Name,
		"cardColor":      cd.Color,
		"currency":       cd.Currency,
		"type":           cd.Type,
		"fundingPolicy":  cd.FundingPolicy,
		"fundLifecycle":  cd.FundLifecycle,
		"fundedAt":       nil,
		"smartWalletId":  cd.WalletID,
		"createdAt":      iso(cd.CreatedAt),
	}
}

func (s *Server) walletCards(walletID string) []*card {
	cs := append([]*card(nil), s.st.index().cards[walletID]...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
	return cs
}

// listCards implements GET .../smart-wallets/{smartWalletId}/cards.
func (c *call) listCards() (any, error) {
	w, err := c.ownWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, cd := range c.s.walletCards(w.ID) {
		if cd.Issued {
			out = append(out, c.s.cardJSON(cd))
			continue
		}
		if p := c.s.st.Proposals[cd.ProposalID]; p != nil {
			out = append(out, c.s.reservedJSON(cd, p))
		}
	}
	return map[string]any{"data": out}, nil
}

// ownCard finds an issued card of the path user.
func (c *call) ownCard() (*card, error) {
	cd := c.s.st.Cards[c.param("cardId")]
	if cd == nil || cd.UserID != c.user.ID || !cd.Issued {
		return nil, notFound(msgItemNotFound)
	}
	return cd, nil
}

// cardDetail implements GET .../smart-wallets/{smartWalletId}/cards/{cardId}.
func (c *call) cardDetail() (any, error) {
	w, err := c.ownWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	if p := c.s.st.Proposals[c.param("cardId")]; p != nil && p.Type == typeCardIssuance && p.WalletID == w.ID {
		for _, cd := range c.s.walletCards(w.ID) {
			if cd.ProposalID == p.ID && !cd.Issued {
				return map[string]any{"data": c.s.reservedJSON(cd, p)}, nil
			}
		}
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	if cd.WalletID != w.ID {
		return nil, notFound(msgItemNotFound)
	}
	m := c.s.cardJSON(cd)
	// spec: "balanceMinor | detail route only, minor units"
	m["balanceMinor"] = toMinor(w.Balance)
	ledger := []ledgerEntry{}
	for i := len(cd.Ledger) - 1; i >= 0 && len(ledger) < maxLedger; i-- {
		ledger = append(ledger, cd.Ledger[i])
	}
	m["ledger"] = ledger
	return map[string]any{"data": m}, nil
}

// getCard implements GET /v1/users/{userId}/cards/{cardId}: "the only call
// that reports a live card's status".
func (c *call) getCard() (any, error) {
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": c.s.cardJSON(cd)}, nil
}

// setCardStatus implements PUT /cards/{cardId}/status.
func (c *call) setCardStatus() (any, error) {
	var in struct {
		Status string `json:"status"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	// spec: "Values are upper-case and case-sensitive. Any other value gets
	// 400 before it leaves the service."
	if in.Status != "BLOCKED" && in.Status != "ACTIVE" {
		return nil, validation([]string{"status must be one of the following values: BLOCKED, ACTIVE"})
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	switch {
	case in.Status == "BLOCKED" && (cd.IssuerStatus == "active" || cd.IssuerStatus == "frozen"):
		cd.IssuerStatus = "frozen"
	case in.Status == "ACTIVE" && cd.Activated && (cd.IssuerStatus == "frozen" || cd.IssuerStatus == "active"):
		cd.IssuerStatus = "active"
	default:
		// spec: "500 | The current status does not allow it"; "ACTIVE does not
		// activate a never-activated card".
		return nil, internal(msgStatusNotAllow)
	}
	return map[string]any{"success": true, "data": c.s.cardJSON(cd)}, nil
}

// activateRequest implements POST /cards/{cardId}/activate/request.
func (c *call) activateRequest() (any, error) {
	var in struct {
		Channel string `json:"channel"`
		PAN     string `json:"pan"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.Channel != "sms" && in.Channel != "email" {
		msgs = append(msgs, "channel must be one of the following values: sms, email")
	}
	if in.PAN != "" && (len(in.PAN) < 13 || len(in.PAN) > 19 || !digits.MatchString(in.PAN)) {
		msgs = append(msgs, "pan must be 13 to 19 digits")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	if cd.Type != "physical" {
		return nil, badRequest("Virtual cards need no activation")
	}
	if cd.Activated || cd.IssuerStatus != "pending" {
		return nil, internal(msgStatusNotAllow)
	}
	code, err := c.s.randomDigits(6)
	if err != nil {
		return nil, err
	}
	exp := c.s.now().Add(otpTTL)
	cd.OTPID, cd.OTPCode, cd.OTPExpires = c.s.newID(), code, &exp
	return map[string]any{"success": true, "data": map[string]any{"otpId": cd.OTPID, "expiresInMinutes": int(otpTTL / time.Minute)}}, nil
}

// activateConfirm implements POST /cards/{cardId}/activate/confirm.
func (c *call) activateConfirm() (any, error) {
	var in struct {
		OTPID string `json:"otpId"`
		Code  string `json:"code"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.OTPID == "" {
		msgs = append(msgs, "otpId should not be empty")
	}
	if len(in.Code) != 6 || !digits.MatchString(in.Code) {
		// spec: "Card activation code | exactly 6 digits"
		msgs = append(msgs, "code must be exactly 6 digits")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	switch {
	case cd.OTPID == "" || cd.OTPID != in.OTPID:
		return nil, badRequest("Unknown otpId: request a new activation code")
	case cd.OTPExpires != nil && c.s.now().After(*cd.OTPExpires):
		return nil, badRequest("Activation code expired: request a new one")
	case cd.OTPCode != in.Code:
		return nil, badRequest("Invalid activation code")
	}
	cd.Activated, cd.IssuerStatus = true, "active"
	cd.OTPID, cd.OTPCode, cd.OTPExpires = "", "", nil
	if u := c.s.st.Users[cd.UserID]; u != nil {
		c.s.emit(u.PartnerID, "card.fulfillment.updated", map[string]any{
			"cardId": cd.ID, "serviceUserId": u.ID, "type": cd.Type, "status": "activated", "issuerStatus": cd.IssuerStatus,
		})
	}
	return map[string]any{"success": true, "data": c.s.cardJSON(cd)}, nil
}

// setPIN implements PUT /cards/{cardId}/pin and POST /cards/{cardId}/reset.
func (c *call) setPIN() (any, error) {
	var in struct {
		PIN string `json:"pin"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if len(in.PIN) != 4 || !digits.MatchString(in.PIN) {
		// spec: "Card PIN | exactly 4 digits"
		return nil, validation([]string{"pin must be exactly 4 digits"})
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	if cd.IssuerStatus == "canceled" || cd.IssuerStatus == "lost" || cd.IssuerStatus == "stolen" {
		return nil, internal(msgStatusNotAllow)
	}
	cd.PIN = in.PIN
	return map[string]any{"success": true, "message": "PIN set"}, nil
}

func (s *Server) spentToday(cd *card) decimal.Decimal {
	y, m, d := s.now().Date()
	total := decimal.Zero
	for _, tx := range cd.Transactions {
		ty, tm, td := tx.CreatedAt.Date()
		if tx.Status == "COMPLETED" && ty == y && tm == m && td == d {
			total = total.Add(tx.Amount)
		}
	}
	return total
}

func (s *Server) limitsJSON(cd *card) map[string]any {
	maxDaily, maxSingle, _, _ := cardCaps(cd.Currency)
	avail := cd.DailyLimit.Sub(s.spentToday(cd))
	if avail.IsNegative() {
		avail = decimal.Zero
	}
	return map[string]any{
		"totalDailyLimit":              majorNumber(cd.DailyLimit),
		"maxSingleTransactionAmount":   majorNumber(cd.SingleLimit),
		"availableDailyLimit":          majorNumber(avail),
		"maxTotalDailyLimit":           majorNumber(maxDaily),
		"maxSingleTransactionLimitCap": majorNumber(maxSingle),
		"currency":                     cd.Currency,
	}
}

func (c *call) getLimits() (any, error) {
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": c.s.limitsJSON(cd)}, nil
}

// setLimits implements PUT /cards/{cardId}/set-limit within the provider caps.
func (c *call) setLimits() (any, error) {
	var in struct {
		TotalDailyLimit            json.RawMessage `json:"totalDailyLimit"`
		MaxSingleTransactionAmount json.RawMessage `json:"maxSingleTransactionAmount"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	maxDaily, maxSingle, _, _ := cardCaps(cd.Currency)
	var msgs []string
	// spec: "{ totalDailyLimit, maxSingleTransactionAmount } numbers"
	daily, err1 := jsonNumber(in.TotalDailyLimit)
	single, err2 := jsonNumber(in.MaxSingleTransactionAmount)
	if err1 != nil || !daily.IsPositive() {
		msgs = append(msgs, "totalDailyLimit must be a positive number")
	} else if daily.GreaterThan(maxDaily) {
		msgs = append(msgs, "totalDailyLimit must not exceed maxTotalDailyLimit ("+maxDaily.String()+")")
	}
	if err2 != nil || !single.IsPositive() {
		msgs = append(msgs, "maxSingleTransactionAmount must be a positive number")
	} else if single.GreaterThan(maxSingle) {
		msgs = append(msgs, "maxSingleTransactionAmount must not exceed maxSingleTransactionLimitCap ("+maxSingle.String()+")")
	}
	if err1 == nil && err2 == nil && single.GreaterThan(daily) {
		msgs = append(msgs, "maxSingleTransactionAmount must not exceed totalDailyLimit")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	if cd.IssuerStatus == "canceled" {
		return nil, internal(msgStatusNotAllow)
	}
	cd.DailyLimit, cd.SingleLimit = daily, single
	return map[string]any{"success": true, "data": c.s.limitsJSON(cd)}, nil
}

func parseDay(s string, end bool) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t, true
}

// cardTransactions implements GET /cards/{cardId}/transactions with size,
// status, from and to.
func (c *call) cardTransactions() (any, error) {
	q := c.r.URL.Query()
	var msgs []string
	size := defaultTxPage
	if v := q.Get("size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxTxPage {
			msgs = append(msgs, fmt.Sprintf("size must be an integer between 1 and %d", maxTxPage))
		}
		size = n
	}
	var from, to time.Time
	var ok bool
	if v := q.Get("from"); v != "" {
		if from, ok = parseDay(v, false); !ok {
			msgs = append(msgs, "from must be an ISO 8601 date")
		}
	}
	if v := q.Get("to"); v != "" {
		if to, ok = parseDay(v, true); !ok {
			msgs = append(msgs, "to must be an ISO 8601 date")
		}
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	status := strings.ToUpper(q.Get("status"))
	out := []any{}
	for i := len(cd.Transactions) - 1; i >= 0 && len(out) < size; i-- {
		tx := cd.Transactions[i]
		if status != "" && tx.Status != status {
			continue
		}
		if !from.IsZero() && tx.CreatedAt.Before(from) {
			continue
		}
		if !to.IsZero() && tx.CreatedAt.After(to) {
			continue
		}
		out = append(out, map[string]any{
			"id":           tx.ID,
			"amount":       majorNumber(tx.Amount), // spec: "amount as a major-unit number"
			"fee":          majorNumber(tx.Fee),
			"currency":     tx.Currency,
			"status":       tx.Status,
			"merchantName": tx.MerchantName,
			"createdAt":    iso(tx.CreatedAt),
		})
	}
	return map[string]any{"data": out, "size": size}, nil
}

// deactivateCard implements PUT /cards/{cardId}/deactivate (permanent).
func (c *call) deactivateCard() (any, error) {
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	if cd.IssuerStatus == "canceled" {
		return nil, internal(msgStatusNotAllow)
	}
	cd.IssuerStatus = "canceled"
	return map[string]any{"success": true, "data": c.s.cardJSON(cd)}, nil
}

// spend simulates a card spend (control API) and fires
// card.transaction.created.
func (s *Server) spend(cd *card, amount, fee decimal.Decimal, merchant string) cardTx {
	now := s.now()
	tx := cardTx{ID: s.newID(), Amount: amount, Fee: fee, Currency: cd.Currency, MerchantName: merchant, CreatedAt: now, Status: "COMPLETED"}
	w := s.st.Wallets[cd.WalletID]
	switch {
	case cd.IssuerStatus != "active" || w == nil:
		tx.Status = "DECLINED"
	case amount.GreaterThan(cd.SingleLimit) || s.spentToday(cd).Add(amount).GreaterThan(cd.DailyLimit):
		tx.Status = "DECLINED"
	case w.Balance.LessThan(amount.Add(fee)):
		tx.Status = "DECLINED"
	}
	if tx.Status == "COMPLETED" {
		w.Balance = w.Balance.Sub(amount.Add(fee))
		cd.Ledger = append(cd.Ledger, ledgerEntry{ID: s.newID(), Type: "debit", Amount: -toMinor(amount), Currency: cd.Currency, Description: merchant, CreatedAt: now})
		if fee.IsPositive() {
			cd.Ledger = append(cd.Ledger, ledgerEntry{ID: s.newID(), Type: "fee", Amount: -toMinor(fee), Currency: cd.Currency, Description: "Transaction fee", CreatedAt: now})
		}
		if cd.FundedAt == nil {
			cd.FundedAt = &now
		}
	}
	cd.Transactions = append(cd.Transactions, tx)
	if u := s.st.Users[cd.UserID]; u != nil {
		// spec: "card.transaction.created payload carries amount and fee as
		// decimal strings"
		s.emit(u.PartnerID, "card.transaction.created", map[string]any{
			"cardId": cd.ID, "transactionId": tx.ID, "serviceUserId": u.ID, "smartWalletId": cd.WalletID,
			"amount": amount.String(), "fee": fee.String(), "currency": cd.Currency, "status": tx.Status,
			"merchantName": merchant, "createdAt": iso(now),
		})
	}
	return tx
}

// jsonNumber decodes a JSON number (not a string) into a decimal without
// going through float64.
func jsonNumber(raw json.RawMessage) (decimal.Decimal, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return decimal.Zero, fmt.Errorf("not a number: %w", err)
	}
	n, ok := v.(json.Number)
	if !ok {
		return decimal.Zero, errors.New("not a JSON number")
	}
	d, err := decimal.NewFromString(n.String())
	if err != nil {
		return decimal.Zero, fmt.Errorf("not a number: %w", err)
	}
	return d, nil
}

// providerIdentity derives the issuer's identifiers of a card.
func providerIdentity(cd *card) (identityID, providerCardID string) {
	h := ethsig.Keccak256([]byte("sandbox-card-provider:" + cd.ID))
	return "idn_" + hex.EncodeToString(h[:6]), "crd_" + hex.EncodeToString(h[6:12])
}

// cardSensitive implements GET .../smart-wallets/{smartWalletId}/cards/{cardId}/sensitive:
// the provider card identity only.
func (c *call) cardSensitive() (any, error) {
	w, err := c.ownWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	cd, err := c.ownCard()
	if err != nil {
		return nil, err
	}
	if cd.WalletID != w.ID {
		return nil, notFound(msgItemNotFound)
	}
	identity, providerCard := providerIdentity(cd)
	return map[string]any{"data": map[string]any{"identityId": identity, "cardId": providerCard}}, nil
}

// sensitiveData implements POST /cards/sensitive-data: made-up PAN, CVV,
// expiry and billing address for a sandbox card (never logged).
func (c *call) sensitiveData() (any, error) {
	var in struct {
		IdentityID string `json:"identityId"`
		CardID     string `json:"cardId"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.IdentityID == "" {
		msgs = append(msgs, "identityId should not be empty")
	}
	if in.CardID == "" {
		msgs = append(msgs, "cardId should not be empty")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	for _, cd := range c.s.st.Cards {
		identity, providerCard := providerIdentity(cd)
		if cd.UserID != c.user.ID || !cd.Issued || identity != in.IdentityID || providerCard != in.CardID {
			continue
		}
		h := ethsig.Keccak256([]byte("sandbox-card-pan:" + cd.ID))
		var sb strings.Builder
		for _, b := range h[:12] {
			sb.WriteByte('0' + b%10)
		}
		d := sb.String()
		exp := cd.CreatedAt.AddDate(3, 0, 0)
		return map[string]any{"data": map[string]any{
			"pan":         "5399" + d[:8] + cd.Last4,
			"cvv":         d[8:11],
			"expiryMonth": fmt.Sprintf("%02d", int(exp.Month())),
			"expiryYear":  fmt.Sprintf("%d", exp.Year()),
			"billingAddress": map[string]any{
				"line1": "1 Sandbox Way", "city": "Lagos", "state": "Lagos", "postalCode": "100001", "country": "NGA",
			},
		}}, nil
	}
	return nil, notFound(msgItemNotFound)
}
