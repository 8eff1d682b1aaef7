package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

// withRails appends the identity and money-rail routes and their control
// routes to rs, and runs the rails' clock before and after every handler:
// rail workflows move with the sandbox clock whatever route is called, and
// the settle control call settles them too.
func (s *Server) withRails(rs []*route) []*route {
	all := append(append(rs, s.railRoutes()...), s.railControlRoutes()...)
	for _, r := range all {
		h, pattern := r.h, r.pattern
		r.h = func(c *call) (any, error) {
			c.s.railTick()
			out, err := h(c)
			if err == nil && pattern == "/_sandbox/settle" {
				c.s.railSettleAll()
			}
			c.s.railTick()
			return out, err
		}
	}
	return all
}

// railRoutes are the spec's KYC, onboarding, virtual account and rail
// endpoints.
func (s *Server) railRoutes() []*route {
	u := "/v1/users/{userId}"
	sw := u + "/smart-wallets"
	return []*route{
		// KYC.
		s.route("GET", u+"/kyc/options", authUser, (*call).kycOptions),
		s.route("GET", u+"/kyc/occupations", authUser, (*call).kycOccupations),
		s.route("POST", u+"/kyc/documents/identification", authUser, (*call).uploadIdentification),
		s.route("POST", u+"/kyc/documents/proof-of-address", authUser, (*call).uploadProofOfAddress),
		s.route("POST", u+"/kyc/documents/biometric", authUser, (*call).uploadBiometric),
		s.route("PATCH", u+"/kyc", authUser, (*call).patchKYC),
		s.route("GET", u+"/kyc/readiness", authUser, (*call).kycReadiness),
		s.route("GET", u+"/kyc/usd-readiness", authUser, (*call).usdReadiness),
		s.route("POST", u+"/kyc/activate", authUser, (*call).activateKYC),
		s.route("GET", u+"/kyc/bvn-lookup/{bvn}", authUser, (*call).bvnLookup),
		s.route("GET", u+"/kyc/nin-lookup/{nin}", authUser, (*call).ninLookup),
		s.route("POST", u+"/eu/kyc", authUser, (*call).euKYC),

		// Onboarding starts.
		s.route("POST", u+"/onboarding/start-usa", authUser, (*call).startUSA),
		s.route("POST", u+"/onboarding/start-canada", authUser, (*call).startCanada),
		s.route("POST", u+"/onboarding/start-eur-provider", authUser, (*call).startEURProvider),
		s.route("POST", u+"/onboarding/start-nigeria", authUser, (*call).startNigeria),
		s.route("POST", u+"/onboarding/start-mexico", authUser, (*call).startMexico),

		// Virtual and deposit accounts.
		s.route("GET", u+"/vba/usd", authUser, (*call).getUSDVBA),
		s.route("POST", u+"/vba/eu", authUser, (*call).provisionEURVBA),
		s.route("POST", u+"/vba/ngn", authUser, (*call).provisionNGNVBA),
		s.route("POST", sw+"/{smartWalletId}/onramp/vba/usd", authUser, (*call).routeUSD),
		s.route("DELETE", sw+"/{smartWalletId}/onramp/vba/usd", authUser, (*call).unrouteUSD),
		s.route("POST", sw+"/{smartWalletId}/onramp/vba/nigeria", authUser, (*call).routeNGN),
		s.route("DELETE", sw+"/{smartWalletId}/onramp/vba/nigeria", authUser, (*call).unrouteNGN),
		s.route("GET", u+"/bank-accounts/deposit-accounts", authUser, (*call).listDepositAccounts),
		s.route("GET", u+"/bank-accounts/deposit-accounts/{currency}", authUser, (*call).getDepositAccounts),

		// Nigerian withdrawal.
		s.route("GET", u+"/bank-accounts/nigerian-banks", authUser, (*call).nigerianBanksList),
		s.route("POST", u+"/bank-accounts/verify-nigerian-account", authUser, (*call).verifyNigerianAccount),
		s.route("POST", u+"/bank-accounts/withdrawal-accounts/nigeria", authUser, (*call).createNigerianWithdrawalAccount),
		s.route("POST", sw+"/{smartWalletId}/offramp/nigeria", authUser, (*call).ngnOfframp),

		// Bank payout rail.
		s.route("GET", u+"/payouts/countries", authUser, (*call).payoutCountriesList),
		s.route("GET", u+"/payouts/banks", authUser, (*call).payoutBanksList),
		s.route("GET", u+"/payouts/bank-branches", authUser, (*call).payoutBranchesList),
		s.route("POST", u+"/payouts/validate-account", authUser, (*call).validatePayoutAccountCall),
		s.route("POST", u+"/payouts", authUser, (*call).createPayout),
		s.route("POST", u+"/wallets/submit-signature", authUser, (*call).submitSignature),

		// Crypto.
		s.route("GET", "/v1/deposit/supported-assets", authPartner, (*call).listDepositAssets),
		s.route("POST", u+"/deposit/wallet", authUser, (*call).createDepositWallet),
		s.route("GET", u+"/withdrawal/smart-wallet/crypto/supported/{currency}", authUser, (*call).cryptoWithdrawalSupport),
		s.route("POST", u+"/withdrawal/smart-wallet/crypto", authUser, (*call).createCryptoWithdrawal),
		s.route("GET", u+"/wallets/crypto-offramp/supported/{currency}", authUser, (*call).cryptoOfframpSupport),
		s.route("POST", u+"/wallets/crypto-offramp", authUser, (*call).createCryptoOfframp),

		// EUR SEPA.
		s.route("POST", u+"/eu/orders/prepare", authUser, (*call).prepareEUOrder),
		s.route("POST", u+"/eu/orders/{orderId}/complete", authUser, (*call).completeEUOrder),
		s.route("GET", u+"/eu/orders/{orderId}", authUser, (*call).getEUOrder),

		// Mexico.
		s.route("POST", u+"/latam/mx/kyc/activate", authUser, (*call).mxActivate),
		s.route("GET", u+"/latam/mx/kyc/launch/agreements", authUser, (*call).mxLaunch),
		s.route("GET", u+"/latam/mx/kyc/launch/idv", authUser, (*call).mxLaunch),
		s.route("GET", u+"/latam/mx/kyc/status", authUser, (*call).mxStatus),
		s.route("POST", u+"/latam/mx/quote", authUser, (*call).mxQuote),
		s.route("GET", u+"/latam/mx/orders/{orderId}", authUser, (*call).getMXOrder),

		// LATAM cash.
		s.route("POST", u+"/latam/cash/orders/fund", authUser, (*call).cashFund),
		s.route("POST", u+"/latam/cash/orders/send", authUser, (*call).cashSend),
		s.route("GET", u+"/latam/cash/orders", authUser, (*call).listCashOrders),
		s.route("GET", u+"/latam/cash/orders/{orderId}", authUser, (*call).getCashOrder),

		// Exchange.
		s.route("POST", u+"/exchange/quote", authUser, (*call).exchangeQuoteCall),
		s.route("POST", u+"/exchange/convert", authUser, (*call).convertCall),
	}
}

