package sandbox

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

type nigerianBank struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

var nigerianBanks = []nigerianBank{
	{"Access Bank", "044"}, {"Citibank Nigeria", "023"}, {"Ecobank Nigeria", "050"}, {"Fidelity Bank", "070"},
	{"First Bank of Nigeria", "011"}, {"First City Monument Bank", "214"}, {"Guaranty Trust Bank", "058"},
	{"Kuda Microfinance Bank", "50211"}, {"Moniepoint Microfinance Bank", "50515"}, {"OPay", "999992"},
	{"Polaris Bank", "076"}, {"Providus Bank", "101"}, {"Stanbic IBTC Bank", "221"}, {"Sterling Bank", "232"},
	{"Union Bank of Nigeria", "032"}, {"United Bank for Africa", "033"}, {"Wema Bank", "035"}, {"Zenith Bank", "057"},
}

func nigerianBankByCode(code string) (nigerianBank, bool) {
	for _, b := range nigerianBanks {
		if b.Code == code {
			return b, true
		}
	}
	return nigerianBank{}, false
}

// sandboxNigerianAccounts is the deterministic set of accounts that verify
// (README). Any other account number and bank code pair is 404.
var sandboxNigerianAccounts = []struct{ number, bank, holder string }{
	{"0123456789", "058", "CHIOMA ADAEZE OKONKWO"},
	{"0690000031", "044", "ADAEZE NKEM OKAFOR"},
	{"2087654321", "033", "CHINEDU EMEKA EZE"},
	{"1012345678", "057", "FUNKE ABIOLA ADEYEMI"},
	{"3123456789", "011", "IBRAHIM SANI MUSA"},
	{"0000000001", "035", "NGOZI AMAKA NWOSU"},
	{"8012345678", "50211", "ACME PAYROLL TREASURY LTD"},
}

func nigerianHolder(number, bank string) (string, bool) {
	for _, a := range sandboxNigerianAccounts {
		if a.number == number && a.bank == bank {
			return a.holder, true
		}
	}
	return "", false
}

func nuban(s string) bool { return len(s) == 10 && numDigits(s) == 10 }

// nigerianBanksList implements GET .../bank-accounts/nigerian-banks.
func (c *call) nigerianBanksList() (any, error) {
	return map[string]any{"data": nigerianBanks}, nil
}

