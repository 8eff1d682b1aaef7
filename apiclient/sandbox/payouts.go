package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

type payoutCountry struct {
	Code       string   `json:"code"`
	Name       string   `json:"name"`
	Currencies []string `json:"currencies"`
}

type payoutBank struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Country  string         `json:"country"`
	Branches []payoutBranch `json:"-"`
	AcctLen  [2]int         `json:"-"` // account number length range
}

type payoutBranch struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// The bank payout rail's reach. USD is absent on purpose (spec: "USD has no
// bank payout rail").
var payoutCountries = []payoutCountry{
	{"BRA", "Brazil", []string{"BRL"}},
	{"CAN", "Canada", []string{"CAD"}},
	{"COL", "Colombia", []string{"COP"}},
	{"GBR", "United Kingdom", []string{"GBP"}},
	{"GHA", "Ghana", []string{"GHS"}},
	{"IND", "India", []string{"INR"}},
	{"KEN", "Kenya", []string{"KES"}},
	{"MEX", "Mexico", []string{"MXN"}},
	{"NGA", "Nigeria", []string{"NGN"}},
	{"PHL", "Philippines", []string{"PHP"}},
}

var payoutBanks = []payoutBank{
	{ID: "bra-itau", Name: "Itaú Unibanco", Country: "BRA", AcctLen: [2]int{5, 12}},
	{ID: "bra-nubank", Name: "Nu Pagamentos", Country: "BRA", AcctLen: [2]int{5, 12}},
	{ID: "can-rbc", Name: "Royal Bank of Canada", Country: "CAN", AcctLen: [2]int{7, 12},
		Branches: []payoutBranch{{"can-rbc-00002", "Toronto Main (00002)"}, {"can-rbc-01234", "Vancouver Downtown (01234)"}}},
	{ID: "can-td", Name: "TD Canada Trust", Country: "CAN", AcctLen: [2]int{7, 12},
		Branches: []payoutBranch{{"can-td-10202", "Montreal Centre (10202)"}}},
	{ID: "col-bancolombia", Name: "Bancolombia", Country: "COL", AcctLen: [2]int{9, 16}},
	{ID: "gbr-barclays", Name: "Barclays", Country: "GBR", AcctLen: [2]int{8, 8}},
	{ID: "gbr-monzo", Name: "Monzo", Country: "GBR", AcctLen: [2]int{8, 8}},
	{ID: "gha-gcb", Name: "GCB Bank", Country: "GHA", AcctLen: [2]int{10, 16},
		Branches: []payoutBranch{{"gha-gcb-accra", "Accra High Street"}, {"gha-gcb-kumasi", "Kumasi Adum"}}},
	{ID: "ind-hdfc", Name: "HDFC Bank", Country: "IND", AcctLen: [2]int{9, 18},
		Branches: []payoutBranch{{"ind-hdfc-0000001", "Mumbai Fort (HDFC0000001)"}, {"ind-hdfc-0000240", "Bengaluru MG Road (HDFC0000240)"}}},
	{ID: "ken-equity", Name: "Equity Bank Kenya", Country: "KEN", AcctLen: [2]int{10, 13},
		Branches: []payoutBranch{{"ken-equity-068", "Nairobi Upper Hill"}}},
	{ID: "ken-kcb", Name: "KCB Bank Kenya", Country: "KEN", AcctLen: [2]int{10, 13}},
	{ID: "mex-bbva", Name: "BBVA México", Country: "MEX", AcctLen: [2]int{18, 18}},
	{ID: "mex-banorte", Name: "Banorte", Country: "MEX", AcctLen: [2]int{18, 18}},
	{ID: "nga-gtbank", Name: "Guaranty Trust Bank", Country: "NGA", AcctLen: [2]int{10, 10}},
	{ID: "nga-access", Name: "Access Bank", Country: "NGA", AcctLen: [2]int{10, 10}},
	{ID: "phl-bdo", Name: "BDO Unibank", Country: "PHL", AcctLen: [2]int{10, 12}},
}