// railControlRoutes is the rails' part of the control API.
func (s *Server) railControlRoutes() []*route {
	c := "/_sandbox"
	return []*route{
		s.route("POST", c+"/rails/settle", authControl, (*call).ctlRailSettle),
		s.route("POST", c+"/rails/fail-next", authControl, (*call).ctlFailNext),
		s.route("GET", c+"/rails/workflows", authControl, (*call).ctlWorkflows),
		s.route("POST", c+"/users/{userId}/bank-deposits", authControl, (*call).ctlBankDeposit),
		s.route("POST", c+"/crypto/deposits", authControl, (*call).ctlCryptoDeposit),
		s.route("PUT", c+"/users/{userId}/vba/usd", authControl, (*call).ctlUSDVBAStatus),
		s.route("PUT", c+"/users/{userId}/mx/kyc", authControl, (*call).ctlMXStatus),
		s.route("POST", c+"/users/{userId}/legacy-mxne", authControl, (*call).ctlLegacyMXNe),
		s.route("POST", c+"/cash/orders/{orderId}/pay", authControl, (*call).ctlPayCash),
		s.route("GET", c+"/users/{userId}/kyc", authControl, (*call).ctlKYC),
	}
}

func (c *call) ctlUser() (*user, error) {
	u := c.s.st.Users[c.param("userId")]
	if u == nil {
		return nil, notFound(msgUserNotFound)
	}
	return u, nil
}

// ctlRailSettle completes every rail operation in flight now.
func (c *call) ctlRailSettle() (any, error) {
	return map[string]any{"data": map[string]any{"settled": c.s.railSettleAll()}}, nil
}

