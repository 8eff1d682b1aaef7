package sandbox

import (
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
)

// USD virtual account states (spec: States, USD virtual bank account).
const (
	vbaNone         = "none"
	vbaProvisioning = "provisioning"
	vbaPending      = "pending"
	vbaActive       = "active"
	vbaFailed       = "failed"
	vbaRejected     = "rejected"
)

func (s *Server) newAccount(userID, fiat string) *virtualAccount {
	a := &virtualAccount{ID: s.newID(), UserID: userID, Currency: fiat, Status: vbaNone, StatusAt: s.now(), CreatedAt: s.now(), Seq: s.st.next()}
	s.rails().Accounts[a.ID] = a
	return a
}

// usdAccount returns the user's USD virtual account. Demo users seeded with
// a USD onboarding status get an account in that state on first use.
func (s *Server) usdAccount(u *user) *virtualAccount {
	if a := s.userAccount(u.ID, "USD"); a != nil {
		return a
	}
	st := u.Onboarding["USD"]
	switch st {
	case vbaProvisioning, vbaPending, vbaActive, vbaFailed, vbaRejected:
	default:
		return nil
	}
	a := s.newAccount(u.ID, "USD")
	a.Status, a.WorkflowID = st, s.newID()
	switch st {
	case vbaActive:
		s.fillUSDAccount(u, a)
		a.Registered = true
	case vbaRejected:
		a.Reason = "Identity could not be verified by the partner bank"
	}
	return a
}

