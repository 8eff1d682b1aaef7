package sandbox

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

const (
	signWindow        = 10 * time.Minute   // deadline of a fetched sign payload
	proposalTTL       = 7 * 24 * time.Hour // open proposals expire after this
	cardReservationTT = 24 * time.Hour     // unsigned card reservations expire
	maxDescription    = 500                // spec: "at most 500 characters"
	actingUserHeader  = "x-acting-user-id" // sandbox: who approves
)

func proposalJSON(p *proposal) map[string]any {
	approvals := append([]string{}, p.Approvals...)
	m := map[string]any{
		"id":                  p.ID,
		"proposalId":          p.ID,
		"walletId":            p.WalletID,
		"type":                p.Type,
		"status":              p.Status,
		"currency":            p.Currency,
		"amount":              p.Amount.String(),
		"requiredSignatures":  p.Threshold,
		"collectedSignatures": len(p.Signatures),
		"approvals":           approvals,
		"requiredApprovals":   requiredApprovals(p.Policy),
		"approvalMode":        p.Policy.Mode,
		"createdAt":           iso(p.CreatedAt),
		"updatedAt":           iso(p.UpdatedAt),
	}
	if p.ToUserID != "" {
		m["toUserId"] = p.ToUserID
	}
	if p.ToAddress != "" {
		m["toAddress"] = p.ToAddress
	}
	if p.Type == typeSwap {
		m["fromStablecoin"] = p.FromStablecoin
		m["toStablecoin"] = p.ToStablecoin
		m["fromAmount"] = p.Amount.String()
		if p.SlippageBps != 0 {
			m["slippageBps"] = p.SlippageBps
		}
	}
	if p.Description != "" {
		m["description"] = p.Description
	}
	if p.RejectionReason != "" {
		m["rejectionReason"] = p.RejectionReason
	}
	if p.FailureReason != "" {
		m["failureReason"] = p.FailureReason
	}
	if p.CardID != "" {
		m["cardId"] = p.CardID
	}
	return m
}

func proposalData(p *proposal) map[string]any {
	return map[string]any{"success": true, "data": proposalJSON(p)}
}

type proposalInput struct {
	Type           string          `json:"type"`
	ToUserID       string          `json:"toUserId"`
	ToAddress      string          `json:"toAddress"`
	Amount         string          `json:"amount"`
	Currency       string          `json:"currency"`
	Description    string          `json:"description"`
	FromStablecoin string          `json:"fromStablecoin"`
	ToStablecoin   string          `json:"toStablecoin"`
	FromAmount     string          `json:"fromAmount"`
	SlippageBps    json.RawMessage `json:"slippageBps"`
}

// positiveAmount parses a decimal string amount.
func positiveAmount(field, s string, msgs *[]string) decimal.Decimal {
	if strings.TrimSpace(s) == "" {
		*msgs = append(*msgs, field+" should not be empty")
		return decimal.Zero
	}
	d, err := decimal.NewFromString(s)
	if err != nil || !d.IsPositive() || strings.ContainsAny(s, "eE") {
		*msgs = append(*msgs, field+" must be a positive decimal string")
		return decimal.Zero
	}
	if -d.Exponent() > 18 {
		*msgs = append(*msgs, field+" must have at most 18 decimals")
	}
	return d
}

func (s *Server) newProposal(w *wallet, typ string) *proposal {
	owner := s.st.Users[w.UserID]
	now := s.now()
	pol := owner.Policy
	pol.Admins = append([]string{}, pol.Admins...)
	return &proposal{
		ID:         s.newID(),
		WalletID:   w.ID,
		Type:       typ,
		Status:     statusPendingApprovals,
		Currency:   w.Currency,
		Policy:     pol,
		Approvals:  []string{},
		Signers:    append([]string{}, w.Signers...),
		Threshold:  w.Threshold,
		Signatures: map[string]string{},
		WorkflowID: s.newID(),
		Attempt:    1,
		CreatedAt:  now,
		UpdatedAt:  now,
		Seq:        s.st.next(),
	}
}

