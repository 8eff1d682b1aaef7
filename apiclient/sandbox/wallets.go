package sandbox

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

// stablecoins maps the spec's stablecoin codes to fiat codes, in the spec's
// order (spec: "Currency naming").
var stablecoins = []struct{ code, fiat string }{
	{"USDB", "USD"}, {"CNGN", "NGN"}, {"CADC", "CAD"}, {"EURe", "EUR"}, {"GBPe", "GBP"}, {"MEXe", "MXN"},
}

// usdValue is the sandbox's fixed price of one token in USD, used by swaps
// and card spends in another currency.
var usdValue = map[string]decimal.Decimal{
	"USDB": decimal.NewFromInt(1),
	"CNGN": decimal.RequireFromString("0.00065"),
	"CADC": decimal.RequireFromString("0.73"),
	"EURe": decimal.RequireFromString("1.08"),
	"GBPe": decimal.RequireFromString("1.27"),
	"MEXe": decimal.RequireFromString("0.055"),
}

func fiatOf(code string) string {
	for _, s := range stablecoins {
		if s.code == code {
			return s.fiat
		}
	}
	return ""
}

func stablecoinOfFiat(fiat string) string {
	for _, s := range stablecoins {
		if s.fiat == fiat {
			return s.code
		}
	}
	return ""
}

func supported(code string) bool { return fiatOf(code) != "" }

func stablecoinList() string {
	var codes []string
	for _, s := range stablecoins {
		codes = append(codes, s.code)
	}
	return strings.Join(codes, ", ")
}

// convert converts amount of token from into token to at the fixed prices,
// rounded down to 6 decimals.
func convert(amount decimal.Decimal, from, to string) decimal.Decimal {
	if from == to {
		return amount
	}
	return amount.Mul(usdValue[from]).Div(usdValue[to]).RoundDown(6)
}

const challengeTTL = 10 * time.Minute

func walletJSON(w *wallet) map[string]any {
	return map[string]any{
		"id":               w.ID,
		"address":          w.Address,
		"chain":            w.Chain,
		"currency":         w.Currency,
		"displayCurrency":  fiatOf(w.Currency),
		"status":           w.Status,
		"legacy":           w.Legacy,
		"userOwnerAddress": w.UserOwnerAddress,
		"balance":          w.Balance.String(),
		"createdAt":        iso(w.CreatedAt),
	}
}

func (s *Server) userWallets(userID string) []*wallet {
	var ws []*wallet
	for _, w := range s.st.Wallets {
		if w.UserID == userID {
			ws = append(ws, w)
		}
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].Seq < ws[j].Seq })
	return ws
}

func (s *Server) userWallet(userID, currency string) *wallet {
	for _, w := range s.userWallets(userID) {
		if w.Currency == currency {
			return w
		}
	}
	return nil
}

// ownWallet returns the path user's wallet {smartWalletId} or 404.
func (c *call) ownWallet(id string) (*wallet, error) {
	w := c.s.st.Wallets[id]
	if w == nil || w.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	return w, nil
}

func (c *call) supportedCurrencies() (any, error) {
	var codes []string
	for _, s := range stablecoins {
		codes = append(codes, s.code)
	}
	return map[string]any{"data": codes}, nil
}

type challengeRequest struct {
	Currency         string `json:"currency"`
	UserOwnerAddress string `json:"userOwnerAddress"`
}

func validateCurrencyAndOwner(currency, owner string) (ethsig.Address, []string) {
	var msgs []string
	if !supported(currency) {
		msgs = append(msgs, "currency must be one of "+stablecoinList())
	}
	addr, err := ethsig.ParseAddress(owner)
	if err != nil {
		msgs = append(msgs, "userOwnerAddress must be a 0x-prefixed 20-byte address")
	}
	return addr, msgs
}

// createChallenge implements POST .../smart-wallets/owner-proof-challenges.
func (c *call) createChallenge() (any, error) {
	var in challengeRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	addr, msgs := validateCurrencyAndOwner(in.Currency, in.UserOwnerAddress)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	now := c.s.now()
	ch := &challenge{
		ID:               c.s.newID(),
		UserID:           c.user.ID,
		Currency:         in.Currency,
		UserOwnerAddress: addr.Hex(),
		ExpiresAt:        now.Add(challengeTTL),
	}
	ch.Message = fmt.Sprintf("Partner API sandbox: prove ownership of %s\nUser: %s\nCurrency: %s\nChallenge: %s\nIssued at: %s",
		ch.UserOwnerAddress, c.user.ID, ch.Currency, ch.ID, iso(now))
	c.s.st.Challenges[ch.ID] = ch
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{
		"challengeId":   ch.ID,
		"message":       ch.Message,
		"eip191Message": ch.Message,
		"expiresAt":     iso(ch.ExpiresAt),
	}}, nil
}

type createManagedRequest struct {
	Currency              string `json:"currency"`
	UserOwnerAddress      string `json:"userOwnerAddress"`
	OwnerProofChallengeID string `json:"ownerProofChallengeId"`
	OwnerProofSignature   string `json:"ownerProofSignature"`
}

