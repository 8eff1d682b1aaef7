package sign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// DeviceRequest is the device contract's GET answer (DESIGN.md decision 5).
type DeviceRequest struct {
	Kind         string        `json:"kind"`
	HashToSign   string        `json:"hashToSign,omitempty"`
	Message      string        `json:"message,omitempty"`
	Deadline     time.Time     `json:"deadline"`
	OwnerAddress string        `json:"ownerAddress"`
	WalletID     string        `json:"walletId,omitempty"`
	Summary      DeviceSummary `json:"summary"`
}

// DeviceSummary is what the device shows before signing.
type DeviceSummary struct {
	Title       string `json:"title"`
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	From        string `json:"from"`
	To          string `json:"to"`
	Description string `json:"description"`
}

// DeviceAnswer is the device contract's POST answer.
type DeviceAnswer struct {
	State          string `json:"state,omitempty"`
	ProposalStatus string `json:"proposalStatus,omitempty"`
	Error          string `json:"error,omitempty"`
}

func wantsJSON(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/json" {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// expire marks an unused request whose time is up (what the expiry job
// would do later); a failure only delays that.
func (h *Handler) expire(ctx context.Context, sr store.SignRequest) {
	if sr.State != store.SignWaiting && sr.State != store.SignOpened {
		return
	}
	if err := h.store.ExpireSignRequest(ctx, sr.ID); err != nil {
		h.Logger.ErrorContext(ctx, "expire sign request", "sign_request", sr.ID, "err", err)
	}
}

func goneWords(sr store.SignRequest, now time.Time) string {
	switch {
	case sr.State == store.SignSuperseded:
		return "This link was replaced by a newer one. Scan the new code."
	case sr.State == store.SignExpired || ((sr.State == store.SignWaiting || sr.State == store.SignOpened) && !now.Before(sr.ExpiresAt)):
		return "This link has expired. Ask the finance approver for a new one."
	}
	return "This link was already used. Ask the finance approver for a new one if the signature is still needed."
}

// DeviceGet answers a device with what to sign, read fresh from the API, or
// a browser with a page explaining the request.
func (h *Handler) DeviceGet(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	asJSON := wantsJSON(r)
	if h.deviceRateLimited(w, r, asJSON) {
		return
	}
	tokenHash := HashToken(chi.URLParam(r, "token"))
	sr, err := h.store.SignRequestByTokenHash(ctx, tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		if b, err := h.store.SignBatchByTokenHash(ctx, tokenHash); err == nil {
			h.batchDeviceGet(w, r, asJSON, b)
			return
		} else if !errors.Is(err, store.ErrNotFound) {
			h.deviceServerError(w, r, asJSON, err)
			return
		}
		if asJSON {
			writeJSON(w, http.StatusNotFound, DeviceAnswer{Error: "Unknown signing link."})
			return
		}
		h.Render(w, r, http.StatusNotFound, "Signing request", views.SignDevicePage(views.SignDeviceView{}), nil)
		return
	}
	if err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	now := h.clock()
	if !sr.Open(now) {
		h.expire(ctx, sr)
		h.deviceGone(w, r, asJSON, goneWords(sr, now), string(sr.State))
		return
	}
	p, err := h.store.ProposalByID(ctx, sr.ProposalID)
	if err != nil && sr.Kind == store.SignKindProposal {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	summary, err := h.deviceSummary(ctx, sr, p)
	if err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	if !asJSON {
		h.Render(w, r, http.StatusOK, "Signing request", views.SignDevicePage(views.SignDeviceView{
			Known: true, Kind: sr.Kind, Summary: summary, Deadline: sr.ExpiresAt,
		}), nil)
		return
	}
	out, err := h.deviceRequest(ctx, sr, p, summary)
	if err != nil {
		h.Logger.WarnContext(ctx, "device: sign payload", "proposal", sr.ProposalID, "err", err)
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: "The wallet service did not give the request to sign. " + apiclient.ReadWords(err)})
		return
	}
	if err := h.store.MarkSignOpened(ctx, sr.ID); err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// deviceSummary is what the device shows before signing sr (of proposal p,
// for a proposal's request).
func (h *Handler) deviceSummary(ctx context.Context, sr store.SignRequest, p store.Proposal) (views.DeviceSummary, error) {
	switch sr.Kind {
	case store.SignKindWorkflow:
		return views.DeviceSummary{Title: sr.Message, OwnerAddress: sr.OwnerAddress,
			Description: "A payment rail asks the wallet owner to sign before it moves the money."}, nil
	case store.SignKindOwnerProof:
		return views.DeviceSummary{Title: "Prove you own the key of a new " + sr.Currency + " wallet",
			Description:  "Signing this message registers your key " + sr.OwnerAddress + " as the owner of the new wallet.",
			OwnerAddress: sr.OwnerAddress}, nil
	case store.SignKindEURAuthorization:
		return eurAuthorizationSummary(sr), nil
	}
	return h.summaryOf(ctx, p, sr.OwnerAddress)
}

// deviceRequest is the device contract's GET answer for sr: a proposal's
// hash is read fresh from the API (an error when it cannot be), a
// workflow's is the stored one, a message is signed as it is.
func (h *Handler) deviceRequest(ctx context.Context, sr store.SignRequest, p store.Proposal, summary views.DeviceSummary) (DeviceRequest, error) {
	out := DeviceRequest{Kind: sr.Kind, Deadline: sr.ExpiresAt, OwnerAddress: sr.OwnerAddress, WalletID: sr.WalletID,
		Summary: DeviceSummary{Title: summary.Title, Amount: p.Amount.String(), Currency: proposal.Money(p).Currency,
			From: summary.From, To: summary.To, Description: summary.Description}}
	switch sr.Kind {
	case store.SignKindProposal:
		// spec: "Fetch a fresh sign payload right before signing and do not
		// cache it."
		payload, err := h.api.GetSignPayload(ctx, sr.UserID, sr.ProposalID)
		if err != nil {
			return DeviceRequest{}, err
		}
		out.HashToSign = payload.HashToSign
		if !payload.Deadline.IsZero() && payload.Deadline.Before(out.Deadline) {
			out.Deadline = payload.Deadline
		}
	case store.SignKindOwnerProof, store.SignKindEURAuthorization:
		out.Message = sr.Message
		out.Summary = DeviceSummary{Title: summary.Title, Currency: sr.Currency, Description: summary.Description}
	case store.SignKindWorkflow:
		out.HashToSign = sr.HashToSign
		out.Summary = DeviceSummary{Title: summary.Title, Description: summary.Description}
	}
	return out, nil
}

// deviceRateLimited answers a device over its rate (true) or lets it on.
func (h *Handler) deviceRateLimited(w http.ResponseWriter, r *http.Request, asJSON bool) bool {
	ok, err := h.allowed(r)
	if err != nil {
		h.Logger.ErrorContext(r.Context(), "device rate limit", "err", err)
		h.deviceError(w, r, asJSON, http.StatusServiceUnavailable, "The signing service is busy; try again in a moment.")
		return true
	}
	if !ok {
		h.deviceError(w, r, asJSON, http.StatusTooManyRequests, "Too many requests; wait a minute.")
		return true
	}
	return false
}

// deviceGone answers a link that can no longer be used, saying why.
func (h *Handler) deviceGone(w http.ResponseWriter, r *http.Request, asJSON bool, msg, state string) {
	if asJSON {
		writeJSON(w, http.StatusGone, DeviceAnswer{Error: msg, State: state})
		return
	}
	h.Render(w, r, http.StatusGone, "Signing request", views.SignDevicePage(views.SignDeviceView{Known: true, Gone: msg}), nil)
}

func (h *Handler) deviceError(w http.ResponseWriter, r *http.Request, asJSON bool, status int, msg string) {
	if asJSON || r.Method == http.MethodPost {
		writeJSON(w, status, DeviceAnswer{Error: msg})
		return
	}
	h.ErrorPage(w, r, status, "Signing request", msg)
}

func (h *Handler) deviceServerError(w http.ResponseWriter, r *http.Request, asJSON bool, err error) {
	h.Logger.ErrorContext(r.Context(), "device request failed", "err", err)
	h.deviceError(w, r, asJSON, http.StatusInternalServerError, "Something went wrong on the server; try again in a moment.")
}

// submitRequest is what the ledger keeps of a relayed signature: enough to
// read it back after a restart (never the signature or the link).
type submitRequest struct {
	SignRequestID int64 `json:"signRequestId"`
	// BatchID is set for an item of a batch sign request (SignRequestID
	// is then 0).
	BatchID      int64  `json:"batchId,omitempty"`
	Kind         string `json:"kind"`
	UserID       string `json:"userId"`
	ProposalID   string `json:"proposalId,omitempty"`
	WorkflowID   string `json:"workflowId,omitempty"`
	Currency     string `json:"currency,omitempty"`
	OwnerAddress string `json:"ownerAddress"`
	// CollectedBefore is the proposal's signature count the API showed
	// before the call.
	CollectedBefore int `json:"collectedBefore"`
}

// submitResult is what a relayed signature did, for the device's answer.
type submitResult struct {
	State          store.SignState `json:"state"`
	ProposalStatus string          `json:"proposalStatus,omitempty"`
}

// DevicePost checks a signature and relays it upstream once. The relay is
// an action keyed by the sign request: of two devices or a double submit,
// one makes the call and the others are answered 410, having sent nothing.
// A signature the checks here refuse is that action too, refused with
// nothing sent, so the link is used up either way.
func (h *Handler) DevicePost(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if h.deviceRateLimited(w, r, true) {
		return
	}
	var in struct {
		Signature string `json:"signature"`
	}
	// A batch's body carries up to store.MaxSignBatchItems signatures.
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBatchBody))
	if err != nil || json.Unmarshal(body, &in) != nil {
		writeJSON(w, http.StatusBadRequest, DeviceAnswer{Error: `Send JSON: {"signature": "0x…"}.`})
		return
	}
	tokenHash := HashToken(chi.URLParam(r, "token"))
	sr, err := h.store.SignRequestByTokenHash(ctx, tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		if b, err := h.store.SignBatchByTokenHash(ctx, tokenHash); err == nil {
			h.batchDevicePost(w, r, b, body)
			return
		} else if !errors.Is(err, store.ErrNotFound) {
			h.deviceServerError(w, r, true, err)
			return
		}
		writeJSON(w, http.StatusNotFound, DeviceAnswer{Error: "Unknown signing link."})
		return
	}
	if err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	now := h.clock()
	if !sr.Open(now) {
		h.expire(ctx, sr)
		writeJSON(w, http.StatusGone, DeviceAnswer{Error: goneWords(sr, now), State: string(sr.State)})
		return
	}
	req := submitRequest{SignRequestID: sr.ID, Kind: sr.Kind, UserID: sr.UserID, ProposalID: sr.ProposalID,
		WorkflowID: sr.WorkflowID, Currency: sr.Currency, OwnerAddress: sr.OwnerAddress}
	verdict, call, ok := h.relayOf(w, r, sr, in.Signature, &req)
	if !ok {
		return
	}
	done, err := h.actions.Run(ctx, handlers.Write{Key: store.SignActionKey(sr.ID), Kind: kindSubmit, Target: store.SignTarget(sr),
		Actor: deviceActor, Request: req, Call: func(ctx context.Context) (handlers.Effect, error) {
			if verdict != "" {
				return handlers.Effect{}, refusal(verdict)
			}
			return call(ctx)
		}})
	if err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	h.answerRelay(w, r, sr, done, verdict)
}

