package sign

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
)

// Create issues a sign request for a proposal waiting for signatures and
// shows its QR code and link, once. Issuing again supersedes the previous
// link.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	actor := handlers.ActorFrom(ctx)
	p, err := h.Store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	refuse := func(status int, msg string) {
		if err := h.Store.Audit(ctx, store.AuditEntry{Actor: actor, Action: "sign_request.create", Target: "proposal:" + id,
			Outcome: store.OutcomeRefused, Detail: msg}); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Approvals.RenderDetail(w, r, id, status, msg, nil)
	}
	if p.Status != store.ProposalPendingSignatures {
		refuse(http.StatusConflict, "This proposal is "+p.Status+": only a proposal waiting for signatures can be sent to the device.")
		return
	}
	wallet, err := h.Store.WalletByID(ctx, p.WalletID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && wallet.OwnerAddress == "") {
		refuse(http.StatusConflict, "The owner address of this wallet is not in the mirror yet; refresh the employees' wallets first.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// A fresh payload tells whether signing is open and until when.
	payload, err := h.API.GetSignPayload(ctx, p.OwnerUserID, p.ID)
	if err != nil {
		msg := "The wallet service did not give a sign payload: " + approvalsWords(err)
		if apiclient.IsNotReady(err) {
			msg = "The wallet service has no sign payload for this proposal yet; try again in a moment."
		}
		if aerr := h.Store.Audit(ctx, store.AuditEntry{Actor: actor, Action: "sign_request.create", Target: "proposal:" + id,
			Outcome: store.OutcomeFailed, Detail: msg}); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		h.Approvals.RenderDetail(w, r, id, http.StatusBadGateway, msg, nil)
		return
	}
	now := h.now()
	expires := now.Add(MaxLifetime)
	if !payload.Deadline.IsZero() && payload.Deadline.Before(expires) {
		expires = payload.Deadline
	}
	tok, hash, err := NewToken()
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	sr, err := h.Store.CreateSignRequest(ctx, store.SignRequest{
		Kind: store.SignKindProposal, ProposalID: p.ID, UserID: p.OwnerUserID, WalletID: p.WalletID,
		OwnerAddress: wallet.OwnerAddress, ExpiresAt: expires,
	}, hash, actor)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	link := h.PublicOrigin + PathPrefix + tok
	qr, err := QRDataURL(link)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	panel := approvals.SignPanelOf(sr, now)
	panel.Link, panel.QRDataURL = link, qr
	h.Approvals.RenderDetail(w, r, id, http.StatusCreated, "", &panel)
}

func approvalsWords(err error) string {
	var ae *apiclient.Error
	if errors.As(err, &ae) {
		return ae.Message()
	}
	return "no answer"
}