// createManaged implements POST .../smart-wallets/create-managed.
func (c *call) createManaged() (any, error) {
	var in createManagedRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	addr, msgs := validateCurrencyAndOwner(in.Currency, in.UserOwnerAddress)
	if in.OwnerProofChallengeID == "" {
		msgs = append(msgs, "ownerProofChallengeId should not be empty")
	}
	if in.OwnerProofSignature == "" {
		msgs = append(msgs, "ownerProofSignature should not be empty")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	ch := c.s.st.Challenges[in.OwnerProofChallengeID]
	switch {
	case ch == nil || ch.UserID != c.user.ID:
		return nil, badRequest("Owner-proof challenge not found")
	case ch.Used:
		return nil, badRequest("Owner-proof challenge has already been used")
	case c.s.now().After(ch.ExpiresAt):
		return nil, badRequest("Owner-proof challenge has expired")
	case ch.Currency != in.Currency:
		return nil, badRequest("currency does not match the owner-proof challenge")
	}
	chAddr, _ := ethsig.ParseAddress(ch.UserOwnerAddress)
	if !chAddr.Equal(addr) {
		return nil, badRequest("userOwnerAddress does not match the owner-proof challenge")
	}
	sig, err := ethsig.ParseSignature(in.OwnerProofSignature)
	if err != nil {
		return nil, badRequest("ownerProofSignature is not a valid 65-byte signature")
	}
	// spec: "Create-managed rejects when the owner-proof signature does not
	// come from the address in userOwnerAddress."
	got, err := ethsig.RecoverMessage([]byte(ch.Message), sig)
	if err != nil || !got.Equal(addr) {
		return nil, badRequest("Owner-proof signature does not come from userOwnerAddress")
	}
	if c.s.userWallet(c.user.ID, in.Currency) != nil {
		return nil, conflict("A smart wallet already exists for " + in.Currency)
	}
	ch.Used = true
	w := c.s.addWallet(c.user.ID, in.Currency, addr, false)
	c.status = http.StatusCreated
	return map[string]any{"data": walletJSON(w)}, nil
}

func (s *Server) addWallet(userID, currency string, owner ethsig.Address, legacy bool) *wallet {
	id := s.newID()
	h := ethsig.Keccak256([]byte("sandbox-wallet:" + id))
	var a ethsig.Address
	copy(a[:], h[12:])
	w := &wallet{
		ID:               id,
		UserID:           userID,
		Address:          a.Hex(),
		Chain:            "base",
		Currency:         currency,
		Status:           "active",
		Legacy:           legacy,
		UserOwnerAddress: owner.Hex(),
		Balance:          decimal.Zero,
		Signers:          []string{owner.Hex()},
		Threshold:        1,
		CreatedAt:        s.now(),
		Seq:              s.st.next(),
	}
	s.st.Wallets[w.ID] = w
	return w
}

func (c *call) listWallets() (any, error) {
	out := []any{}
	for _, w := range c.s.userWallets(c.user.ID) {
		out = append(out, walletJSON(w))
	}
	return map[string]any{"data": out}, nil
}

func (c *call) listBalances() (any, error) {
	out := []any{}
	for _, w := range c.s.userWallets(c.user.ID) {
		out = append(out, map[string]any{
			"smartWalletId":   w.ID,
			"currency":        w.Currency,
			"displayCurrency": fiatOf(w.Currency),
			"balance":         w.Balance.String(),
		})
	}
	return map[string]any{"data": out}, nil
}

func (c *call) getWallet() (any, error) {
	w, err := c.ownWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": walletJSON(w)}, nil
}

func policyJSON(p approvalPolicy) map[string]any {
	admins := append([]string{}, p.Admins...)
	return map[string]any{"mode": p.Mode, "admins": admins, "threshold": p.Threshold, "requiredApprovals": requiredApprovals(p)}
}

func requiredApprovals(p approvalPolicy) int {
	if p.Mode == modeAdminThreshold && p.Threshold > 0 {
		return p.Threshold
	}
	return 1
}

func (c *call) getPolicy() (any, error) {
	return map[string]any{"data": policyJSON(c.user.Policy)}, nil
}

type policyRequest struct {
	Mode      string   `json:"mode"`
	Admins    []string `json:"admins"`
	Threshold int      `json:"threshold"`
}

// setPolicy implements PATCH .../smart-wallets/account/approval-policy with
// the sandbox's body { mode, admins: [serviceUserId], threshold }.
func (c *call) setPolicy() (any, error) {
	var in policyRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	switch in.Mode {
	case modeAnyAdmin, modeAdminThreshold, modeOwnerApproval:
	default:
		msgs = append(msgs, "mode must be one of ANY_ADMIN, ADMIN_THRESHOLD, OWNER_APPROVAL")
	}
	seen := map[string]bool{}
	admins := []string{}
	for i, id := range in.Admins {
		u := c.s.st.Users[id]
		if u == nil || u.PartnerID != c.partner.ID || u.DeletedAt != nil {
			msgs = append(msgs, fmt.Sprintf("admins.%d must be an active user of this partner", i))
			continue
		}
		if !seen[id] {
			seen[id] = true
			admins = append(admins, id)
		}
	}
	threshold := 0
	if in.Mode == modeAdminThreshold {
		// The partner acting without x-acting-user-id counts as one approver.
		if in.Threshold < 1 || in.Threshold > len(admins)+1 {
			msgs = append(msgs, fmt.Sprintf("threshold must be between 1 and %d (admins plus the partner)", len(admins)+1))
		}
		threshold = in.Threshold
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	c.user.Policy = approvalPolicy{Mode: in.Mode, Admins: admins, Threshold: threshold}
	return map[string]any{"data": policyJSON(c.user.Policy)}, nil
}