// relayOf checks a posted signature for sr and returns the refusal ("" when
// it may be sent) and the call that relays it. A proposal's checks read the
// API first: when it cannot be read, nothing is decided, the device is
// answered and may post again (false).
func (h *Handler) relayOf(w http.ResponseWriter, r *http.Request, sr store.SignRequest, posted string, req *submitRequest) (string, func(ctx context.Context) (handlers.Effect, error), bool) {
	var verdict string
	sig, err := ethsig.ParseSignature(strings.TrimSpace(posted))
	if err != nil {
		verdict = "The signature is not 0x plus 130 hex characters (r, s, v with v of 27 or 28): " + signatureDetail(err) + "."
	}
	switch sr.Kind {
	case store.SignKindProposal:
		if verdict == "" {
			var ok bool
			if verdict, req.CollectedBefore, ok = h.checkProposal(w, r, sr, sig); !ok {
				return "", nil, false
			}
		}
		return verdict, func(ctx context.Context) (handlers.Effect, error) {
			after, err := h.api.SignProposal(ctx, sr.UserID, sr.ProposalID, apiclient.SignProposalRequest{Signature: sig.Hex()})
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.proposalSigned(*req, *after), nil
		}, true
	case store.SignKindWorkflow:
		if verdict == "" {
			verdict = h.checkWorkflow(sr, sig)
		}
		return verdict, func(ctx context.Context) (handlers.Effect, error) {
			res, err := h.api.SubmitSignature(ctx, sr.UserID, apiclient.SubmitSignatureRequest{WorkflowID: sr.WorkflowID, Signature: sig.Hex()})
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.workflowSigned(*req, res.Status), nil
		}, true
	case store.SignKindOwnerProof:
		if verdict == "" {
			verdict = h.checkMessageSignature(sr, sig, ownerProofWords)
		}
		return verdict, h.ownerProofCall(*req, sr, sig), true
	case store.SignKindEURAuthorization:
		if verdict == "" {
			verdict = h.checkMessageSignature(sr, sig, eurAuthorizationWords)
		}
		return verdict, h.eurAuthorizationCall(*req, sr, sig), true
	}
	return "This kind of request cannot be completed here.", nil, true
}