// ctlFailNext makes the next `times` (default 1) operations of a rail fail:
// { rail: usd-vba | ngn-payout | payout | crypto | sepa | mx-offramp |
// cash-send | cad-onboarding | eur-onboarding, times }.
func (c *call) ctlFailNext() (any, error) {
	var in struct {
		Rail  string `json:"rail"`
		Times int    `json:"times"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if !slices.Contains(railFailNames, in.Rail) {
		return nil, validation([]string{"rail must be one of " + strings.Join(railFailNames, ", ")})
	}
	if in.Times < 0 {
		return nil, validation([]string{"times must not be negative"})
	}
	if in.Times == 0 {
		in.Times = 1
	}
	c.s.rails().FailNext[in.Rail] += in.Times
	pending := map[string]int{}
	for k, v := range c.s.rails().FailNext {
		pending[k] = v
	}
	return map[string]any{"data": pending}, nil
}

// ctlWorkflows lists the signature workflows (newest first).
func (c *call) ctlWorkflows() (any, error) {
	var wfs []*workflow
	for _, wf := range c.s.rails().Workflows {
		wfs = append(wfs, wf)
	}
	sort.Slice(wfs, func(i, j int) bool {
		return wfs[i].CreatedAt.After(wfs[j].CreatedAt) || (wfs[i].CreatedAt.Equal(wfs[j].CreatedAt) && wfs[i].ID < wfs[j].ID)
	})
	// Encoded here, under the lock: the answer is written after it is released.
	b, err := json.Marshal(wfs)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode workflows: %w", err)
	}
	return map[string]any{"data": json.RawMessage(b)}, nil
}

// ctlBankDeposit simulates an incoming bank transfer to the user's account
// of { currency: USD | NGN | EUR | CAD | MXN, amount, reference? }. USD and
// NGN credit the routed wallet when an onramp route is set; a USD account
// with a depositMessage refuses a transfer without that reference
// (employee.deposit.failed). MXN is a SPEI transfer to the CLABE and opens
// an onramp order.
func (c *call) ctlBankDeposit() (any, error) {
	u, err := c.ctlUser()
	if err != nil {
		return nil, err
	}
	var in struct {
		Currency  string `json:"currency"`
		Amount    string `json:"amount"`
		Reference string `json:"reference"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	fiat := strings.ToUpper(strings.TrimSpace(in.Currency))
	if !slices.Contains(onboardingCurrencies, fiat) {
		msgs = append(msgs, "currency must be one of USD, EUR, NGN, MXN, CAD")
	}
	amount := positiveAmount("amount", in.Amount, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	if fiat == "MXN" {
		o, err := c.s.mxSPEIDeposit(u, amount, in.Reference)
		if err != nil {
			return nil, err
		}
		return map[string]any{"data": map[string]any{"orderId": o.ID, "order": c.s.mxOrderJSON(o)}}, nil
	}
	a := c.s.userAccount(u.ID, fiat)
	if fiat == "USD" {
		a = c.s.usdAccount(u)
	}
	if a == nil || a.Status != vbaActive {
		return nil, conflict("The user has no active " + fiat + " account to receive the transfer")
	}
	token := stablecoinOfFiat(fiat)
	var w *wallet
	if a.RouteWalletID != "" {
		w = c.s.st.Wallets[a.RouteWalletID]
	}
	if w == nil {
		w = c.s.userWallet(u.ID, token)
	}
	credited := amount
	if w == nil && fiat == "USD" && c.s.onboardingOf(u.ID).USDMirrored {
		// Nigerians onboarded on their NGN wallet receive USD as CNGN.
		if w = c.s.userWallet(u.ID, "CNGN"); w != nil {
			credited = convert(amount, "USDB", "CNGN")
		}
	}
	if w == nil {
		return nil, conflict("The user has no " + token + " smart wallet to credit")
	}
	if a.DepositMessage != "" && strings.TrimSpace(in.Reference) != a.DepositMessage {
		c.s.emitUser(u, "employee.deposit.failed", map[string]any{"smartWalletId": w.ID, "currency": w.Currency, "amount": amount.String(),
			"reason": "The transfer did not carry the required reference " + a.DepositMessage + " and was returned"})
		return nil, badRequest("Transfer returned: the reference must be the account's depositMessage " + a.DepositMessage)
	}
	txID := c.s.newID()
	c.s.credit(w, credited, "bank:"+strings.ToLower(fiat), txID)
	return map[string]any{"data": map[string]any{"transactionId": txID, "smartWalletId": w.ID, "currency": w.Currency, "amount": credited.String(), "balance": w.Balance.String()}}, nil
}

// ctlCryptoDeposit simulates a transfer to a deposit wallet address:
// { address, currency, amount }.
func (c *call) ctlCryptoDeposit() (any, error) {
	var in struct {
		Address  string `json:"address"`
		Currency string `json:"currency"`
		Amount   string `json:"amount"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	amount := positiveAmount("amount", in.Amount, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	dw := c.s.rails().DepositWallets[strings.ToLower(strings.TrimSpace(in.Address))+":"+strings.ToUpper(in.Currency)]
	if dw == nil {
		return nil, notFound("No deposit wallet with this address and currency")
	}
	w := c.s.userWallet(dw.UserID, depositToken(dw.Currency))
	if w == nil {
		return nil, conflict("The user has no wallet to credit")
	}
	txID := c.s.newID()
	c.s.credit(w, amount, "crypto:"+dw.Chain+":"+dw.Currency, txID)
	return map[string]any{"data": map[string]any{"transactionId": txID, "smartWalletId": w.ID, "balance": w.Balance.String()}}, nil
}

// ctlUSDVBAStatus forces the USD account state: { status: failed |
// rejected | pending | active, reason? }, firing the matching events.
func (c *call) ctlUSDVBAStatus() (any, error) {
	u, err := c.ctlUser()
	if err != nil {
		return nil, err
	}
	var in struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if !slices.Contains([]string{vbaFailed, vbaRejected, vbaPending, vbaActive}, in.Status) {
		return nil, validation([]string{"status must be one of failed, rejected, pending, active"})
	}
	a := c.s.usdAccount(u)
	if a == nil || a.Status == vbaNone {
		return nil, conflict("start-usa has not been called for this user")
	}
	now := c.s.now()
	switch in.Status {
	case vbaFailed, vbaRejected:
		reason := in.Reason
		if reason == "" {
			reason = "Identity could not be verified by the partner bank"
		}
		a.Status, a.StatusAt, a.Reason = in.Status, now, ""
		if in.Status == vbaRejected {
			a.Reason = reason
		}
		c.s.emitUser(u, "onboarding.failed", map[string]any{"currency": "USD", "rail": "usd-vba", "status": in.Status, "reason": reason, "workflowId": a.WorkflowID})
	case vbaPending:
		a.Status, a.StatusAt = vbaPending, now
	case vbaActive:
		a.Status, a.StatusAt = vbaPending, now.Add(-vbaBackfillDelay)
		c.s.tickAccounts(false)
	}
	return map[string]any{"data": accountJSON(a)}, nil
}

// ctlMXStatus sets the MXN KYC status (the provider's decision): { status }.
func (c *call) ctlMXStatus() (any, error) {
	u, err := c.ctlUser()
	if err != nil {
		return nil, err
	}
	var in struct {
		Status string `json:"status"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if !slices.Contains(mxStatuses, in.Status) {
		return nil, validation([]string{"status must be one of " + strings.Join(mxStatuses, ", ")})
	}
	c.s.setMXStatus(u, c.s.kycFor(u), in.Status)
	return map[string]any{"data": map[string]any{"status": in.Status}}, nil
}

// ctlLegacyMXNe gives a user a pre-migration MXNe balance (spec: "users
// onboarded before the migration should be checked for a legacy balance"):
// { amount }. The wallet is listed with currency MXNe.
func (c *call) ctlLegacyMXNe() (any, error) {
	u, err := c.ctlUser()
	if err != nil {
		return nil, err
	}
	var in struct {
		Amount string `json:"amount"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	amount := positiveAmount("amount", in.Amount, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	w := c.s.addLegacyMXNe(u, amount)
	c.status = http.StatusCreated
	return map[string]any{"data": walletJSON(w)}, nil
}

func (s *Server) addLegacyMXNe(u *user, amount decimal.Decimal) *wallet {
	w := s.userWallet(u.ID, "MXNe")
	if w == nil {
		owner := addressFrom("legacy-mxne-owner:" + u.ID)
		if mw := s.userWallet(u.ID, "MEXe"); mw != nil {
			owner = mw.UserOwnerAddress
		}
		a, _ := ethsig.ParseAddress(owner)
		w = s.addWallet(u.ID, "MXNe", a, true)
	}
	w.Balance = w.Balance.Add(amount)
	s.kycOf(u.ID).LegacyMXNe = true
	return w
}

// ctlPayCash marks a FUND cash order paid.
func (c *call) ctlPayCash() (any, error) {
	id := c.param("orderId")
	for _, o := range c.s.rails().CashOrders {
		if o.ID == id || o.OrderID == id {
			if err := c.s.payCashFund(o); err != nil {
				return nil, err
			}
			return map[string]any{"data": c.s.cashProviderJSON(o)}, nil
		}
	}
	return nil, notFound(msgItemNotFound)
}

// ctlKYC shows a user's KYC record as the sandbox holds it.
func (c *call) ctlKYC() (any, error) {
	u, err := c.ctlUser()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(c.s.kycFor(u))
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode KYC record: %w", err)
	}
	return map[string]any{"data": json.RawMessage(b)}, nil
}