// payoutRates are units of the destination currency per USDB.
var payoutRates = map[string]decimal.Decimal{
	"BRL": decimal.RequireFromString("5.42"),
	"CAD": decimal.RequireFromString("1.369863"),
	"COP": decimal.RequireFromString("3950"),
	"GBP": decimal.RequireFromString("0.787401"),
	"GHS": decimal.RequireFromString("15.4"),
	"INR": decimal.RequireFromString("84.1"),
	"KES": decimal.RequireFromString("129.5"),
	"MXN": decimal.RequireFromString("18.181818"),
	"NGN": decimal.RequireFromString("1538.461538"),
	"PHP": decimal.RequireFromString("58.2"),
}

func payoutCountryByCode(code string) (payoutCountry, bool) {
	for _, c := range payoutCountries {
		if c.Code == code {
			return c, true
		}
	}
	return payoutCountry{}, false
}

func payoutBankByID(id string) (payoutBank, bool) {
	for _, b := range payoutBanks {
		if b.ID == id {
			return b, true
		}
	}
	return payoutBank{}, false
}

func (c *call) payoutCountriesList() (any, error) {
	return map[string]any{"data": payoutCountries}, nil
}

// payoutBanksList implements GET .../payouts/banks?country=<alpha-3>.
func (c *call) payoutBanksList() (any, error) {
	cc := strings.ToUpper(strings.TrimSpace(c.r.URL.Query().Get("country")))
	if _, ok := payoutCountryByCode(cc); !ok {
		return nil, validation([]string{"country must be an ISO 3166-1 alpha-3 code of a payout country"})
	}
	out := []any{}
	for _, b := range payoutBanks {
		if b.Country == cc {
			out = append(out, map[string]any{"id": b.ID, "name": b.Name, "country": b.Country, "branchRequired": len(b.Branches) > 0})
		}
	}
	return map[string]any{"data": out}, nil
}

// payoutBranchesList implements GET .../payouts/bank-branches?bankId= (an
// empty list means no branch is needed).
func (c *call) payoutBranchesList() (any, error) {
	b, ok := payoutBankByID(strings.TrimSpace(c.r.URL.Query().Get("bankId")))
	if !ok {
		return nil, notFound("Bank not found")
	}
	out := []payoutBranch{}
	out = append(out, b.Branches...)
	return map[string]any{"data": out}, nil
}

var payoutHolderNames = []string{"MARIA GONZALEZ", "JAMES OKOYE", "PRIYA SHARMA", "LUCAS SILVA", "AMARA MENSAH", "OLIVER BROWN", "WANJIKU KAMAU", "JUAN DELA CRUZ"}

// validatePayoutAccount checks an account deterministically: digits of the
// bank's length; an account number ending in 0000 does not exist.
func validatePayoutAccount(b payoutBank, number string) (bool, string, string) {
	n := strings.TrimSpace(number)
	if numDigits(n) != len(n) || len(n) < b.AcctLen[0] || len(n) > b.AcctLen[1] {
		if b.AcctLen[0] == b.AcctLen[1] {
			return false, "", fmt.Sprintf("accountNumber must be %d digits for %s", b.AcctLen[0], b.Name)
		}
		return false, "", fmt.Sprintf("accountNumber must be %d to %d digits for %s", b.AcctLen[0], b.AcctLen[1], b.Name)
	}
	if strings.HasSuffix(n, "0000") {
		return false, "", "No account with this number exists at " + b.Name
	}
	d := digitsFrom("payout-holder:"+b.ID+":"+n, 2)
	i, _ := strconv.Atoi(d)
	return true, payoutHolderNames[i%len(payoutHolderNames)], ""
}