// answerRelay tells the device what became of its signature.
func (h *Handler) answerRelay(w http.ResponseWriter, r *http.Request, sr store.SignRequest, done handlers.Done, verdict string) {
	switch {
	case done.Repeat:
		writeJSON(w, http.StatusGone, DeviceAnswer{State: string(relayState(done.Action.State)),
			Error: "This link was already used. Ask the finance approver for a new one if the signature is still needed."})
	case done.State() == store.ActionDone:
		var res submitResult
		if err := done.Action.DecodeResult(&res); err != nil {
			h.deviceServerError(w, r, true, err)
			return
		}
		writeJSON(w, http.StatusOK, DeviceAnswer{State: string(res.State), ProposalStatus: res.ProposalStatus})
	case verdict != "":
		writeJSON(w, http.StatusUnprocessableEntity, DeviceAnswer{Error: verdict, State: store.SignRefused})
	case done.State() == store.ActionRefused:
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: done.Problem.Summary, State: store.SignRefused})
	default:
		h.Logger.WarnContext(r.Context(), "device: relay outcome unknown", "sign_request", sr.ID, "err", done.Err)
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: done.Problem.Summary + " Do not sign again.", State: store.SignRelayPending})
	}
}

// relayState is a request's state while its relay action is in s.
func relayState(s store.ActionState) store.SignState {
	switch s {
	case store.ActionBegun:
		return store.SignRelaying
	case store.ActionUnknown:
		return store.SignRelayPending
	case store.ActionRefused:
		return store.SignRefused
	}
	return store.SignSubmitted
}

