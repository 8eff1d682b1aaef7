package sign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// maxBatchBody caps a device's POST: a full batch's signatures (about 220
// bytes each) with room to spare.
const maxBatchBody = store.MaxSignBatchItems * 512

// BatchDeviceRequest is the device contract's GET answer for a batch link:
// the items to sign, each with its own hash, read fresh from the API.
type BatchDeviceRequest struct {
	Kind         string `json:"kind"` // "batch"
	OwnerAddress string `json:"ownerAddress"`
	// Deadline is when the link stops working.
	Deadline time.Time         `json:"deadline"`
	Items    []BatchDeviceItem `json:"items"`
}

// BatchDeviceItem is one proposal of a batch as the device sees it.
type BatchDeviceItem struct {
	ProposalID string `json:"proposalId"`
	// Hash is what to sign, raw (no message prefix); empty when the item
	// cannot be signed now (State says why).
	Hash string `json:"hash,omitempty"`
	// Summary says in words what signing does: amount, currency,
	// recipient.
	Summary  string    `json:"summary"`
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
	To       string    `json:"to"`
	Deadline time.Time `json:"deadline"`
	// State is "ready", or "expired" or "unavailable" with Error.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// Batch item states of the device contract's GET.
const (
	batchItemReady       = "ready"
	batchItemExpired     = "expired"
	batchItemUnavailable = "unavailable"
)

// BatchDeviceAnswer is the device contract's POST answer for a batch: one
// answer per posted signature.
type BatchDeviceAnswer struct {
	Items []BatchItemAnswer `json:"items,omitempty"`
	Error string            `json:"error,omitempty"`
}

// BatchItemAnswer is what became of one posted signature.
type BatchItemAnswer struct {
	ProposalID string `json:"proposalId"`
	// State is the item's sign state: submitted or completed (relayed),
	// refused (here: nothing sent; or by the API), relay_pending (the API
	// did not answer; it is read back), or waiting (nothing decided: post
	// it again).
	State          string `json:"state"`
	ProposalStatus string `json:"proposalStatus,omitempty"`
	// Relayed: this signature went to the API (once).
	Relayed bool   `json:"relayed"`
	Error   string `json:"error,omitempty"`
}

// batchSummary is what the device shows of a proposal.
func batchSummary(p store.Proposal, names proposal.Names) string {
	s := views.Capitalize(proposal.TypeLabel(p)) + ": " + proposal.Money(p).String() + " to " + names.Recipient(p)
	if p.Description != "" {
		s += " (" + p.Description + ")"
	}
	return s
}

// batchGone answers a batch link that can no longer be used, and says why.
func (h *Handler) batchGone(b store.SignBatch) (string, bool) {
	if !b.Open(h.clock()) {
		return "This link has expired. Ask the finance approver for a new one.", true
	}
	if len(b.Unsent()) == 0 {
		return "This link was already used for every proposal it covers. Ask the finance approver for a new one if a signature is still needed.", true
	}
	return "", false
}

// batchDeviceGet answers a device with every item still to sign, each hash
// read fresh from the API (never cached), or a browser with a page.
func (h *Handler) batchDeviceGet(w http.ResponseWriter, r *http.Request, asJSON bool, b store.SignBatch) {
	ctx := r.Context()
	if msg, gone := h.batchGone(b); gone {
		h.deviceGone(w, r, asJSON, msg, "")
		return
	}
	unsent := b.Unsent()
	ids := make([]string, len(unsent))
	for i, it := range unsent {
		ids[i] = it.ProposalID
	}
	ps, err := h.store.ProposalsByIDs(ctx, ids)
	if err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	byID := make(map[string]store.Proposal, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	names, err := proposal.LoadNames(ctx, h.store, ps...)
	if err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	if !asJSON {
		v := views.SignBatchDeviceView{OwnerAddress: b.OwnerAddress, Deadline: b.ExpiresAt}
		for _, it := range unsent {
			v.Items = append(v.Items, proposal.DeviceSummaryOf(byID[it.ProposalID], names, b.OwnerAddress))
		}
		h.Render(w, r, http.StatusOK, "Signing request", views.SignBatchDevicePage(v), nil)
		return
	}
	out := BatchDeviceRequest{Kind: "batch", OwnerAddress: b.OwnerAddress, Deadline: b.ExpiresAt, Items: make([]BatchDeviceItem, len(unsent))}
	deadlines := make([]time.Time, len(unsent))
	now := h.clock()
	forEach(len(unsent), BatchConcurrency, func(i int) {
		out.Items[i], deadlines[i] = h.batchDeviceItem(ctx, b, unsent[i], byID[unsent[i].ProposalID], names, now)
	})
	fresh := map[string]time.Time{}
	for i, d := range deadlines {
		if !d.IsZero() {
			fresh[unsent[i].ProposalID] = d
		}
	}
	if err := h.store.MarkSignBatchOpened(ctx, b.ID, fresh); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// batchDeviceItem is one unsent item as the device sees it, with its hash
// read fresh from the API, and the payload's own deadline (zero when it
// could not be read).
func (h *Handler) batchDeviceItem(ctx context.Context, b store.SignBatch, it store.SignBatchItem, p store.Proposal, names proposal.Names, now time.Time) (BatchDeviceItem, time.Time) {
	item := BatchDeviceItem{ProposalID: it.ProposalID, Summary: batchSummary(p, names), Amount: p.Amount.String(),
		Currency: proposal.Money(p).Currency, To: names.Recipient(p), Deadline: it.Deadline}
	// spec: "Fetch a fresh sign payload right before signing and do
	// not cache it."
	payload, err := h.api.GetSignPayload(ctx, it.UserID, it.ProposalID)
	switch {
	case apiclient.IsNotReady(err):
		item.State, item.Error = batchItemUnavailable, "The proposal no longer waits for a signature; do not sign it."
		return item, time.Time{}
	case err != nil:
		h.Logger.WarnContext(ctx, "device: batch sign payload", "proposal", it.ProposalID, "err", err)
		item.State, item.Error = batchItemUnavailable, "The wallet service did not give the request to sign. "+apiclient.ReadWords(err)
		return item, time.Time{}
	}
	item.Deadline = b.ExpiresAt
	if !payload.Deadline.IsZero() && payload.Deadline.Before(item.Deadline) {
		item.Deadline = payload.Deadline
	}
	if !now.Before(item.Deadline) {
		// Never signed stale: the payload's window is over.
		item.State, item.Error = batchItemExpired, "Its signing deadline has passed; ask for a new link."
		return item, payload.Deadline
	}
	item.State, item.Hash = batchItemReady, payload.HashToSign
	return item, payload.Deadline
}

// batchSignatures is the device's POST body for a batch.
type batchSignatures struct {
	Signatures []struct {
		ProposalID string `json:"proposalId"`
		Signature  string `json:"signature"`
	} `json:"signatures"`
}

// batchDevicePost checks each posted signature exactly as a single link's
// and relays each once, as its own action keyed by the batch and the
// proposal, with at most BatchConcurrency items in flight. A wrong
// signature refuses only its item. A replayed POST finds every item's
// action and sends nothing again.
func (h *Handler) batchDevicePost(w http.ResponseWriter, r *http.Request, b store.SignBatch, body []byte) {
	ctx := r.Context()
	var in batchSignatures
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || len(in.Signatures) == 0 || len(in.Signatures) > store.MaxSignBatchItems {
		writeJSON(w, http.StatusBadRequest, BatchDeviceAnswer{
			Error: fmt.Sprintf(`Send JSON: {"signatures": [{"proposalId": "…", "signature": "0x…"}, …]} with 1 to %d signatures.`, store.MaxSignBatchItems)})
		return
	}
	items := make(map[string]store.SignBatchItem, len(b.Items))
	for _, it := range b.Items {
		items[it.ProposalID] = it
	}
	seen := map[string]bool{}
	for _, s := range in.Signatures {
		if handlers.CheckText(s.ProposalID, 100, false) != "" || handlers.CheckText(s.Signature, 200, false) != "" {
			writeJSON(w, http.StatusBadRequest, BatchDeviceAnswer{Error: "A proposalId or signature is not valid text."})
			return
		}
		if seen[s.ProposalID] {
			writeJSON(w, http.StatusBadRequest, BatchDeviceAnswer{Error: "Proposal " + s.ProposalID + " is signed twice; send one signature per proposal."})
			return
		}
		seen[s.ProposalID] = true
	}
	if !b.Open(h.clock()) {
		writeJSON(w, http.StatusGone, BatchDeviceAnswer{Error: "This link has expired. Ask the finance approver for a new one."})
		return
	}
	out := BatchDeviceAnswer{Items: make([]BatchItemAnswer, len(in.Signatures))}
	forEach(len(in.Signatures), BatchConcurrency, func(i int) {
		s := in.Signatures[i]
		it, ok := items[s.ProposalID]
		if !ok {
			out.Items[i] = BatchItemAnswer{ProposalID: s.ProposalID, State: store.SignRefused,
				Error: "This proposal is not part of this signing request; nothing was sent."}
			return
		}
		out.Items[i] = h.relayBatchItem(ctx, b, it, s.Signature)
	})
	writeJSON(w, http.StatusOK, out)
}

// relayBatchItem checks one item's signature and relays it once.
func (h *Handler) relayBatchItem(ctx context.Context, b store.SignBatch, it store.SignBatchItem, signature string) BatchItemAnswer {
	ans := BatchItemAnswer{ProposalID: it.ProposalID}
	if it.Sent() {
		st, _ := it.StateAt(h.clock(), b.ExpiresAt, true)
		ans.State, ans.Error = string(st), "A signature for this proposal was already sent from this link; nothing was sent again."
		return ans
	}
	req := submitRequest{BatchID: b.ID, Kind: store.SignKindProposal, UserID: it.UserID, ProposalID: it.ProposalID, OwnerAddress: b.OwnerAddress}
	var verdict string
	sig, err := ethsig.ParseSignature(strings.TrimSpace(signature))
	if err != nil {
		verdict = "The signature is not 0x plus 130 hex characters (r, s, v with v of 27 or 28): " + signatureDetail(err) + "."
	} else {
		// Reads before the action: when the API cannot be read, nothing
		// is decided and the device may post this item again.
		verdict, req.CollectedBefore, err = h.checkProposalSignature(ctx, it.UserID, it.ProposalID, b.ExpiresAt, b.OwnerAddress, sig)
		if err != nil {
			ans.State, ans.Error = store.SignWaiting, "The wallet service could not be read just now; nothing was sent. Post this signature again."
			return ans
		}
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: store.SignBatchActionKey(b.ID, it.ProposalID), Kind: kindBatchSubmit,
		Target: "proposal:" + it.ProposalID, Actor: deviceActor, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if verdict != "" {
				return handlers.Effect{}, refusal(verdict)
			}
			after, err := h.api.SignProposal(ctx, it.UserID, it.ProposalID, apiclient.SignProposalRequest{Signature: sig.Hex()})
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.proposalSigned(req, *after), nil
		}})
	if err != nil {
		h.Logger.ErrorContext(ctx, "device: batch relay", "sign_batch", b.ID, "proposal", it.ProposalID, "err", err)
		ans.State, ans.Error = store.SignWaiting, "Something went wrong on the server; this signature may not have been sent. Check the approver's page before signing again."
		return ans
	}
	switch {
	case done.Repeat:
		ans.State, ans.Error = string(relayState(done.Action.State)), "A signature for this proposal was already sent from this link; nothing was sent again."
	case done.State() == store.ActionDone:
		var res submitResult
		if err := done.Action.DecodeResult(&res); err != nil {
			h.Logger.ErrorContext(ctx, "device: batch relay result", "proposal", it.ProposalID, "err", err)
		}
		ans.State, ans.ProposalStatus, ans.Relayed = string(res.State), res.ProposalStatus, true
		if ans.State == "" {
			ans.State = store.SignSubmitted
		}
	case verdict != "":
		ans.State, ans.Error = store.SignRefused, verdict
	case done.State() == store.ActionRefused:
		ans.State, ans.Error, ans.Relayed = store.SignRefused, done.Problem.Summary, true
	default:
		h.Logger.WarnContext(ctx, "device: batch relay outcome unknown", "sign_batch", b.ID, "proposal", it.ProposalID, "err", done.Err)
		ans.State, ans.Error, ans.Relayed = store.SignRelayPending, done.Problem.Summary+" Do not sign again.", true
	}
	return ans
}
