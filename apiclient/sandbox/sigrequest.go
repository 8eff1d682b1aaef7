package sandbox

import (
	"encoding/json"
	"fmt"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient/ethsig"
)

// newWorkflow opens a signature request on wallet w. The signer snapshot is
// the wallet's, as for proposals; the deadline is the proposal signing
// window, capped by limit when non-zero (a quote's expiry).
func (s *Server) newWorkflow(w *wallet, kind, refID string, amount decimal.Decimal, destination string) *workflow {
	now := s.now()
	wf := &workflow{
		ID:          s.newID(),
		UserID:      w.UserID,
		WalletID:    w.ID,
		Kind:        kind,
		RefID:       refID,
		Amount:      amount,
		Currency:    w.Currency,
		Destination: destination,
		Signers:     append([]string{}, w.Signers...),
		Deadline:    now.Add(signWindow),
		Status:      wfAwaiting,
		CreatedAt:   now,
	}
	wf.Hash = ethsig.Keccak256([]byte("partner-api-sandbox/workflow"), []byte(wf.ID), []byte(kind), []byte(refID),
		[]byte(w.Currency), []byte(amount.String()), []byte(destination)).Hex()
	s.rails().Workflows[wf.ID] = wf
	return wf
}

// signatureRequestJSON is the agreed shape { workflowId, hashToSign,
// deadline, walletIndex }.
func signatureRequestJSON(wf *workflow) map[string]any {
	return map[string]any{
		"workflowId":  wf.ID,
		"hashToSign":  wf.Hash,
		"deadline":    iso(wf.Deadline),
		"walletIndex": 0,
	}
}

// verifyWorkflowSignature applies the proposal signature checks to a rail
// workflow: the same decoder failures (500 "Point is not on curve", 500
// "Invalid yParityOrV"), the deadline and the signer snapshot.
func (s *Server) verifyWorkflowSignature(wf *workflow, raw json.RawMessage) error {
	sig, aerr := decodeProposalSignature(raw)
	if aerr != nil {
		return aerr
	}
	h, err := ethsig.ParseHash(wf.Hash)
	if err != nil {
		return internal("workflow hash is corrupt")
	}
	signer, err := ethsig.Recover(h, sig)
	if err != nil {
		return internal(msgNotOnCurve)
	}
	// spec: "Signing deadline: a signature after deadline is refused."
	if s.now().After(wf.Deadline) {
		return badRequest("Signature deadline exceeded: the signature request expired")
	}
	for _, a := range wf.Signers {
		if sa, err := ethsig.ParseAddress(a); err == nil && sa.Equal(signer) {
			wf.Signature = sig.Hex()
			return nil
		}
	}
	return forbidden(fmt.Sprintf("Signer not authorised: %s is not on the wallet's signer snapshot", signer.Hex()))
}

// submitSignature implements POST /v1/users/{userId}/wallets/submit-signature
// (spec: "{ workflowId, signature }; completes payouts, orders and
// withdrawals that return a signatureRequest").
func (c *call) submitSignature() (any, error) {
	var in map[string]json.RawMessage
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var msgs []string
	var wfID string
	if raw, ok := in["workflowId"]; !ok || json.Unmarshal(raw, &wfID) != nil || wfID == "" {
		msgs = append(msgs, "workflowId should not be empty")
	}
	raw, ok := in["signature"]
	if !ok || string(raw) == "null" || string(raw) == `""` {
		msgs = append(msgs, "signature should not be empty")
	}
	if len(msgs) > 0 {
		return nil, validation(msgs)
	}
	wf := c.s.rails().Workflows[wfID]
	if wf == nil || wf.UserID != c.user.ID {
		return nil, notFound(msgItemNotFound)
	}
	if err := c.s.signWorkflow(wf, raw); err != nil {
		return nil, err
	}
	return map[string]any{"data": map[string]any{"workflowId": wf.ID, "status": wf.Status, "kind": wf.Kind, "refId": wf.RefID}}, nil
}

// signWorkflow checks the signature and applies the workflow's effect.
func (s *Server) signWorkflow(wf *workflow, raw json.RawMessage) error {
	switch wf.Status {
	case wfAwaiting:
	case wfExpired:
		return badRequest("Signature deadline exceeded: the signature request expired")
	default:
		return conflict(fmt.Sprintf("Workflow is not awaiting a signature (status %s)", wf.Status))
	}
	if err := s.verifyWorkflowSignature(wf, raw); err != nil {
		return err
	}
	w := s.st.Wallets[wf.WalletID]
	if w == nil {
		return notFound(msgItemNotFound)
	}
	now := s.now()
	var err error
	switch wf.Kind {
	case wfPayout:
		err = s.payoutSigned(wf, w)
	case wfCrypto, wfCryptoOff:
		err = s.cryptoSigned(wf, w)
	case wfSEPA:
		err = s.sepaSigned(wf, w)
	case wfMXAllowance:
		err = s.mxAllowanceSigned(wf)
	case wfMXBurn:
		err = s.mxBurnSigned(wf, w)
	case wfCashSend:
		err = s.cashSendSigned(wf, w)
	case wfConvert:
		err = s.convertSigned(wf, w)
	default:
		err = internal("unknown workflow kind " + wf.Kind)
	}
	if err != nil {
		wf.Signature = ""
		return err
	}
	if wf.Status == wfAwaiting {
		wf.Status = wfSubmitted
	}
	wf.SubmittedAt = &now
	return nil
}

// railTick applies what the sandbox clock made due on the rails. Caller
// holds mu.
func (s *Server) railTick() {
	r := s.rails()
	now := s.now()
	for _, wf := range r.Workflows {
		if wf.Status == wfAwaiting && now.After(wf.Deadline) {
			wf.Status = wfExpired
			s.workflowExpired(wf)
		}
	}
	s.tickAccounts(false)
	s.tickOfframps(false)
	s.tickPayouts(false)
	s.tickCrypto(false)
	s.tickSEPA(false)
	s.tickMexico(false)
	s.tickCash(false)
}

// railSettleAll completes every rail operation in flight (the settle control
// call), whatever the clock says.
func (s *Server) railSettleAll() int {
	n := s.tickAccounts(true)
	n += s.tickOfframps(true)
	n += s.tickPayouts(true)
	n += s.tickCrypto(true)
	n += s.tickSEPA(true)
	n += s.tickMexico(true)
	n += s.tickCash(true)
	return n
}

// workflowExpired releases what an unsigned workflow held.
func (s *Server) workflowExpired(wf *workflow) {
	r := s.rails()
	switch wf.Kind {
	case wfPayout:
		if p := r.Payouts[wf.RefID]; p != nil && p.Status == "awaiting_signature" {
			p.Status = "expired"
		}
	case wfCrypto, wfCryptoOff:
		if cw := r.CryptoWithdrawals[wf.RefID]; cw != nil && cw.Status == "awaiting_signature" {
			cw.Status = "expired"
		}
	case wfSEPA:
		if o := r.EUOrders[wf.RefID]; o != nil && o.Status == "prepared" {
			o.Status = "expired"
		}
	case wfCashSend:
		if o := r.CashOrders[wf.RefID]; o != nil && o.Status == "CREATED" {
			o.Status, o.UpdatedAt = "EXPIRED", s.now()
		}
	case wfConvert:
		if cv := r.Conversions[wf.RefID]; cv != nil && cv.Status == "awaiting_signature" {
			cv.Status = "expired"
		}
	}
}