// checkProposal reads a fresh sign payload (what the signature must cover,
// and until when) and the proposal's signature count, then checks the
// signature. It returns the refusal ("" when it may be sent) and the
// count; false when the API could not be read (answered already).
func (h *Handler) checkProposal(w http.ResponseWriter, r *http.Request, sr store.SignRequest, sig ethsig.Signature) (string, int, bool) {
	verdict, collected, err := h.checkProposalSignature(r.Context(), sr.UserID, sr.ProposalID, sr.ExpiresAt, sr.OwnerAddress, sig)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: "The wallet service could not be read just now; nothing was sent. Try again."})
		return "", 0, false
	}
	return verdict, collected, true
}

// checkProposalSignature is checkProposal's work for one proposal of a
// link that expires at expires: the refusal ("" when the signature may be
// sent) and the proposal's signature count, or an error when the API could
// not be read (nothing is decided then).
func (h *Handler) checkProposalSignature(ctx context.Context, userID, proposalID string, expires time.Time, owner string, sig ethsig.Signature) (string, int, error) {
	payload, err := h.api.GetSignPayload(ctx, userID, proposalID)
	if apiclient.IsNotReady(err) {
		// The API answered: the proposal no longer waits for a signature.
		return "The proposal no longer waits for a signature; nothing was sent.", 0, nil
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "device: sign payload before relay", "proposal", proposalID, "err", err)
		return "", 0, err
	}
	before, err := h.api.GetProposal(ctx, userID, proposalID)
	if err != nil {
		h.Logger.WarnContext(ctx, "device: proposal before relay", "proposal", proposalID, "err", err)
		return "", 0, err
	}
	deadline := expires
	if !payload.Deadline.IsZero() && payload.Deadline.Before(deadline) {
		deadline = payload.Deadline
	}
	if !h.clock().Before(deadline) {
		return "The signing deadline has passed; nothing was sent. Ask for a new link.", before.CollectedSignatures, nil
	}
	hash, err := payload.Hash()
	if err != nil {
		return "The wallet service gave a hash that cannot be signed; nothing was sent.", before.CollectedSignatures, nil
	}
	if ok, why := ownerMatches(hash, sig, owner); !ok {
		return why + " Nothing was sent to the wallet service.", before.CollectedSignatures, nil
	}
	return "", before.CollectedSignatures, nil
}

