package sandbox

import (
	"encoding/json"
	"math/big"
	"net/http"
	"sort"
	"strings"
)

// validIBAN checks an IBAN's ISO 13616 mod-97 checksum (spaces allowed).
func validIBAN(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	for i := 0; i < 2; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	if s[2] < '0' || s[2] > '9' || s[3] < '0' || s[3] > '9' {
		return false
	}
	var digits strings.Builder
	for _, ch := range s[4:] + s[:4] {
		switch {
		case ch >= '0' && ch <= '9':
			digits.WriteRune(ch)
		case ch >= 'A' && ch <= 'Z':
			digits.WriteString(big.NewInt(int64(ch-'A') + 10).String())
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

func euOrderJSON(o *euOrder, wf *workflow) map[string]any {
	m := map[string]any{
		"orderId":         o.ID,
		"status":          o.Status,
		"amount":          o.Amount.String(),
		"currency":        "EUR",
		"iban":            o.IBAN,
		"beneficiaryName": o.BeneficiaryName,
		"reference":       nullable(o.Reference),
		"createdAt":       iso(o.CreatedAt),
	}
	if wf != nil && wf.Status == wfAwaiting {
		m["signatureRequest"] = signatureRequestJSON(wf)
	}
	return m
}

// prepareEUOrder implements POST .../eu/orders/prepare: a SEPA payout from
// the EURe wallet to an IBAN, returned with its signature request.
func (c *call) prepareEUOrder() (any, error) {
	var in struct {
		SmartWalletID   string `json:"smartWalletId"`
		Amount          string `json:"amount"`
		IBAN            string `json:"iban"`
		BeneficiaryName string `json:"beneficiaryName"`
		Reference       string `json:"reference"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if strings.TrimSpace(in.SmartWalletID) == "" {
		msgs = append(msgs, "smartWalletId should not be empty")
	}
	amount := positiveAmount("amount", in.Amount, &msgs)
	if -amount.Exponent() > 2 {
		msgs = append(msgs, "amount must have at most 2 decimals (euro cents)")
	}
	iban := strings.ToUpper(strings.ReplaceAll(in.IBAN, " ", ""))
	if !validIBAN(iban) {
		msgs = append(msgs, "iban must be a valid IBAN (ISO 13616 checksum)")
	}
	if strings.TrimSpace(in.BeneficiaryName) == "" {
		msgs = append(msgs, "beneficiaryName should not be empty")
	} else if len([]rune(in.BeneficiaryName)) > 70 {
		msgs = append(msgs, "beneficiaryName must be shorter than or equal to 70 characters")
	}
	if len([]rune(in.Reference)) > 140 {
		msgs = append(msgs, "reference must be shorter than or equal to 140 characters")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	w, err := c.ownWallet(in.SmartWalletID)
	if err != nil {
		return nil, err
	}
	if w.Currency != "EURe" {
		return nil, validation([]string{"smartWalletId must be an EURe wallet"})
	}
	o := c.s.onboardingOf(c.user.ID)
	if o.EURStatus != "active" && c.user.Onboarding["eurProviderStatus"] != "active" {
		return nil, badRequest("EUR onboarding is not complete: eurProviderStatus must be active")
	}
	if w.Balance.LessThan(amount) {
		return nil, badRequest("Insufficient balance: " + w.Balance.String() + " EURe available, " + amount.String() + " needed")
	}
	ord := &euOrder{ID: c.s.newID(), UserID: c.user.ID, WalletID: w.ID, Amount: amount, IBAN: iban,
		BeneficiaryName: strings.TrimSpace(in.BeneficiaryName), Reference: in.Reference, Status: "prepared", CreatedAt: c.s.now()}
	wf := c.s.newWorkflow(w, wfSEPA, ord.ID, amount, iban)
	ord.WorkflowID = wf.ID
	c.s.rails().EUOrders[ord.ID] = ord
	c.status = http.StatusCreated
	return map[string]any{"data": euOrderJSON(ord, wf)}, nil
}

// completeEUOrder implements POST .../eu/orders/{orderId}/complete
// { signature } (path decided by the sandbox; README).
func (c *call) completeEUOrder() (any, error) {
	ord := c.s.rails().EUOrders[c.param("orderId")]
	if ord == nil || ord.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	var in map[string]json.RawMessage
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	raw, ok := in["signature"]
	if !ok || string(raw) == "null" || string(raw) == `""` {
		return nil, validation([]string{"signature should not be empty"})
	}
	wf := c.s.rails().Workflows[ord.WorkflowID]
	if wf == nil {
		return nil, notFound(msgItemNotFound)
	}
	if err := c.s.signWorkflow(wf, raw); err != nil {
		return nil, err
	}
	return map[string]any{"data": euOrderJSON(ord, wf)}, nil
}

// getEUOrder implements GET .../eu/orders/{orderId} (sandbox extension).
func (c *call) getEUOrder() (any, error) {
	ord := c.s.rails().EUOrders[c.param("orderId")]
	if ord == nil || ord.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	return map[string]any{"data": euOrderJSON(ord, c.s.rails().Workflows[ord.WorkflowID])}, nil
}

func (s *Server) sepaSigned(wf *workflow, w *wallet) error {
	ord := s.rails().EUOrders[wf.RefID]
	if ord == nil {
		return notFound(msgItemNotFound)
	}
	if err := debit(w, ord.Amount); err != nil {
		return err
	}
	ord.Status = "processing"
	s.withdrawalEvent(w, "processing", ord.Amount, "sepa", ord.ID, "")
	return nil
}

func (s *Server) tickSEPA(force bool) int {
	n := 0
	r := s.rails()
	ids := make([]string, 0, len(r.EUOrders))
	for id := range r.EUOrders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		o := r.EUOrders[id]
		wf := r.Workflows[o.WorkflowID]
		w := s.st.Wallets[o.WalletID]
		if o.Status != "processing" || wf == nil || w == nil || !(force || s.due(wf.SubmittedAt)) {
			continue
		}
		n++
		if s.takeFailure(railFailSEPA) {
			o.Status, wf.Status = "failed", wfFailed
			w.Balance = w.Balance.Add(o.Amount)
			s.withdrawalEvent(w, "failed", o.Amount, "sepa", o.ID, "The SEPA transfer was returned by the beneficiary bank; the amount was refunded")
			continue
		}
		o.Status, wf.Status = "completed", wfCompleted
		s.withdrawalEvent(w, "completed", o.Amount, "sepa", o.ID, "")
	}
	return n
}
