package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

// controlRoutes is the control API under /_sandbox/ (never under /v1/). It
// needs no API key and is only served when Options.Control is set.
func (s *Server) controlRoutes() []*route {
	c := "/_sandbox"
	return []*route{
		s.route("GET", c+"/partners", authControl, (*call).ctlPartners),
		s.route("POST", c+"/partners", authControl, (*call).ctlAddPartner),
		s.route("GET", c+"/clock", authControl, (*call).ctlClock),
		s.route("POST", c+"/clock/advance", authControl, (*call).ctlAdvance),
		s.route("POST", c+"/deposits", authControl, (*call).ctlDeposit),
		s.route("POST", c+"/settle", authControl, (*call).ctlSettle),
		s.route("GET", c+"/invites", authControl, (*call).ctlInvites),
		s.route("POST", c+"/invites/link", authControl, (*call).ctlLink),
		s.route("GET", c+"/cards/{cardId}", authControl, (*call).ctlCard),
		s.route("PUT", c+"/cards/{cardId}/issuer-status", authControl, (*call).ctlIssuerStatus),
		s.route("POST", c+"/cards/{cardId}/spend", authControl, (*call).ctlSpend),
		s.route("POST", c+"/wallets/{walletId}/signers", authControl, (*call).ctlSigners),
		s.route("POST", c+"/users/{userId}/legacy-wallets", authControl, (*call).ctlLegacyWallet),
		s.route("GET", c+"/faults", authControl, (*call).ctlFaults),
		s.route("POST", c+"/faults", authControl, (*call).ctlAddFault),
		s.route("DELETE", c+"/faults", authControl, (*call).ctlClearFaults),
		s.route("GET", c+"/requests", authControl, (*call).ctlRequests),
		s.route("DELETE", c+"/requests", authControl, (*call).ctlResetRequests),
		s.route("POST", c+"/reset", authControl, (*call).ctlReset),
		s.route("GET", c+"/state", authControl, (*call).ctlExport),
		s.route("PUT", c+"/state", authControl, (*call).ctlImport),
	}
}

func (c *call) ctlPartners() (any, error) {
	out := []any{}
	for _, p := range sortedPartners(c.s.st) {
		out = append(out, map[string]any{"id": p.ID, "name": p.Name, "apiKey": p.APIKey})
	}
	return map[string]any{"data": out}, nil
}