// checkWorkflow checks a rail's signature against the stored hash and the
// wallet's registered owner.
func (h *Handler) checkWorkflow(sr store.SignRequest, sig ethsig.Signature) string {
	if !h.clock().Before(sr.ExpiresAt) {
		return "The signing deadline has passed; nothing was sent."
	}
	hash, err := ethsig.ParseHash(sr.HashToSign)
	if err != nil {
		return "The stored hash cannot be signed; nothing was sent."
	}
	if ok, why := ownerMatches(hash, sig, sr.OwnerAddress); !ok {
		return why + " Nothing was sent to the wallet service."
	}
	return ""
}

// proposalSigned is what a signature the API took on a proposal changes
// here.
func (h *Handler) proposalSigned(req submitRequest, after apiclient.Proposal) handlers.Effect {
	state := store.SignState(store.SignSubmitted)
	if after.Status == apiclient.ProposalCompleted {
		state = store.SignCompleted
	}
	p := proposal.FromAPI(after, req.UserID, h.clock())
	return handlers.Effect{Detail: store.SignRelayedDetail(&p), Result: submitResult{State: state, ProposalStatus: string(after.Status)},
		Apply: func(ctx context.Context, tx *store.Store) error {
			if req.BatchID != 0 {
				return tx.RecordSignBatchItemRelayed(ctx, req.BatchID, req.ProposalID, state, &p)
			}
			return tx.RecordSignRelayed(ctx, req.SignRequestID, state, &p)
		}}
}

// workflowSigned is what a rail's signature the API took changes here.
func (h *Handler) workflowSigned(req submitRequest, status string) handlers.Effect {
	return handlers.Effect{Detail: store.SignRelayedDetail(nil), Result: submitResult{State: store.SignSubmitted, ProposalStatus: status},
		Apply: func(ctx context.Context, tx *store.Store) error {
			return tx.RecordSignRelayed(ctx, req.SignRequestID, store.SignSubmitted, nil)
		}}
}

// errNoEvidenceYet: a rail's signature cannot be read back from the API;
// only its withdrawal's outcome (a webhook) shows that it landed.
var errNoEvidenceYet = errors.New("sign: the rail has not reported the withdrawal yet")

