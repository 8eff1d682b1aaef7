package sign

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers/approvals"
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
	if ok, err := h.allowed(r); err != nil {
		h.Logger.ErrorContext(ctx, "device rate limit", "err", err)
		h.deviceError(w, r, asJSON, http.StatusServiceUnavailable, "The signing service is busy; try again in a moment.")
		return
	} else if !ok {
		h.deviceError(w, r, asJSON, http.StatusTooManyRequests, "Too many requests; wait a minute.")
		return
	}
	sr, err := h.Store.SignRequestByTokenHash(ctx, HashToken(chi.URLParam(r, "token")))
	if errors.Is(err, store.ErrNotFound) {
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
	now := h.now()
	if !sr.Open(now) {
		if sr.State == store.SignWaiting || sr.State == store.SignOpened {
			h.logged(ctx, "ExpireSignRequest", h.Store.ExpireSignRequest(ctx, sr.ID))
		}
		msg := goneWords(sr, now)
		if asJSON {
			writeJSON(w, http.StatusGone, DeviceAnswer{Error: msg, State: sr.State})
			return
		}
		h.Render(w, r, http.StatusGone, "Signing request", views.SignDevicePage(views.SignDeviceView{Known: true, Gone: msg}), nil)
		return
	}
	p, err := h.Store.ProposalByID(ctx, sr.ProposalID)
	if err != nil && sr.Kind == store.SignKindProposal {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	summary, err := h.summaryOf(ctx, p, sr.OwnerAddress)
	if err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	if sr.Kind == store.SignKindWorkflow {
		summary = views.DeviceSummary{Title: sr.Message, OwnerAddress: sr.OwnerAddress,
			Description: "A payment rail asks the wallet owner to sign before it moves the money."}
	}
	if sr.Kind == store.SignKindOwnerProof {
		summary = views.DeviceSummary{Title: "Prove you own the key of a new " + sr.Currency + " wallet",
			Description:  "Signing this message registers your key " + sr.OwnerAddress + " as the owner of the new wallet.",
			OwnerAddress: sr.OwnerAddress}
	}
	if !asJSON {
		h.Render(w, r, http.StatusOK, "Signing request", views.SignDevicePage(views.SignDeviceView{
			Known: true, Kind: sr.Kind, Summary: summary, Deadline: sr.ExpiresAt,
		}), nil)
		return
	}
	out := DeviceRequest{Kind: sr.Kind, Deadline: sr.ExpiresAt, OwnerAddress: sr.OwnerAddress, WalletID: sr.WalletID,
		Summary: DeviceSummary{Title: summary.Title, Amount: p.Amount.String(), Currency: approvals.Money(p).Currency,
			From: summary.From, To: summary.To, Description: summary.Description}}
	switch sr.Kind {
	case store.SignKindProposal:
		// spec: "Fetch a fresh sign payload right before signing and do not
		// cache it."
		payload, err := h.API.GetSignPayload(ctx, sr.UserID, sr.ProposalID)
		if err != nil {
			h.Logger.WarnContext(ctx, "device: sign payload", "proposal", sr.ProposalID, "err", err)
			writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: "The wallet service did not give the request to sign: " + UpstreamWords(err)})
			return
		}
		out.HashToSign = payload.HashToSign
		if !payload.Deadline.IsZero() && payload.Deadline.Before(out.Deadline) {
			out.Deadline = payload.Deadline
		}
	case store.SignKindOwnerProof:
		out.Message = sr.Message
		out.Summary = DeviceSummary{Title: summary.Title, Currency: sr.Currency, Description: summary.Description}
	case store.SignKindWorkflow:
		out.HashToSign = sr.HashToSign
		out.Summary = DeviceSummary{Title: summary.Title, Description: summary.Description}
	}
	if err := h.Store.MarkSignOpened(ctx, sr.ID); err != nil {
		h.deviceServerError(w, r, asJSON, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
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

// DevicePost checks a signature and relays it upstream exactly once.
func (h *Handler) DevicePost(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := h.now()
	if ok, err := h.allowed(r); err != nil {
		h.Logger.ErrorContext(ctx, "device rate limit", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, DeviceAnswer{Error: "The signing service is busy; try again in a moment."})
		return
	} else if !ok {
		writeJSON(w, http.StatusTooManyRequests, DeviceAnswer{Error: "Too many requests; wait a minute."})
		return
	}
	var in struct {
		Signature string `json:"signature"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err != nil || json.Unmarshal(body, &in) != nil {
		writeJSON(w, http.StatusBadRequest, DeviceAnswer{Error: `Send JSON: {"signature": "0x…"}.`})
		return
	}
	hash := HashToken(chi.URLParam(r, "token"))
	// The claim is the lock: of two devices or a double submit, one gets
	// the row, the others a 410, and only the winner may call upstream.
	sr, err := h.Store.ClaimSignRequest(ctx, hash, now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeJSON(w, http.StatusNotFound, DeviceAnswer{Error: "Unknown signing link."})
		return
	case errors.Is(err, store.ErrSignRequestGone):
		writeJSON(w, http.StatusGone, DeviceAnswer{Error: goneWords(sr, now), State: sr.State})
		return
	case err != nil:
		h.deviceServerError(w, r, true, err)
		return
	}
	refuse := func(msg string) {
		if err := h.Store.RefuseSignRequest(ctx, sr.ID, msg); err != nil {
			h.deviceServerError(w, r, true, err)
			return
		}
		writeJSON(w, http.StatusUnprocessableEntity, DeviceAnswer{Error: msg, State: store.SignRefused})
	}
	sig, err := ethsig.ParseSignature(strings.TrimSpace(in.Signature))
	if err != nil {
		refuse("The signature is not 0x plus 130 hex characters (r, s, v with v of 27 or 28): " + strings.TrimPrefix(err.Error(), "ethsig: "))
		return
	}
	switch sr.Kind {
	case store.SignKindProposal:
		h.relayProposal(w, r, sr, sig, refuse)
	case store.SignKindWorkflow:
		h.relayWorkflow(w, r, sr, sig, refuse)
	case store.SignKindOwnerProof:
		h.relayOwnerProof(w, r, sr, sig, refuse)
	default:
		refuse("This kind of request cannot be completed here.")
	}
}

func (h *Handler) relayProposal(w http.ResponseWriter, r *http.Request, sr store.SignRequest, sig ethsig.Signature, refuse func(string)) {
	ctx := r.Context()
	// A fresh payload: what the signature must cover, and until when.
	payload, err := h.API.GetSignPayload(ctx, sr.UserID, sr.ProposalID)
	if err != nil {
		if apiclient.IsNotReady(err) {
			// The API answered: the proposal no longer waits for a signature.
			refuse("The proposal no longer waits for a signature; nothing was sent.")
			return
		}
		// Nothing was sent: give the token back so the device can retry.
		h.logged(ctx, "ReopenSignRequest", h.Store.ReopenSignRequest(ctx, sr.ID))
		h.Logger.WarnContext(ctx, "device: sign payload before relay", "proposal", sr.ProposalID, "err", err)
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: "The wallet service could not be read just now; nothing was sent. Try again."})
		return
	}
	now := h.now()
	deadline := sr.ExpiresAt
	if !payload.Deadline.IsZero() && payload.Deadline.Before(deadline) {
		deadline = payload.Deadline
	}
	if !now.Before(deadline) {
		refuse("The signing deadline has passed; nothing was sent. Ask for a new link.")
		return
	}
	hash, err := payload.Hash()
	if err != nil {
		refuse("The wallet service gave a hash that cannot be signed.")
		return
	}
	if ok, why := ownerMatches(hash, sig, sr.OwnerAddress); !ok {
		refuse(why + " Nothing was sent to the wallet service.")
		return
	}
	before, err := h.API.GetProposal(ctx, sr.UserID, sr.ProposalID)
	if err != nil {
		h.logged(ctx, "ReopenSignRequest", h.Store.ReopenSignRequest(ctx, sr.ID))
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: "The wallet service could not be read just now; nothing was sent. Try again."})
		return
	}
	if err := h.Store.MarkSignRelaying(ctx, sr.ID, sig.Hex(), before.CollectedSignatures); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	h.sendProposal(w, r, sr, sig.Hex())
}

// sendProposal makes the one upstream call and records what came of it.
func (h *Handler) sendProposal(w http.ResponseWriter, r *http.Request, sr store.SignRequest, sig string) {
	ctx := r.Context()
	after, err := h.API.SignProposal(ctx, sr.UserID, sr.ProposalID, apiclient.SignProposalRequest{Signature: sig})
	if err != nil {
		if apiclient.StatusCode(err) == 0 {
			// Unsure whether the API recorded it: keep the signature for the
			// retry job, which reads the proposal before sending again.
			msg := "The wallet service did not answer. The signature is kept and will be resolved before the deadline; do not sign again."
			if err := h.Store.MarkSignRelayUnsure(ctx, sr.ID, msg); err != nil {
				h.deviceServerError(w, r, true, err)
				return
			}
			writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: msg, State: store.SignRelayPending})
			return
		}
		msg := UpstreamWords(err)
		if err := h.Store.RefuseSignRequest(ctx, sr.ID, msg); err != nil {
			h.deviceServerError(w, r, true, err)
			return
		}
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: msg, State: store.SignRefused})
		return
	}
	state := store.SignSubmitted
	if after.Status == apiclient.ProposalCompleted {
		state = store.SignCompleted
	}
	p := approvals.FromAPI(*after, sr.UserID)
	if err := h.Store.FinishSignRelay(ctx, sr.ID, state, &p); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	writeJSON(w, http.StatusOK, DeviceAnswer{State: state, ProposalStatus: string(after.Status)})
}

func (h *Handler) relayWorkflow(w http.ResponseWriter, r *http.Request, sr store.SignRequest, sig ethsig.Signature, refuse func(string)) {
	ctx := r.Context()
	if !h.now().Before(sr.ExpiresAt) {
		refuse("The signing deadline has passed; nothing was sent.")
		return
	}
	hash, err := ethsig.ParseHash(sr.HashToSign)
	if err != nil {
		refuse("The stored hash cannot be signed.")
		return
	}
	if ok, why := ownerMatches(hash, sig, sr.OwnerAddress); !ok {
		refuse(why + " Nothing was sent to the wallet service.")
		return
	}
	if err := h.Store.MarkSignRelaying(ctx, sr.ID, sig.Hex(), 0); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	res, err := h.API.SubmitSignature(ctx, sr.UserID, apiclient.SubmitSignatureRequest{WorkflowID: sr.WorkflowID, Signature: sig.Hex()})
	if err != nil {
		msg := UpstreamWords(err)
		if apiclient.StatusCode(err) == 0 {
			msg = "The wallet service did not answer; the workflow's state must be checked before signing again."
			h.logged(ctx, "MarkSignRelayUnsure", h.Store.MarkSignRelayUnsure(ctx, sr.ID, msg))
			writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: msg, State: store.SignRelayPending})
			return
		}
		h.logged(ctx, "RefuseSignRequest", h.Store.RefuseSignRequest(ctx, sr.ID, msg))
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: msg, State: store.SignRefused})
		return
	}
	if err := h.Store.FinishSignRelay(ctx, sr.ID, store.SignSubmitted, nil); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	writeJSON(w, http.StatusOK, DeviceAnswer{State: store.SignSubmitted, ProposalStatus: res.Status})
}