func (c *call) ctlAddPartner() (any, error) {
	var in struct {
		Name   string `json:"name"`
		APIKey string `json:"apiKey"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, validation([]string{"name should not be empty"})
	}
	if in.APIKey == "" {
		b, err := c.s.randomBytes(24)
		if err != nil {
			return nil, err
		}
		in.APIKey = fmt.Sprintf("sbx_%x", b)
	}
	if c.s.partnerByKey(in.APIKey) != nil {
		return nil, conflict("API key already in use")
	}
	p := &partner{ID: c.s.newID(), Name: strings.TrimSpace(in.Name), APIKey: in.APIKey}
	c.s.st.Partners[p.ID] = p
	c.status = http.StatusCreated
	return map[string]any{"data": map[string]any{"id": p.ID, "name": p.Name, "apiKey": p.APIKey}}, nil
}

func (c *call) ctlClock() (any, error) {
	return map[string]any{"data": map[string]any{"now": iso(c.s.now()), "offset": c.s.st.ClockOffset.String()}}, nil
}

// ctlAdvance moves the sandbox clock forward by { seconds } or { duration }
// (Go duration syntax, e.g. "2160h"), then applies what became due.
func (c *call) ctlAdvance() (any, error) {
	var in struct {
		Seconds  int64  `json:"seconds"`
		Days     int64  `json:"days"`
		Duration string `json:"duration"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	d := time.Duration(in.Seconds)*time.Second + time.Duration(in.Days)*24*time.Hour
	if in.Duration != "" {
		x, err := time.ParseDuration(in.Duration)
		if err != nil {
			return nil, validation([]string{"duration must be a Go duration such as 90m or 2160h"})
		}
		d += x
	}
	if d <= 0 {
		return nil, validation([]string{"the clock only moves forward: give seconds, days or duration"})
	}
	c.s.st.ClockOffset += d
	c.s.tick()
	return c.ctlClock()
}

// ctlDeposit credits a deposit to a wallet and fires
// employee.deposit.completed / wallet.deposit.completed.
func (c *call) ctlDeposit() (any, error) {
	var in struct {
		SmartWalletID string `json:"smartWalletId"`
		Amount        string `json:"amount"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	amount := positiveAmount("amount", in.Amount, &msgs)
	if in.SmartWalletID == "" {
		msgs = append(msgs, "smartWalletId should not be empty")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	w := c.s.st.Wallets[in.SmartWalletID]
	if w == nil {
		return nil, notFound(msgItemNotFound)
	}
	w.Balance = w.Balance.Add(amount)
	txID := c.s.newID()
	c.s.depositEvent(w, amount, "deposit", txID)
	return map[string]any{"data": map[string]any{"transactionId": txID, "wallet": walletJSON(w)}}, nil
}

// ctlSettle settles every submitted workflow (and confirms card fee sweeps)
// now, whatever the sandbox clock says.
func (c *call) ctlSettle() (any, error) {
	n := c.s.settleAll()
	return map[string]any{"data": map[string]any{"settled": n}}, nil
}

func (c *call) ctlInvites() (any, error) {
	out := []any{}
	for _, inv := range c.s.invitesInOrder() {
		out = append(out, inviteJSON(c.s, inv))
	}
	return map[string]any{"data": out}, nil
}

func (c *call) ctlLink() (any, error) {
	var in linkRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.InvitationID == "" && in.Email == "" {
		return nil, validation([]string{"invitationId or email is required"})
	}
	return c.s.linkInvite(in)
}

func (c *call) ctlCardByID() (*card, error) {
	id := c.param("cardId")
	if cd := c.s.st.Cards[id]; cd != nil {
		return cd, nil
	}
	for _, cd := range c.s.st.Cards {
		if cd.ProposalID == id {
			return cd, nil
		}
	}
	return nil, notFound(msgItemNotFound)
}

// ctlCard shows a card as the issuer holds it, activation code included.
func (c *call) ctlCard() (any, error) {
	cd, err := c.ctlCardByID()
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": cd}, nil
}

func (c *call) ctlIssuerStatus() (any, error) {
	var in struct {
		Status string `json:"status"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	st := strings.ToLower(in.Status)
	if !slices.Contains(issuerStatuses, st) {
		return nil, validation([]string{"status must be one of " + strings.Join(issuerStatuses, ", ")})
	}
	cd, err := c.ctlCardByID()
	if err != nil {
		return nil, err
	}
	if !cd.Issued {
		return nil, conflict("Card is not issued yet")
	}
	cd.IssuerStatus = st
	if st == "active" {
		cd.Activated = true
	}
	return map[string]any{"data": c.s.cardJSON(cd)}, nil
}

func (c *call) ctlSpend() (any, error) {
	var in struct {
		Amount       string `json:"amount"`
		Fee          string `json:"fee"`
		MerchantName string `json:"merchantName"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	amount := positiveAmount("amount", in.Amount, &msgs)
	fee := decimal.Zero
	if in.Fee != "" {
		f, err := decimal.NewFromString(in.Fee)
		if err != nil || f.IsNegative() {
			msgs = append(msgs, "fee must be a non-negative decimal string")
		}
		fee = f
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	cd, err := c.ctlCardByID()
	if err != nil {
		return nil, err
	}
	if !cd.Issued {
		return nil, conflict("Card is not issued yet")
	}
	merchant := strings.TrimSpace(in.MerchantName)
	if merchant == "" {
		merchant = "Sandbox Merchant"
	}
	tx := c.s.spend(cd, amount, fee, merchant)
	return map[string]any{"data": map[string]any{
		"id": tx.ID, "amount": majorNumber(tx.Amount), "fee": majorNumber(tx.Fee), "currency": tx.Currency,
		"status": tx.Status, "merchantName": tx.MerchantName, "createdAt": iso(tx.CreatedAt),
	}}, nil
}

// ctlSigners replaces a wallet's signer snapshot and threshold, for testing
// multi-signature proposals; proposals created afterwards use it.
func (c *call) ctlSigners() (any, error) {
	var in struct {
		Signers   []string `json:"signers"`
		Threshold int      `json:"threshold"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	w := c.s.st.Wallets[c.param("walletId")]
	if w == nil {
		return nil, notFound(msgItemNotFound)
	}
	var msgs []string
	var signers []string
	for i, s := range in.Signers {
		a, err := ethsig.ParseAddress(s)
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("signers.%d must be a 0x-prefixed 20-byte address", i))
			continue
		}
		signers = append(signers, a.Hex())
	}
	if len(in.Signers) == 0 {
		msgs = append(msgs, "signers must contain at least 1 elements")
	}
	if in.Threshold < 1 || in.Threshold > len(in.Signers) {
		msgs = append(msgs, "threshold must be between 1 and the number of signers")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	w.Signers, w.Threshold = signers, in.Threshold
	return map[string]any{"data": map[string]any{"signers": signers, "threshold": w.Threshold}}, nil
}

// ctlLegacyWallet creates a legacy (pre-multi-signature) wallet, which
// cannot hold cards.
func (c *call) ctlLegacyWallet() (any, error) {
	var in challengeRequest
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	addr, msgs := validateCurrencyAndOwner(in.Currency, in.UserOwnerAddress)
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	u := c.s.st.Users[c.param("userId")]
	if u == nil {
		return nil, notFound(msgUserNotFound)
	}
	if c.s.userWallet(u.ID, in.Currency) != nil {
		return nil, conflict("A smart wallet already exists for " + in.Currency)
	}
	w := c.s.addWallet(u.ID, in.Currency, addr, true)
	c.status = http.StatusCreated
	return map[string]any{"data": walletJSON(w)}, nil
}

func (c *call) ctlFaults() (any, error) {
	out := []any{}
	for _, f := range c.s.st.Faults {
		out = append(out, f)
	}
	return map[string]any{"data": out}, nil
}

// ctlAddFault injects latency, a status code, a connection drop or a
// connection reset (an RST, as a crashed proxy or a firewall sends) on the
// API routes matching route (a route pattern such as
// "/v1/users/{userId}/cards" or a path glob), at rate (0–1, default 1), for
// times requests (0: until cleared). With after, the request is handled and
// its change saved first, and only then delayed, dropped or answered with
// the status: the upstream timing out after recording the write.
func (c *call) ctlAddFault() (any, error) {
	var in struct {
		Method    string   `json:"method"`
		Route     string   `json:"route"`
		LatencyMs int      `json:"latencyMs"`
		Status    int      `json:"status"`
		Message   string   `json:"message"`
		Drop      bool     `json:"drop"`
		Reset     bool     `json:"reset"`
		After     bool     `json:"after"`
		Rate      *float64 `json:"rate"`
		Times     int      `json:"times"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	if in.Route == "" {
		msgs = append(msgs, "route should not be empty")
	}
	if in.Status != 0 && (in.Status < 400 || in.Status > 599) {
		msgs = append(msgs, "status must be between 400 and 599")
	}
	if in.LatencyMs < 0 || in.LatencyMs > 120000 {
		msgs = append(msgs, "latencyMs must be between 0 and 120000")
	}
	rate := 1.0
	if in.Rate != nil {
		rate = *in.Rate
		if rate <= 0 || rate > 1 {
			msgs = append(msgs, "rate must be greater than 0 and at most 1")
		}
	}
	if in.Status == 0 && in.LatencyMs == 0 && !in.Drop && !in.Reset {
		msgs = append(msgs, "give at least one of status, latencyMs, drop or reset")
	}
	if in.Drop && in.Reset {
		msgs = append(msgs, "give drop or reset, not both")
	}
	if in.Times < 0 {
		msgs = append(msgs, "times must not be negative")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	f := &fault{ID: c.s.newID(), Method: strings.ToUpper(in.Method), Route: in.Route, LatencyMs: in.LatencyMs,
		Status: in.Status, Message: in.Message, Drop: in.Drop, Reset: in.Reset, After: in.After, Rate: rate, Remaining: in.Times}
	c.s.st.Faults = append(c.s.st.Faults, f)
	c.status = http.StatusCreated
	return map[string]any{"data": f}, nil
}

func (c *call) ctlClearFaults() (any, error) {
	c.s.st.Faults = nil
	return map[string]any{"success": true}, nil
}

// ctlReset forgets everything but the partners and sets the clock back.
func (c *call) ctlReset() (any, error) {
	st := newState()
	st.Partners = c.s.st.Partners
	c.s.st = st
	return map[string]any{"success": true}, nil
}

// ctlExport returns the whole state as JSON (an import fixture).
func (c *call) ctlExport() (any, error) {
	return c.s.st, nil
}

// ctlImport replaces the state with an exported one. Configured partners are
// kept; pending webhook deliveries resume.
func (c *call) ctlImport() (any, error) {
	st, err := decodeState(c.body)
	if err != nil {
		return nil, validation([]string{err.Error()})
	}
	if err := c.s.addConfiguredPartners(st); err != nil {
		return nil, badRequest(err.Error())
	}
	c.s.st = st
	c.s.resumeDeliveries()
	return map[string]any{"success": true}, nil
}