// transferProposal validates a TRANSFER against the spec's four rules and
// records it.
func (c *call) transferProposal(w *wallet, in proposalInput) (*proposal, error) {
	var msgs []string
	amount := positiveAmount("amount", in.Amount, &msgs)
	if in.Currency != "" && in.Currency != w.Currency {
		msgs = append(msgs, "currency must be the wallet's token code ("+w.Currency+")")
	}
	if len([]rune(in.Description)) > maxDescription {
		msgs = append(msgs, "description must be shorter than or equal to 500 characters")
	}
	var toAddr ethsig.Address
	switch {
	case in.ToUserID == "" && in.ToAddress == "":
		// spec rule 1: "Neither toUserId nor toAddress gives 400."
		msgs = append(msgs, "either toUserId or toAddress is required")
	case in.ToUserID != "" && in.ToAddress != "":
		msgs = append(msgs, "only one of toUserId or toAddress may be set")
	case in.ToAddress != "":
		a, err := ethsig.ParseAddress(in.ToAddress)
		if err != nil {
			msgs = append(msgs, "toAddress must be a 0x-prefixed 20-byte address")
		}
		toAddr = a
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	p := c.s.newProposal(w, typeTransfer)
	p.Amount = amount
	p.Description = in.Description
	if in.ToUserID != "" {
		r := c.s.st.Users[in.ToUserID]
		// spec rule 2: "toUserId must belong to the same partner, else 404
		// (same as unknown user)."
		if r == nil || r.PartnerID != c.partner.ID || r.DeletedAt != nil {
			return nil, notFound(msgUserNotFound)
		}
		rw := c.s.userWallet(r.ID, w.Currency)
		// spec rule 3: "The recipient must hold an active wallet in the sent
		// currency, else 400"
		if rw == nil || rw.Status != "active" {
			return nil, badRequest("Recipient has no active account in " + w.Currency)
		}
		if rw.ID == w.ID {
			return nil, badRequest("Cannot transfer to the same wallet")
		}
		p.ToUserID = r.ID
		p.ToAddress = rw.Address
	} else {
		p.ToAddress = toAddr.Hex()
	}
	c.s.st.putProposal(p)
	return p, nil
}

func (c *call) swapProposal(w *wallet, in proposalInput) (*proposal, error) {
	var msgs []string
	if !supported(in.FromStablecoin) {
		msgs = append(msgs, "fromStablecoin must be one of "+stablecoinList())
	} else if in.FromStablecoin != w.Currency {
		msgs = append(msgs, "fromStablecoin must be the wallet's currency ("+w.Currency+")")
	}
	if !supported(in.ToStablecoin) {
		msgs = append(msgs, "toStablecoin must be one of "+stablecoinList())
	} else if in.ToStablecoin == in.FromStablecoin {
		msgs = append(msgs, "toStablecoin must differ from fromStablecoin")
	}
	amount := positiveAmount("fromAmount", in.FromAmount, &msgs)
	slippage := 0
	if len(in.SlippageBps) > 0 && string(in.SlippageBps) != "null" {
		// spec: "slippageBps (optional integer 1 to 500)"
		if err := json.Unmarshal(in.SlippageBps, &slippage); err != nil || slippage < 1 || slippage > 500 {
			msgs = append(msgs, "slippageBps must be an integer between 1 and 500")
		}
	}
	if len([]rune(in.Description)) > maxDescription {
		msgs = append(msgs, "description must be shorter than or equal to 500 characters")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	if to := c.s.userWallet(w.UserID, in.ToStablecoin); to == nil || to.Status != "active" {
		return nil, badRequest("User has no active account in " + in.ToStablecoin)
	}
	p := c.s.newProposal(w, typeSwap)
	p.Amount = amount
	p.FromStablecoin = in.FromStablecoin
	p.ToStablecoin = in.ToStablecoin
	p.SlippageBps = slippage
	p.Description = in.Description
	c.s.st.putProposal(p)
	return p, nil
}

func createdProposal(c *call, p *proposal) map[string]any {
	c.status = http.StatusCreated
	return map[string]any{"success": true, "data": map[string]any{"proposal": proposalJSON(p)}}
}

// createProposal implements POST .../smart-wallets/{smartWalletId}/proposals.
func (c *call) createProposal() (any, error) {
	w, err := c.ownWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	var in struct {
		Proposal *proposalInput `json:"proposal"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.Proposal == nil {
		return nil, validation([]string{"proposal must be an object"})
	}
	var p *proposal
	switch in.Proposal.Type {
	case typeTransfer:
		p, err = c.transferProposal(w, *in.Proposal)
	case typeSwap:
		p, err = c.swapProposal(w, *in.Proposal)
	default:
		return nil, validation([]string{"type must be one of TRANSFER, SWAP"})
	}
	if err != nil {
		return nil, err
	}
	return createdProposal(c, p), nil
}

// accountSend implements POST .../smart-wallets/account/send.
func (c *call) accountSend() (any, error) {
	var in struct {
		ToUserID string `json:"toUserId"`
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
		Note     string `json:"note"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	ws := c.s.userWallets(c.user.ID)
	var w *wallet
	switch {
	case in.Currency != "":
		w = c.s.userWallet(c.user.ID, in.Currency)
		if w == nil {
			return nil, badRequest("User has no smart wallet in " + in.Currency)
		}
	case len(ws) == 1:
		// spec rule 4: "currency required when the account has more than one
		// wallet, optional with exactly one."
		w = ws[0]
	case len(ws) == 0:
		return nil, badRequest("User has no smart wallet")
	default:
		return nil, validation([]string{"currency is required when the account has more than one wallet"})
	}
	if in.ToUserID == "" {
		return nil, validation([]string{"toUserId should not be empty"})
	}
	// spec rule 4: "note becomes description."
	p, err := c.transferProposal(w, proposalInput{Type: typeTransfer, ToUserID: in.ToUserID, Amount: in.Amount, Description: in.Note})
	if err != nil {
		return nil, err
	}
	return createdProposal(c, p), nil
}

// fund implements POST .../smart-wallets/fund with the sandbox body
// { fromWalletId, toUserId | toWalletId, amount, description? }.
func (c *call) fund() (any, error) {
	var in struct {
		FromWalletID string `json:"fromWalletId"`
		ToUserID     string `json:"toUserId"`
		ToWalletID   string `json:"toWalletId"`
		Amount       string `json:"amount"`
		Currency     string `json:"currency"`
		Description  string `json:"description"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.FromWalletID == "" {
		return nil, validation([]string{"fromWalletId should not be empty"})
	}
	w, err := c.ownWallet(in.FromWalletID)
	if err != nil {
		return nil, err
	}
	pin := proposalInput{Type: typeTransfer, ToUserID: in.ToUserID, Amount: in.Amount, Currency: in.Currency, Description: in.Description}
	if in.ToWalletID != "" {
		tw := c.s.st.Wallets[in.ToWalletID]
		if tw == nil || c.s.st.Users[tw.UserID].PartnerID != c.partner.ID {
			return nil, notFound(msgItemNotFound)
		}
		if tw.Currency != w.Currency {
			return nil, badRequest("Recipient has no active account in " + w.Currency)
		}
		pin.ToAddress = tw.Address
	}
	p, err := c.transferProposal(w, pin)
	if err != nil {
		return nil, err
	}
	return createdProposal(c, p), nil
}

// ownProposal finds {proposalId} among the path user's wallets.
func (c *call) ownProposal() (*proposal, *wallet, error) {
	p := c.s.st.Proposals[c.param("proposalId")]
	if p == nil {
		return nil, nil, notFound(msgItemNotFound)
	}
	w := c.s.st.Wallets[p.WalletID]
	if w == nil || w.UserID != c.user.ID {
		return nil, nil, notFound(msgItemNotFound)
	}
	return p, w, nil
}

func (c *call) getProposal() (any, error) {
	p, _, err := c.ownProposal()
	if err != nil {
		return nil, err
	}
	return proposalData(p), nil
}

func (c *call) listProposals() (any, error) {
	w, err := c.ownWallet(c.param("smartWalletId"))
	if err != nil {
		return nil, err
	}
	ps := c.s.st.walletProposals(w.ID)
	out := make([]any, 0, len(ps))
	for i := len(ps) - 1; i >= 0; i-- { // newest first
		out = append(out, proposalJSON(ps[i]))
	}
	return map[string]any{"data": out}, nil
}

// approveProposal implements POST .../proposals/{proposalId}/approve.
func (c *call) approveProposal() (any, error) {
	p, w, err := c.ownProposal()
	if err != nil {
		return nil, err
	}
	identity := c.partner.ID // the partner itself acts as admin
	if acting := strings.TrimSpace(c.r.Header.Get(actingUserHeader)); acting != "" {
		u, err := c.s.userFor(c.partner, acting, false)
		if err != nil {
			return nil, err
		}
		identity = u.ID
	}
	switch p.Policy.Mode {
	case modeOwnerApproval:
		if identity != c.partner.ID && identity != w.UserID {
			return nil, forbidden("Only the wallet owner may approve under OWNER_APPROVAL")
		}
	default:
		if identity != c.partner.ID && !slices.Contains(p.Policy.Admins, identity) {
			return nil, forbidden("Acting user is not an admin of this wallet")
		}
	}
	now := c.s.now()
	if p.Status == statusFailed {
		// spec: "FAILED | POST .../approve again | | workflow restarts"
		p.Status = statusPendingApprovals
		p.Approvals = []string{}
		p.Signatures = map[string]string{}
		p.WorkflowID = c.s.newID()
		p.Attempt++
		p.FailureReason = ""
		p.SignDeadline = nil
		p.SubmittedAt = nil
	}
	if p.Status != statusPendingApprovals {
		return nil, conflict(fmt.Sprintf("Proposal is not awaiting approvals (status %s)", p.Status))
	}
	if !slices.Contains(p.Approvals, identity) {
		p.Approvals = append(p.Approvals, identity)
	}
	p.UpdatedAt = now
	// spec: "approval threshold of the wallet's approval mode met →
	// PENDING_SIGNATURES; sign-payload becomes available"
	if len(p.Approvals) >= requiredApprovals(p.Policy) {
		c.s.enterSigning(p)
	}
	return proposalData(p), nil
}

func (s *Server) enterSigning(p *proposal) {
	now := s.now()
	d := now.Add(signWindow)
	p.Status = statusPendingSignatures
	p.SignDeadline = &d
	p.UpdatedAt = now
}

// proposalHash is the digest the owner signs: it binds the proposal, its
// workflow attempt and its economic content.
func proposalHash(p *proposal) ethsig.Hash {
	return ethsig.Keccak256([]byte("partner-api-sandbox/proposal"), []byte(p.ID), []byte(p.WorkflowID),
		[]byte(p.Type), []byte(p.Currency), []byte(p.Amount.String()), []byte(p.ToAddress), []byte(p.ToStablecoin))
}

func (s *Server) signPayloadJSON(p *proposal, w *wallet) map[string]any {
	now := s.now()
	// spec: "Fetch a fresh sign payload right before signing": each fetch
	// opens a fresh signing window.
	d := now.Add(signWindow)
	p.SignDeadline = &d
	h := proposalHash(p).Hex()
	idx := 0
	for i, a := range p.Signers {
		if _, ok := p.Signatures[a]; !ok {
			idx = i
			break
		}
	}
	m := map[string]any{
		"method":      "evm",
		"walletIndex": idx,
		"workflowId":  p.WorkflowID,
		"hashToSign":  h,
		"payload":     h, // spec: "equal to hashToSign for evm"
		"deadline":    iso(d),
		"proposalId":  p.ID,
		"userOpHash":  nil,
		"safeTxHash":  nil,
		"typedData":   nil,
	}
	// spec: "Exactly one of userOpHash and safeTxHash is set."
	if w.Legacy {
		m["userOpHash"] = h
	} else {
		m["safeTxHash"] = h
	}
	return m
}

// signPayload implements GET .../proposals/{proposalId}/sign-payload.
func (c *call) signPayload() (any, error) {
	p, w, err := c.ownProposal()
	if err != nil {
		return nil, err
	}
	// spec: "it is available only once the proposal reaches
	// PENDING_SIGNATURES. Before that it returns 404"
	if p.Status != statusPendingSignatures || !c.s.sweepReady(p) {
		return nil, notFound(msgItemNotFound)
	}
	return map[string]any{"success": true, "data": c.s.signPayloadJSON(p, w)}, nil
}

// decodeProposalSignature reproduces the upstream decoder, failure modes
// included (spec, Errors: 500 "Point is not on curve", 500 "Invalid
// yParityOrV").
func decodeProposalSignature(raw json.RawMessage) (ethsig.Signature, *apiError) {
	var sig ethsig.Signature
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		// A byte array or any other non-string is the "wrong encoding".
		return sig, internal(msgNotOnCurve)
	}
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0x") || len(s) != 2+2*ethsig.SignatureLen {
		return sig, internal(msgNotOnCurve)
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return sig, internal(msgNotOnCurve)
	}
	copy(sig[:], b)
	switch sig[64] {
	case 27, 28:
	case 0, 1:
		// spec: "v is 0 or 1; normalise to v + 27"
		return sig, internal(msgInvalidV)
	default:
		// A signature in v‖r‖s order lands here.
		return sig, internal(msgNotOnCurve)
	}
	return sig, nil
}

// signProposal implements POST .../proposals/{proposalId}/sign.
func (c *call) signProposal() (any, error) {
	p, _, err := c.ownProposal()
	if err != nil {
		return nil, err
	}
	var in map[string]json.RawMessage
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	raw, ok := in["signature"]
	if !ok || string(raw) == "null" || string(raw) == `""` {
		return nil, validation([]string{"signature should not be empty"})
	}
	if p.Status != statusPendingSignatures || !c.s.sweepReady(p) {
		return nil, notFound(msgItemNotFound)
	}
	sig, aerr := decodeProposalSignature(raw)
	if aerr != nil {
		return nil, aerr
	}
	signer, err := ethsig.Recover(proposalHash(p), sig)
	if err != nil {
		return nil, internal(msgNotOnCurve)
	}
	now := c.s.now()
	// spec: "Signing deadline: a signature after deadline is refused."
	if p.SignDeadline != nil && now.After(*p.SignDeadline) {
		return nil, badRequest("Signature deadline exceeded: fetch a fresh sign payload and sign again")
	}
	// spec: "The recovered signer must be on the proposal's signer snapshot"
	// (a message-prefixed signature recovers to a different address and
	// lands here too).
	var onSnapshot string
	for _, a := range p.Signers {
		sa, _ := ethsig.ParseAddress(a)
		if sa.Equal(signer) {
			onSnapshot = a
		}
	}
	if onSnapshot == "" {
		return nil, forbidden(fmt.Sprintf("Signer not authorised: %s is not on the proposal's signer snapshot", signer.Hex()))
	}
	if _, dup := p.Signatures[onSnapshot]; !dup {
		p.Signatures[onSnapshot] = sig.Hex()
	}
	p.UpdatedAt = now
	if len(p.Signatures) >= p.Threshold {
		// spec: "collected signatures reach requiredSignatures → submitted
		// on-chain, then COMPLETED after execution settles"
		p.Status = statusSubmitted
		if p.Type == typeCardIssuance {
			p.Status = statusReadyToExecute
		}
		p.SubmittedAt = &now
	}
	return proposalData(p), nil
}

// rejectProposal implements POST .../proposals/{proposalId}/reject.
func (c *call) rejectProposal() (any, error) {
	p, _, err := c.ownProposal()
	if err != nil {
		return nil, err
	}
	var in struct {
		Reason string `json:"reason"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if len([]rune(in.Reason)) > maxDescription {
		return nil, validation([]string{"reason must be shorter than or equal to 500 characters"})
	}
	// spec: "any open state | POST .../reject | optional reason | rejected"
	if !p.open() {
		return nil, conflict(fmt.Sprintf("Proposal is not open (status %s)", p.Status))
	}
	p.Status = statusRejected
	p.RejectionReason = in.Reason
	p.UpdatedAt = c.s.now()
	c.s.releaseCardReservation(p)
	return proposalData(p), nil
}

// tick applies what the sandbox clock makes due: expiries and settlement.
// Caller holds mu.
func (s *Server) tick() {
	now := s.now()
	// Only the proposals due now are put in order: sorting every proposal
	// on every request made each call cost O(n log n) under the lock.
	var due []*proposal
	for _, p := range s.st.Proposals {
		if s.tickDue(p, now) {
			due = append(due, p)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].Seq < due[j].Seq })
	for _, p := range due {
		if !s.tickDue(p, now) { // an earlier one's settlement may have moved it
			continue
		}
		switch p.Status {
		case statusPendingApprovals, statusPendingSignatures:
			// spec: "unsigned | expiry | entry disappears from reserved
			// card lists"
			p.Status = statusExpired
			p.UpdatedAt = now
			s.releaseCardReservation(p)
		case statusSubmitted, statusReadyToExecute:
			s.settle(p)
		}
	}
}

// tickDue reports whether tick acts on p now: an open proposal past its
// time to live expires, a submitted one past the settle delay settles.
func (s *Server) tickDue(p *proposal, now time.Time) bool {
	switch p.Status {
	case statusPendingApprovals, statusPendingSignatures:
		ttl := proposalTTL
		if p.Type == typeCardIssuance {
			ttl = cardReservationTT
		}
		return now.Sub(p.CreatedAt) > ttl
	case statusSubmitted, statusReadyToExecute:
		return s.opts.SettleDelay > 0 && p.SubmittedAt != nil && !now.Before(p.SubmittedAt.Add(s.opts.SettleDelay))
	}
	return false
}

func (s *Server) proposalsInOrder() []*proposal {
	ps := make([]*proposal, 0, len(s.st.Proposals))
	for _, p := range s.st.Proposals {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Seq < ps[j].Seq })
	return ps
}

// settleAll settles every submitted workflow now (control API).
func (s *Server) settleAll() int {
	n := 0
	for _, p := range s.proposalsInOrder() {
		if p.SweepReadyAt != nil {
			p.SweepReadyAt = nil
		}
		if p.Status == statusSubmitted || p.Status == statusReadyToExecute {
			s.settle(p)
			n++
		}
	}
	return n
}

// settle executes a submitted proposal: balances move with decimals, or the
// proposal fails (and may be restarted by approving again).
func (s *Server) settle(p *proposal) {
	now := s.now()
	p.UpdatedAt = now
	w := s.st.Wallets[p.WalletID]
	if w == nil {
		p.Status = statusFailed
		p.FailureReason = "wallet no longer exists"
		return
	}
	if p.Type == typeCardIssuance {
		s.issueCard(p)
		p.Status = statusCompleted
		return
	}
	if w.Balance.LessThan(p.Amount) {
		p.Status = statusFailed
		p.FailureReason = fmt.Sprintf("execution reverted: insufficient balance (%s %s available, %s needed)", w.Balance, w.Currency, p.Amount)
		return
	}
	w.Balance = w.Balance.Sub(p.Amount)
	switch p.Type {
	case typeTransfer:
		if to := s.walletByAddress(p.ToAddress, p.Currency); to != nil {
			to.Balance = to.Balance.Add(p.Amount)
			s.depositEvent(to, p.Amount, "transfer", p.ID)
		}
	case typeSwap:
		if to := s.userWallet(w.UserID, p.ToStablecoin); to != nil {
			to.Balance = to.Balance.Add(convert(p.Amount, p.FromStablecoin, p.ToStablecoin))
		}
	}
	p.Status = statusCompleted
}

func (s *Server) walletByAddress(addr, currency string) *wallet {
	for _, w := range s.st.Wallets {
		if strings.EqualFold(w.Address, addr) && w.Currency == currency {
			return w
		}
	}
	return nil
}
