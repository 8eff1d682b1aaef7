package sandbox

import (
	"net/http"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

type cryptoRoute struct {
	Chain    string `json:"chain"`
	Currency string `json:"currency"`
}

// depositAssets are the enabled deposit chains and tokens (spec: "Deposit
// currencies named include USDC, USDT, USDB, DAI, EURC, PYUSD, USDP").
// Every chain is an EVM chain, so addresses are 0x addresses.
var depositAssets = []cryptoRoute{
	{"arbitrum", "USDC"}, {"arbitrum", "USDT"},
	{"base", "EURC"}, {"base", "USDB"}, {"base", "USDC"},
	{"ethereum", "DAI"}, {"ethereum", "EURC"}, {"ethereum", "PYUSD"}, {"ethereum", "USDC"}, {"ethereum", "USDP"}, {"ethereum", "USDT"},
	{"polygon", "USDC"}, {"polygon", "USDT"},
}

func supportedRoute(list []cryptoRoute, chain, currency string) bool {
	for _, r := range list {
		if r.Chain == chain && r.Currency == currency {
			return true
		}
	}
	return false
}

// depositToken is the wallet token a deposited asset credits.
func depositToken(asset string) string {
	if asset == "EURC" {
		return "EURe"
	}
	return "USDB"
}

// withdrawalRoutes lists the destination pairs of a source token.
func withdrawalRoutes(token string, offramp bool) []cryptoRoute {
	var out []cryptoRoute
	switch token {
	case "USDB":
		out = []cryptoRoute{{"arbitrum", "USDC"}, {"base", "USDB"}, {"base", "USDC"}, {"ethereum", "USDC"}, {"ethereum", "USDT"}, {"polygon", "USDC"}}
	case "EURe":
		out = []cryptoRoute{{"base", "EURC"}, {"ethereum", "EURC"}}
	case "":
		return nil
	default:
		out = []cryptoRoute{{"base", "USDC"}, {"ethereum", "USDC"}}
	}
	if offramp {
		// The alternative offramp only pays out in USDC and USDT on L1 and Base.
		var o []cryptoRoute
		for _, r := range out {
			if (r.Currency == "USDC" || r.Currency == "USDT") && (r.Chain == "ethereum" || r.Chain == "base") {
				o = append(o, r)
			}
		}
		return o
	}
	return out
}

// listDepositAssets implements GET /v1/deposit/supported-assets (not
// user-scoped).
func (c *call) listDepositAssets() (any, error) {
	return map[string]any{"data": depositAssets}, nil
}

// createDepositWallet implements POST .../deposit/wallet { chain, currency }.
func (c *call) createDepositWallet() (any, error) {
	var in struct {
		Chain    string `json:"chain"`
		Currency string `json:"currency"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	chain, cur := strings.ToLower(strings.TrimSpace(in.Chain)), strings.ToUpper(strings.TrimSpace(in.Currency))
	var msgs []string
	if chain == "" {
		msgs = append(msgs, "chain should not be empty")
	}
	if cur == "" {
		msgs = append(msgs, "currency should not be empty")
	}
	if len(msgs) == 0 && !supportedRoute(depositAssets, chain, cur) {
		msgs = append(msgs, "chain and currency must be a pair from GET /v1/deposit/supported-assets")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	if c.s.userWallet(c.user.ID, depositToken(cur)) == nil {
		return nil, badRequest("User has no " + depositToken(cur) + " smart wallet to credit " + cur + " deposits to")
	}
	addr := addressFrom("sandbox-deposit:" + c.user.ID + ":" + chain)
	c.s.rails().DepositWallets[strings.ToLower(addr)+":"+cur] = &depositWallet{Address: addr, UserID: c.user.ID, Chain: chain, Currency: cur}
	return map[string]any{"data": map[string]any{"address": addr, "chain": chain, "currency": cur}}, nil
}

func (c *call) cryptoSupport(offramp bool) (any, error) {
	token := c.param("currency")
	for _, sc := range stablecoins {
		if strings.EqualFold(sc.code, token) {
			token = sc.code
		}
	}
	if !supported(token) {
		return nil, validation([]string{"currency must be one of " + stablecoinList()})
	}
	routes := withdrawalRoutes(token, offramp)
	if routes == nil {
		routes = []cryptoRoute{}
	}
	return map[string]any{"data": map[string]any{"currency": token, "routes": routes}}, nil
}

// cryptoWithdrawalSupport implements GET
// .../withdrawal/smart-wallet/crypto/supported/{currency}.
func (c *call) cryptoWithdrawalSupport() (any, error) { return c.cryptoSupport(false) }

// cryptoOfframpSupport implements GET .../wallets/crypto-offramp/supported/{currency}.
func (c *call) cryptoOfframpSupport() (any, error) { return c.cryptoSupport(true) }

// createCryptoWithdrawal implements POST .../withdrawal/smart-wallet/crypto.
func (c *call) createCryptoWithdrawal() (any, error) { return c.cryptoOut(false) }

// createCryptoOfframp implements POST .../wallets/crypto-offramp (body: the
// crypto withdrawal body).
func (c *call) createCryptoOfframp() (any, error) { return c.cryptoOut(true) }

// cryptoOut validates a crypto withdrawal and opens its signature request.
// The spec's body has no amount: the whole balance is withdrawn unless the
// sandbox extension "amount" (decimal string) is given.
func (c *call) cryptoOut(offramp bool) (any, error) {
	var in struct {
		SourceSmartWalletID string `json:"sourceSmartWalletId"`
		DestinationChain    string `json:"destinationChain"`
		DestinationCurrency string `json:"destinationCurrency"`
		DestinationAddress  string `json:"destinationAddress"`
		Amount              string `json:"amount"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if strings.TrimSpace(in.SourceSmartWalletID) == "" {
		msgs = append(msgs, "sourceSmartWalletId should not be empty")
	}
	chain, cur := strings.ToLower(strings.TrimSpace(in.DestinationChain)), strings.ToUpper(strings.TrimSpace(in.DestinationCurrency))
	if chain == "" {
		msgs = append(msgs, "destinationChain should not be empty")
	}
	if cur == "" {
		msgs = append(msgs, "destinationCurrency should not be empty")
	}
	dest, err := ethsig.ParseAddress(strings.TrimSpace(in.DestinationAddress))
	if err != nil {
		msgs = append(msgs, "destinationAddress must be a 0x-prefixed 20-byte address")
	}
	var amount decimal.Decimal
	if in.Amount != "" {
		amount = positiveAmount("amount", in.Amount, &msgs)
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	w, err := c.ownWallet(in.SourceSmartWalletID)
	if err != nil {
		return nil, err
	}
	if !supportedRoute(withdrawalRoutes(w.Currency, offramp), chain, cur) {
		return nil, validation([]string{"destinationChain and destinationCurrency must be a supported pair for " + w.Currency})
	}
	if in.Amount == "" {
		amount = w.Balance
	}
	if !amount.IsPositive() {
		return nil, badRequest("Wallet has no balance to withdraw")
	}
	if w.Balance.LessThan(amount) {
		return nil, badRequest("Insufficient balance: " + w.Balance.String() + " " + w.Currency + " available, " + amount.String() + " needed")
	}
	kind := wfCrypto
	if offramp {
		kind = wfCryptoOff
	}
	cw := &cryptoWithdrawal{ID: c.s.newID(), Kind: kind, UserID: c.user.ID, WalletID: w.ID, Amount: amount, DestinationChain: chain,
		DestinationCurrency: cur, DestinationAddress: dest.Hex(), Status: "awaiting_signature", CreatedAt: c.s.now()}
	wf := c.s.newWorkflow(w, kind, cw.ID, amount, chain+":"+cur+":"+dest.Hex())
	cw.WorkflowID = wf.ID
	c.s.rails().CryptoWithdrawals[cw.ID] = cw
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{
		"id": cw.ID, "status": cw.Status, "amount": amount.String(), "currency": w.Currency,
		"destinationChain": chain, "destinationCurrency": cur, "destinationAddress": cw.DestinationAddress,
		"signatureRequest": signatureRequestJSON(wf),
	}}, nil
}

func (s *Server) cryptoSigned(wf *workflow, w *wallet) error {
	cw := s.rails().CryptoWithdrawals[wf.RefID]
	if cw == nil {
		return notFound(msgItemNotFound)
	}
	if err := debit(w, cw.Amount); err != nil {
		return err
	}
	cw.Status = "processing"
	s.withdrawalEvent(w, "processing", cw.Amount, cw.Kind, cw.ID, "")
	return nil
}

func (s *Server) tickCrypto(force bool) int {
	n := 0
	r := s.rails()
	ids := make([]string, 0, len(r.CryptoWithdrawals))
	for id := range r.CryptoWithdrawals {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		cw := r.CryptoWithdrawals[id]
		wf := r.Workflows[cw.WorkflowID]
		w := s.st.Wallets[cw.WalletID]
		if cw.Status != "processing" || wf == nil || w == nil || !(force || s.due(wf.SubmittedAt)) {
			continue
		}
		n++
		if s.takeFailure(railFailCrypto) {
			cw.Status, wf.Status = "failed", wfFailed
			w.Balance = w.Balance.Add(cw.Amount)
			s.withdrawalEvent(w, "failed", cw.Amount, cw.Kind, cw.ID, "The transfer reverted on chain; the amount was refunded")
			continue
		}
		cw.Status, wf.Status = "completed", wfCompleted
		s.withdrawalEvent(w, "completed", cw.Amount, cw.Kind, cw.ID, "")
	}
	return n
}