func accountHolder(u *user) string {
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

// fillUSDAccount assigns the bank details of an active USD account.
func (s *Server) fillUSDAccount(u *user, a *virtualAccount) {
	a.AccountName = accountHolder(u)
	a.AccountNumber = "8" + digitsFrom("usd-account:"+a.ID, 11)
	a.RoutingNumber = "026073150"
	a.BankName = "Sandbox Community Bank"
	a.BankAddress = "1 Sandbox Plaza, New York, NY 10001, USA"
	a.SwiftCode = "SBXBUS33"
	a.AccountType = "checking"
	// spec: "account.depositMessage ... when non-null, the reference that
	// must accompany incoming transfers": the sandbox sets one for about
	// half of the accounts (decided by the account id).
	if d := digitsFrom("usd-memo:"+a.ID, 1); d[0] < '5' {
		a.DepositMessage = "SBX" + strings.ToUpper(strings.ReplaceAll(a.ID[:8], "-", ""))
	}
}

// issueNGNAccount issues the NGN virtual account (start-nigeria).
func (s *Server) issueNGNAccount(u *user) *virtualAccount {
	if a := s.userAccount(u.ID, "NGN"); a != nil {
		return a
	}
	a := s.newAccount(u.ID, "NGN")
	a.Status = vbaActive
	a.AccountName = accountHolder(u)
	a.AccountNumber = "9" + digitsFrom("ngn-account:"+a.ID, 9)
	a.BankName = "Sandbox Microfinance Bank"
	a.BankCode = "090999"
	a.AccountType = "savings"
	s.registered(u, a)
	return a
}

// registered fires employee.vba.registered once per account.
func (s *Server) registered(u *user, a *virtualAccount) {
	if a.Registered {
		return
	}
	a.Registered = true
	s.emitUser(u, "employee.vba.registered", map[string]any{
		"currency": a.Currency, "accountId": a.ID, "bankName": a.BankName, "accountName": a.AccountName,
		"accountNumberLast4": last4(a.AccountNumber + a.IBAN + a.Clabe),
	})
}

func last4(s string) string {
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}

// accountJSON is the virtual account answer (spec: Resources, USD virtual
// bank account): account populated only when active.
func accountJSON(a *virtualAccount) map[string]any {
	if a == nil {
		return map[string]any{"status": vbaNone, "account": nil, "reason": nil}
	}
	out := map[string]any{"status": a.Status, "account": nil, "reason": nullable(a.Reason)}
	if a.Status == vbaActive {
		acc := map[string]any{
			"id":             a.ID,
			"accountName":    a.AccountName,
			"accountNumber":  a.AccountNumber,
			"routingNumber":  a.RoutingNumber,
			"bankName":       a.BankName,
			"bankAddress":    a.BankAddress,
			"swiftCode":      a.SwiftCode,
			"currency":       a.Currency,
			"accountType":    a.AccountType,
			"depositMessage": nullable(a.DepositMessage),
		}
		if a.IBAN != "" {
			acc["iban"] = a.IBAN
			acc["accountNumber"] = a.IBAN
		}
		if a.BankCode != "" {
			acc["bankCode"] = a.BankCode
		}
		if a.RouteWalletID != "" {
			acc["routedToSmartWalletId"] = a.RouteWalletID
		}
		out["account"] = acc
	}
	return out
}

// tickAccounts moves USD accounts along provisioning → pending → active
// (and CAD onboardings and MXN KYC) by the sandbox clock, or all the way
// when force (settle control call).
func (s *Server) tickAccounts(force bool) int {
	n := 0
	now := s.now()
	for _, a := range s.accountsInOrder() {
		if a.Currency != "USD" {
			continue
		}
		u := s.st.Users[a.UserID]
		if u == nil {
			continue
		}
		if a.Status == vbaProvisioning && (force || !now.Before(a.StatusAt.Add(vbaProvisioningDelay))) {
			n++
			if s.takeFailure(railFailUSDVBA) {
				a.Status, a.StatusAt, a.Reason = vbaFailed, now, ""
				s.emitUser(u, "onboarding.failed", map[string]any{"currency": "USD", "rail": "usd-vba", "status": vbaFailed,
					"reason": "Provisioning failed at the partner bank; retry start-usa", "workflowId": a.WorkflowID})
				continue
			}
			// Pending since it became due, so one clock jump can pass both steps.
			a.Status, a.StatusAt = vbaPending, a.StatusAt.Add(vbaProvisioningDelay)
			if force {
				a.StatusAt = now
			}
		}
		if a.Status == vbaPending && (force || !now.Before(a.StatusAt.Add(vbaBackfillDelay))) {
			n++
			a.Status, a.StatusAt = vbaActive, now
			s.fillUSDAccount(u, a)
			s.registered(u, a)
			s.emitUser(u, "onboarding.completed", map[string]any{"currency": "USD", "rail": "usd-vba", "status": vbaActive,
				"completedAt": iso(now), "workflowId": a.WorkflowID})
		}
	}
	for _, o := range s.rails().Onboarding {
		if o.CADStatus != "pending" || o.CADStatusAt == nil || !(force || !now.Before(o.CADStatusAt.Add(railOnboardingDelay))) {
			continue
		}
		u := s.st.Users[o.UserID]
		if u == nil {
			continue
		}
		n++
		o.CADStatusAt = &now
		if s.takeFailure(railFailCanada) {
			o.CADStatus = "failed"
			s.emitUser(u, "onboarding.failed", map[string]any{"currency": "CAD", "rail": "canada", "status": "failed",
				"reason": "The CAD provider could not verify the user; start-canada may be called again"})
			continue
		}
		o.CADStatus = "active"
		a := s.userAccount(u.ID, "CAD")
		if a == nil {
			a = s.newAccount(u.ID, "CAD")
		}
		a.Status = vbaActive
		a.AccountName = accountHolder(u)
		a.AccountNumber = digitsFrom("cad-account:"+a.ID, 7)
		a.RoutingNumber = "0" + "999" + digitsFrom("cad-transit:"+a.ID, 5) // institution 999, transit
		a.BankName = "Sandbox Trust Canada"
		a.BankCode = "999"
		a.AccountType = "chequing"
		s.registered(u, a)
		s.emitUser(u, "onboarding.completed", map[string]any{"currency": "CAD", "rail": "canada", "status": "active", "completedAt": iso(now)})
	}
	return n
}

// ---- handlers ----

// getUSDVBA implements GET .../vba/usd.
func (c *call) getUSDVBA() (any, error) {
	return map[string]any{"data": accountJSON(c.s.usdAccount(c.user))}, nil
}

// provisionEURVBA implements POST .../vba/eu (no body): an IBAN once the
// EUR provider onboarding is active.
func (c *call) provisionEURVBA() (any, error) {
	o := c.s.onboardingOf(c.user.ID)
	if o.EURStatus != "active" && c.user.Onboarding["eurProviderStatus"] != "active" {
		return nil, badRequest("EUR onboarding is not complete: eurProviderStatus must be active (start-eur-provider, then POST /eu/kyc)")
	}
	a := c.s.userAccount(c.user.ID, "EUR")
	if a == nil {
		a = c.s.newAccount(c.user.ID, "EUR")
		a.Status = vbaActive
		a.AccountName = accountHolder(c.user)
		a.IBAN = sandboxIBAN("DE", "50099999", digitsFrom("eur-account:"+a.ID, 10))
		a.BankName = "Sandbox Bank Europe"
		a.BankAddress = "Sandboxstraße 1, 10115 Berlin, Germany"
		a.SwiftCode = "SBXBDEB1"
		a.AccountType = "current"
		c.s.registered(c.user, a)
		c.status = http.StatusCreated
	}
	return map[string]any{"data": accountJSON(a)}, nil
}

// provisionNGNVBA implements POST .../vba/ngn (no body): the account
// start-nigeria issued.
func (c *call) provisionNGNVBA() (any, error) {
	o := c.s.onboardingOf(c.user.ID)
	if o.NGNStatus != "active" {
		return nil, badRequest("NGN onboarding is not complete: call POST /onboarding/start-nigeria first")
	}
	return map[string]any{"data": accountJSON(c.s.issueNGNAccount(c.user))}, nil
}

// sandboxIBAN builds an IBAN with a valid ISO 13616 mod-97 checksum.
func sandboxIBAN(cc, bank, account string) string {
	bban := bank + account
	digits := ""
	for _, ch := range bban + cc + "00" {
		switch {
		case ch >= 'A' && ch <= 'Z':
			digits += fmt.Sprint(int(ch-'A') + 10)
		default:
			digits += string(ch)
		}
	}
	n, _ := new(big.Int).SetString(digits, 10)
	check := 98 - new(big.Int).Mod(n, big.NewInt(97)).Int64()
	return fmt.Sprintf("%s%02d%s", cc, check, bban)
}

// routeOnramp implements POST and DELETE
// .../smart-wallets/{smartWalletId}/onramp/vba/usd|nigeria.
func (c *call) routeOnramp(fiat, token string, remove bool) (any, error) {
	w, err := c.partnerWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	// spec: "the account must belong to the caller"
	a := c.s.userAccount(c.user.ID, fiat)
	if fiat == "USD" {
		a = c.s.usdAccount(c.user)
	}
	if a == nil || a.Status != vbaActive {
		return nil, notFound(fmt.Sprintf("The caller has no issued %s virtual account", fiat))
	}
	// spec: "who must be an active admin of the wallet"
	if !c.s.isActiveAdmin(c.user, w) {
		return nil, forbidden("Caller is not an active admin of this wallet")
	}
	if w.Currency != token {
		return nil, validation([]string{fmt.Sprintf("smartWalletId must be a %s wallet to receive %s deposits", token, fiat)})
	}
	if remove {
		if a.RouteWalletID != w.ID {
			return nil, notFound("No onramp route from this account to this wallet")
		}
		a.RouteWalletID = ""
		return map[string]any{"success": true, "message": fiat + " deposits are no longer routed to this wallet"}, nil
	}
	a.RouteWalletID = w.ID
	return map[string]any{"success": true, "message": fiat + " deposits are routed to smart wallet " + w.ID}, nil
}

func (c *call) routeUSD() (any, error)   { return c.routeOnramp("USD", "USDB", false) }
func (c *call) unrouteUSD() (any, error) { return c.routeOnramp("USD", "USDB", true) }
func (c *call) routeNGN() (any, error)   { return c.routeOnramp("NGN", "CNGN", false) }
func (c *call) unrouteNGN() (any, error) { return c.routeOnramp("NGN", "CNGN", true) }

// depositAccountJSON is a deposit-accounts entry.
func depositAccountJSON(a *virtualAccount) map[string]any {
	m := map[string]any{
		"id":             a.ID,
		"accountName":    a.AccountName,
		"bankName":       a.BankName,
		"currency":       a.Currency,
		"targetCurrency": stablecoinOfFiat(a.Currency),
		"status":         a.Status,
	}
	switch {
	case a.Clabe != "":
		m["clabe"] = a.Clabe
	case a.IBAN != "":
		m["accountNumber"] = a.IBAN
		m["iban"] = a.IBAN
	default:
		m["accountNumber"] = a.AccountNumber
	}
	if a.BankCode != "" {
		m["bankCode"] = a.BankCode
	}
	if a.RoutingNumber != "" {
		m["routingNumber"] = a.RoutingNumber
	}
	return m
}

// depositAccountsOf returns the user's deposit accounts of fiat (all when
// empty). MXN accounts appear only once Mexico KYC is approved.
func (c *call) depositAccountsOf(fiat string) []any {
	c.s.usdAccount(c.user) // materialise a seeded USD account
	out := []any{}
	k := c.s.kycFor(c.user)
	for _, a := range c.s.accountsInOrder() {
		if a.UserID != c.user.ID || (fiat != "" && a.Currency != fiat) {
			continue
		}
		if a.Currency == "MXN" && !mxApproved(k.MXStatus) {
			continue
		}
		if a.Currency != "MXN" && a.Status != vbaActive {
			continue
		}
		out = append(out, depositAccountJSON(a))
	}
	return out
}

// listDepositAccounts implements GET .../bank-accounts/deposit-accounts:
// { accounts, mexicanAccounts }.
func (c *call) listDepositAccounts() (any, error) {
	all := c.depositAccountsOf("")
	accounts, mexican := []any{}, []any{}
	for _, x := range all {
		if x.(map[string]any)["currency"] == "MXN" {
			mexican = append(mexican, x)
		} else {
			accounts = append(accounts, x)
		}
	}
	return map[string]any{"data": map[string]any{"accounts": accounts, "mexicanAccounts": mexican}}, nil
}

// getDepositAccounts implements GET .../bank-accounts/deposit-accounts/{currency}.
func (c *call) getDepositAccounts() (any, error) {
	fiat := strings.ToUpper(c.param("currency"))
	if !slices.Contains([]string{"USD", "NGN", "EUR", "MXN", "CAD", "GBP"}, fiat) {
		return nil, validation([]string{"currency must be one of USD, NGN, EUR, MXN, CAD, GBP"})
	}
	return map[string]any{"data": map[string]any{"accounts": c.depositAccountsOf(fiat)}}, nil
}