// validatePayoutAccountCall implements POST .../payouts/validate-account.
func (c *call) validatePayoutAccountCall() (any, error) {
	var in struct {
		Country       string `json:"country"`
		Currency      string `json:"currency"`
		BankID        string `json:"bankId"`
		AccountNumber string `json:"accountNumber"`
		RoutingNumber string `json:"routingNumber"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	b, msgs := payoutDestination(in.Country, in.Currency, in.BankID, in.AccountNumber)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	ok, holder, msg := validatePayoutAccount(b, in.AccountNumber)
	out := map[string]any{"valid": ok}
	if ok {
		out["accountHolderName"] = holder
	} else {
		out["message"] = msg
	}
	return map[string]any{"data": out}, nil
}

func payoutDestination(country, currency, bankID, account string) (payoutBank, []string) {
	var msgs []string
	cc := strings.ToUpper(strings.TrimSpace(country))
	pc, ok := payoutCountryByCode(cc)
	if !ok {
		msgs = append(msgs, "country must be an ISO 3166-1 alpha-3 code of a payout country")
	}
	cur := strings.ToUpper(strings.TrimSpace(currency))
	if len(cur) != 3 {
		msgs = append(msgs, "currency must be an ISO 4217 code")
	} else if ok && !slices.Contains(pc.Currencies, cur) {
		msgs = append(msgs, fmt.Sprintf("currency must be one of %s for %s", strings.Join(pc.Currencies, ", "), cc))
	}
	b, bok := payoutBankByID(strings.TrimSpace(bankID))
	switch {
	case strings.TrimSpace(bankID) == "":
		msgs = append(msgs, "bankId should not be empty")
	case !bok || (ok && b.Country != cc):
		msgs = append(msgs, "bankId must be a bank of the payout country")
	}
	if strings.TrimSpace(account) == "" {
		msgs = append(msgs, "accountNumber should not be empty")
	}
	return b, msgs
}

// payoutFee is 0.5% with a 1.00 USDB minimum.
func payoutFee(amount decimal.Decimal) decimal.Decimal {
	f := amount.Mul(decimal.RequireFromString("0.005")).RoundUp(2)
	if min := decimal.NewFromInt(1); f.LessThan(min) {
		return min
	}
	return f
}

// createPayout implements POST .../payouts.
func (c *call) createPayout() (any, error) {
	var in payoutRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	amountMinor, b, msgs := validatePayoutRequest(in)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	bd := in.BankDetails
	w, err := c.ownWallet(in.SourceSmartWalletID)
	if err != nil {
		return nil, err
	}
	if w.Currency != "USDB" {
		return nil, validation([]string{"sourceSmartWalletId must be a USDB wallet"})
	}
	if ok, _, msg := validatePayoutAccount(b, bd.AccountNumber); !ok {
		return nil, badRequest(msg)
	}
	source := decimal.New(int64(amountMinor), -2) // USDB has 2 decimals on this rail
	if w.Balance.LessThan(source) {
		return nil, badRequest(fmt.Sprintf("Insufficient balance: %s USDB available, %s needed", w.Balance, source))
	}
	fee := payoutFee(source)
	if !source.GreaterThan(fee) {
		return nil, validation([]string{fmt.Sprintf("amount must exceed the %s USDB fee", fee)})
	}
	cur := strings.ToUpper(in.Currency)
	rate := payoutRates[cur]
	p := &payout{ID: c.s.newID(), UserID: c.user.ID, WalletID: w.ID, AmountMinor: amountMinor, SourceAmount: source, Fee: fee,
		Rate: rate, DestinationAmount: source.Sub(fee).Mul(rate).RoundDown(2), Country: strings.ToUpper(in.Country), Currency: cur,
		BankID: b.ID, AccountNumber: bd.AccountNumber, AccountHolderName: bd.AccountHolderName, Note: in.Note,
		Status: "awaiting_signature", CreatedAt: c.s.now()}
	wf := c.s.newWorkflow(w, wfPayout, p.ID, source, b.ID+":"+bd.AccountNumber)
	p.WorkflowID, p.ExpiresAt = wf.ID, wf.Deadline
	c.s.rails().Payouts[p.ID] = p
	c.status = http.StatusCreated
	return map[string]any{"data": payoutJSON(p, wf)}, nil
}

// payoutRequest is the body of POST /payouts.
type payoutRequest struct {
	SourceSmartWalletID string          `json:"sourceSmartWalletId"`
	Amount              json.RawMessage `json:"amount"`
	Country             string          `json:"country"`
	Currency            string          `json:"currency"`
	BankDetails         *struct {
		BankID            string `json:"bankId"`
		AccountNumber     string `json:"accountNumber"`
		AccountHolderName string `json:"accountHolderName"`
		BranchID          string `json:"branchId"`
		AccountType       string `json:"accountType"`
		RoutingNumber     string `json:"routingNumber"`
		SwiftCode         string `json:"swiftCode"`
	} `json:"bankDetails"`
	Note string `json:"note"`
}

// validatePayoutRequest returns the amount, the destination bank and one
// message per invalid field.
func validatePayoutRequest(in payoutRequest) (minor, payoutBank, []string) {
	var msgs []string
	if strings.TrimSpace(in.SourceSmartWalletID) == "" {
		msgs = append(msgs, "sourceSmartWalletId should not be empty")
	}
	amountMinor, amountMsg := payoutAmount(in.Amount)
	if amountMsg != "" {
		msgs = append(msgs, amountMsg)
	}
	var b payoutBank
	if bd := in.BankDetails; bd == nil {
		msgs = append(msgs, "bankDetails must be an object")
	} else {
		var dmsgs []string
		b, dmsgs = payoutDestination(in.Country, in.Currency, bd.BankID, bd.AccountNumber)
		for _, m := range dmsgs {
			if strings.HasPrefix(m, "bankId") || strings.HasPrefix(m, "accountNumber") {
				m = "bankDetails." + m
			}
			msgs = append(msgs, m)
		}
		if strings.TrimSpace(bd.AccountHolderName) == "" {
			msgs = append(msgs, "bankDetails.accountHolderName should not be empty")
		}
		if len(b.Branches) > 0 && !slices.ContainsFunc(b.Branches, func(br payoutBranch) bool { return br.ID == bd.BranchID }) {
			msgs = append(msgs, "bankDetails.branchId must be a branch of the bank (GET /payouts/bank-branches)")
		}
		if bd.AccountType != "" && bd.AccountType != "savings" && bd.AccountType != "checking" {
			msgs = append(msgs, "bankDetails.accountType must be one of savings, checking")
		}
	}
	if len([]rune(in.Note)) > maxDescription {
		msgs = append(msgs, "note must be shorter than or equal to 500 characters")
	}
	return amountMinor, b, msgs
}

// payoutAmount reads the amount, or says why it is invalid. spec: "amount |
// required, string in USDB minor units (not a decimal amount)"
func payoutAmount(raw json.RawMessage) (minor, string) {
	var s string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return 0, "amount should not be empty"
	case json.Unmarshal(raw, &s) != nil:
		return 0, "amount must be a string of USDB minor units (e.g. \"1050\" for 10.50 USDB)"
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || numDigits(s) != len(s) {
		return minor(v), "amount must be a positive whole number of USDB minor units, not a decimal amount"
	}
	return minor(v), ""
}

func payoutJSON(p *payout, wf *workflow) map[string]any {
	m := map[string]any{
		"id":     p.ID,
		"status": p.Status,
		"amount": p.AmountMinor,
		"quote": map[string]any{
			"sourceCurrency":      "USDB",
			"sourceAmount":        p.SourceAmount.StringFixed(2),
			"destinationCurrency": p.Currency,
			"destinationAmount":   p.DestinationAmount.StringFixed(2),
			"exchangeRate":        p.Rate.String(),
			"feeAmount":           p.Fee.StringFixed(2),
			"expiresAt":           iso(p.ExpiresAt),
		},
	}
	if wf != nil {
		m["signatureRequest"] = signatureRequestJSON(wf)
	}
	return m
}

func (s *Server) payoutSigned(wf *workflow, w *wallet) error {
	p := s.rails().Payouts[wf.RefID]
	if p == nil {
		return notFound(msgItemNotFound)
	}
	if err := debit(w, p.SourceAmount); err != nil {
		return err
	}
	p.Status = "processing"
	s.withdrawalEvent(w, "processing", p.SourceAmount, "payout", p.ID, "")
	return nil
}

func (s *Server) tickPayouts(force bool) int {
	n := 0
	r := s.rails()
	ids := make([]string, 0, len(r.Payouts))
	for id := range r.Payouts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := r.Payouts[id]
		wf := r.Workflows[p.WorkflowID]
		if p.Status != "processing" || wf == nil || !(force || s.due(wf.SubmittedAt)) {
			continue
		}
		w := s.st.Wallets[p.WalletID]
		if w == nil {
			continue
		}
		n++
		if s.takeFailure(railFailPayout) {
			p.Status, wf.Status = "failed", wfFailed
			w.Balance = w.Balance.Add(p.SourceAmount)
			s.withdrawalEvent(w, "failed", p.SourceAmount, "payout", p.ID, "The beneficiary bank returned the payout; the amount was refunded")
			continue
		}
		p.Status, wf.Status = "completed", wfCompleted
		s.withdrawalEvent(w, "completed", p.SourceAmount, "payout", p.ID, "")
	}
	return n
}