// verifyNigerianAccount implements POST .../bank-accounts/verify-nigerian-account.
func (c *call) verifyNigerianAccount() (any, error) {
	var in struct {
		AccountNumber string `json:"accountNumber"`
		BankCode      string `json:"bankCode"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	in.AccountNumber, in.BankCode = strings.TrimSpace(in.AccountNumber), strings.TrimSpace(in.BankCode)
	var msgs []string
	if !nuban(in.AccountNumber) {
		msgs = append(msgs, "accountNumber must be a 10-digit NUBAN")
	}
	bank, ok := nigerianBankByCode(in.BankCode)
	if !ok {
		msgs = append(msgs, "bankCode must be a code from the Nigerian banks list")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	holder, ok := nigerianHolder(in.AccountNumber, in.BankCode)
	if !ok {
		// spec: "404 when no account matches"
		return nil, notFound("No account matches this account number at " + bank.Name)
	}
	return map[string]any{"data": map[string]any{"accountNumber": in.AccountNumber, "bankCode": in.BankCode, "bankName": bank.Name, "accountHolderName": holder}}, nil
}

func withdrawalAccountJSON(a *withdrawalAccount) map[string]any {
	return map[string]any{"id": a.ID, "accountNumber": a.AccountNumber, "bankCode": a.BankCode, "bankName": a.BankName,
		"accountHolderName": a.AccountHolderName, "createdAt": iso(a.CreatedAt)}
}

// createNigerianWithdrawalAccount implements POST
// .../bank-accounts/withdrawal-accounts/nigeria (get-or-create).
func (c *call) createNigerianWithdrawalAccount() (any, error) {
	var in struct {
		AccountNumber     string `json:"accountNumber"`
		BankCode          string `json:"bankCode"`
		BankName          string `json:"bankName"`
		AccountHolderName string `json:"accountHolderName"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	in.AccountNumber, in.BankCode = strings.TrimSpace(in.AccountNumber), strings.TrimSpace(in.BankCode)
	var msgs []string
	if !nuban(in.AccountNumber) {
		msgs = append(msgs, "accountNumber must be a 10-digit NUBAN")
	}
	bank, bankOK := nigerianBankByCode(in.BankCode)
	if !bankOK {
		msgs = append(msgs, "bankCode must be a code from the Nigerian banks list")
	}
	if strings.TrimSpace(in.BankName) == "" {
		msgs = append(msgs, "bankName should not be empty")
	} else if bankOK && !strings.EqualFold(strings.TrimSpace(in.BankName), bank.Name) {
		msgs = append(msgs, "bankName must be the name of bank "+in.BankCode+" ("+bank.Name+")")
	}
	if in.AccountHolderName == "" {
		msgs = append(msgs, "accountHolderName should not be empty")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	holder, ok := nigerianHolder(in.AccountNumber, in.BankCode)
	if !ok {
		return nil, notFound("No account matches this account number at " + bank.Name)
	}
	// spec: "accountHolderName (exact name from step 2)"
	if in.AccountHolderName != holder {
		return nil, validation([]string{"accountHolderName must equal the verified account name exactly"})
	}
	for _, a := range c.s.rails().WithdrawalAccounts {
		if a.UserID == c.user.ID && a.AccountNumber == in.AccountNumber && a.BankCode == in.BankCode {
			return map[string]any{"data": withdrawalAccountJSON(a)}, nil
		}
	}
	a := &withdrawalAccount{ID: c.s.newID(), UserID: c.user.ID, AccountNumber: in.AccountNumber, BankCode: in.BankCode,
		BankName: bank.Name, AccountHolderName: holder, CreatedAt: c.s.now(), Seq: c.s.st.next()}
	c.s.rails().WithdrawalAccounts[a.ID] = a
	c.status = http.StatusCreated
	return map[string]any{"data": withdrawalAccountJSON(a)}, nil
}

const typeNigerianOfframp = "NIGERIAN_OFFRAMP"

// ngnPayoutFee is the sandbox's flat fee of a Nigerian bank withdrawal.
var ngnPayoutFee = decimal.NewFromInt(50)

// ngnRate is the NGN paid per unit of the source token.
func ngnRate(from string) decimal.Decimal {
	if from == "CNGN" {
		return decimal.NewFromInt(1)
	}
	return usdValue[from].Div(usdValue["CNGN"]).RoundDown(6)
}

// ngnOfframp implements POST .../smart-wallets/{smartWalletId}/offramp/nigeria.
func (c *call) ngnOfframp() (any, error) {
	w, err := c.partnerWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	var in struct {
		BankAccountID string `json:"bankAccountId"`
		FromAmount    string `json:"fromAmount"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if strings.TrimSpace(in.BankAccountID) == "" {
		msgs = append(msgs, "bankAccountId should not be empty")
	}
	amount := positiveAmount("fromAmount", in.FromAmount, &msgs)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	// spec: "The caller must be an active admin of the wallet."
	if !c.s.isActiveAdmin(c.user, w) {
		return nil, forbidden("Caller is not an active admin of this wallet")
	}
	// spec: "Source currency is CNGN (direct) or USDB (swapped to NGN first)."
	if w.Currency != "CNGN" && w.Currency != "USDB" {
		return nil, validation([]string{"source wallet must be a CNGN or USDB wallet"})
	}
	acct := c.s.rails().WithdrawalAccounts[in.BankAccountID]
	// spec: "bankAccountId (UUID of the caller's account)"
	if acct == nil || acct.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	if w.Balance.LessThan(amount) {
		return nil, badRequest(fmt.Sprintf("Insufficient balance: %s %s available, %s needed", w.Balance, w.Currency, amount))
	}
	rate := ngnRate(w.Currency)
	ngn := amount.Mul(rate).RoundDown(2)
	if !ngn.GreaterThan(ngnPayoutFee) {
		return nil, validation([]string{fmt.Sprintf("fromAmount is too small: the NGN amount must exceed the %s NGN fee", ngnPayoutFee)})
	}
	p := c.s.newProposal(w, typeNigerianOfframp)
	p.Amount = amount
	p.ToAddress = addressFrom("sandbox-ngn-offramp-settlement")
	p.Description = fmt.Sprintf("Bank withdrawal to %s ****%s", acct.BankName, last4(acct.AccountNumber))
	c.s.st.putProposal(p)
	now := c.s.now()
	o := &ngnOfframp{ProposalID: p.ID, UserID: c.user.ID, WalletID: w.ID, BankAccountID: acct.ID, FromCurrency: w.Currency,
		FromAmount: amount, NGNAmount: ngn.Sub(ngnPayoutFee), Fee: ngnPayoutFee, Rate: rate, PayoutStatus: "awaiting_chain", CreatedAt: now}
	c.s.rails().Offramps[p.ID] = o
	c.status = http.StatusCreated
	return map[string]any{"success": true, "data": map[string]any{
		"proposalId": p.ID,
		"status":     p.Status,
		"quote":      offrampQuoteJSON(o),
	}}, nil
}

func offrampQuoteJSON(o *ngnOfframp) map[string]any {
	return map[string]any{
		"fromCurrency": o.FromCurrency,
		"fromAmount":   o.FromAmount.String(),
		"toCurrency":   "NGN",
		"toAmount":     o.NGNAmount.String(),
		"exchangeRate": o.Rate.String(),
		"feeAmount":    o.Fee.String(),
		"feeCurrency":  "NGN",
		"swap":         o.FromCurrency != "CNGN",
	}
}

// tickOfframps runs the off-chain half of Nigerian offramps. spec: the
// proposal is "COMPLETED after execution settles (for the Nigerian offramp,
// also after the off-chain payout succeeds)": once the on-chain part
// settled the proposal shows EXECUTING until the bank payout is done.
func (s *Server) tickOfframps(force bool) int {
	n := 0
	r := s.rails()
	ids := make([]string, 0, len(r.Offramps))
	for id := range r.Offramps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	now := s.now()
	for _, id := range ids {
		o := r.Offramps[id]
		p := s.st.Proposals[o.ProposalID]
		w := s.st.Wallets[o.WalletID]
		if p == nil || w == nil {
			continue
		}
		if o.PayoutStatus == "awaiting_chain" && p.Status == statusCompleted {
			// The chain settled: the tokens left the wallet. Hold the
			// proposal until the payout is done.
			p.Status, p.UpdatedAt = statusExecuting, now
			o.PayoutStatus, o.PayoutStartedAt = "processing", &now
			s.withdrawalEvent(w, "processing", o.FromAmount, "nigeria", p.ID, "")
		}
		if o.PayoutStatus != "processing" || !(force || s.due(o.PayoutStartedAt)) {
			continue
		}
		n++
		if s.takeFailure(railFailNGNPayout) {
			o.PayoutStatus, o.FailureReason = "awaiting_chain", "The beneficiary bank rejected the transfer"
			w.Balance = w.Balance.Add(o.FromAmount) // refunded to the wallet
			p.Status, p.FailureReason, p.UpdatedAt = statusFailed, "off-chain payout failed: "+o.FailureReason+"; the amount was refunded", now
			s.withdrawalEvent(w, "failed", o.FromAmount, "nigeria", p.ID, o.FailureReason)
			continue
		}
		o.PayoutStatus = "completed"
		p.Status, p.UpdatedAt = statusCompleted, now
		s.withdrawalEvent(w, "completed", o.FromAmount, "nigeria", p.ID, "")
	}
	return n
}