// readBackSubmit reads whether a relayed signature landed: a proposal with
// more signatures than before (or past signing); a new wallet of the
// currency with this owner; a rail's withdrawal that reached its outcome.
func (h *Handler) readBackSubmit(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var req submitRequest
	if err := a.DecodeRequest(&req); err != nil {
		return handlers.Effect{}, false, err
	}
	switch req.Kind {
	case store.SignKindProposal:
		cur, err := h.api.GetProposal(ctx, req.UserID, req.ProposalID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		switch cur.Status {
		case apiclient.ProposalSubmitted, apiclient.ProposalReadyToExecute, apiclient.ProposalExecuting, apiclient.ProposalCompleted:
		default:
			if cur.CollectedSignatures <= req.CollectedBefore {
				return handlers.Effect{}, false, nil
			}
		}
		return h.proposalSigned(req, *cur), true, nil
	case store.SignKindOwnerProof:
		ws, err := h.api.ListWallets(ctx, req.UserID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		for _, w := range ws {
			if string(w.Currency) == req.Currency && strings.EqualFold(w.UserOwnerAddress, req.OwnerAddress) {
				return h.walletCreated(req, w), true, nil
			}
		}
		return handlers.Effect{}, false, nil
	case store.SignKindWorkflow:
		return h.readBackWorkflow(ctx, req)
	case store.SignKindEURAuthorization:
		return h.readBackEURAuthorization(ctx, req)
	}
	return handlers.Effect{}, false, fmt.Errorf("sign: read back a %q request", req.Kind)
}

// readBackWorkflow reads back a rail's signature through the rail that
// asked for it. A crypto withdrawal's outcome comes by webhook; a bank
// payout's state moves past awaiting its signature (by webhook); a SEPA
// order or an MXN offramp is read from the API: past "prepared" (SEPA),
// showing its burn request or past "created" (the MXN first signature),
// funded or completed (the burn). An order that ended without getting
// that far did not take the signature; anything else is not known yet.
func (h *Handler) readBackWorkflow(ctx context.Context, req submitRequest) (handlers.Effect, bool, error) {
	cw, err := h.store.CryptoWithdrawalBySignRequest(ctx, req.SignRequestID)
	switch {
	case err == nil:
		if !cw.Settled() {
			return handlers.Effect{}, false, errNoEvidenceYet
		}
		return h.workflowSigned(req, string(cw.State)), true, nil
	case !errors.Is(err, store.ErrNotFound):
		return handlers.Effect{}, false, err
	}
	p, err := h.store.BankPayoutBySignRequest(ctx, req.SignRequestID)
	switch {
	case err == nil:
		switch p.State {
		case store.BankPayoutAwaitingSignature:
			return handlers.Effect{}, false, errNoEvidenceYet
		case store.BankPayoutFailed:
			return handlers.Effect{}, false, nil
		}
		return h.workflowSigned(req, string(p.State)), true, nil
	case !errors.Is(err, store.ErrNotFound):
		return handlers.Effect{}, false, err
	}
	o, burn, err := h.store.SepaMXNOrderBySignRequest(ctx, req.SignRequestID)
	if errors.Is(err, store.ErrNotFound) {
		return handlers.Effect{}, false, errNoEvidenceYet
	}
	if err != nil {
		return handlers.Effect{}, false, err
	}
	var status string
	var landed, ended bool
	if o.Rail == store.RailSEPA {
		up, err := h.api.GetEUROrder(ctx, o.UserID, o.UpstreamID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		status = up.Status
		landed = status == "processing" || status == "completed" || status == "failed"
		ended = status == "expired"
	} else {
		up, err := h.api.GetMexicoOrder(ctx, o.UserID, o.UpstreamID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		status = up.Status
		past := status == apiclient.MexicoOrderFunded || status == apiclient.MexicoOrderCompleted
		landed = past || (!burn && up.BurnSignatureRequest != nil)
		ended = !landed && status != apiclient.MexicoOrderCreated
	}
	switch {
	case landed:
		return h.workflowSigned(req, status), true, nil
	case ended:
		return handlers.Effect{}, false, nil
	}
	return handlers.Effect{}, false, errNoEvidenceYet
}

// signatureDetail says what ParseSignature found wrong with a signature.
func signatureDetail(err error) string {
	var se *ethsig.SignatureError
	if errors.As(err, &se) {
		return se.Detail
	}
	return "it could not be read"
}
