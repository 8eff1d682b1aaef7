package sign

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// createRequest is what the ledger keeps of an issued link (never the
// link: only its hash is kept, in the sign request).
type createRequest struct {
	ProposalID   string `json:"proposalId"`
	OwnerAddress string `json:"ownerAddress"`
}

// Create issues a sign request for a proposal waiting for signatures and
// shows its QR code and link, once. Issuing again supersedes the previous
// link. The form's one-time token is the action's key: a double click
// issues one link. When nothing is issued, it goes back to the proposal's
// page with the reason.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	actor := handlers.ActorFrom(ctx)
	p, err := h.store.ProposalByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	back := "/approvals/" + url.PathEscape(p.ID)
	wallet, msg, err := h.signableWallet(ctx, p)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if msg != "" {
		if err := h.actions.Refused(ctx, kindCreate, "proposal:"+id, actor, msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Flash(r, "error", msg)
		h.Redirect(w, r, back)
		return
	}
	issue := &signIssue{proposal: p, ownerAddress: wallet.OwnerAddress, actor: actor, now: h.clock()}
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindCreate, Target: "proposal:" + p.ID, Actor: actor,
		Request: createRequest{ProposalID: p.ID, OwnerAddress: wallet.OwnerAddress},
		Call:    func(ctx context.Context) (handlers.Effect, error) { return h.issueSignRequest(ctx, issue) }})
	if h.Answered(w, r, err) {
		return
	}
	switch {
	case done.Repeat:
		h.Flash(r, "info", "This form was already sent: "+views.StatusLabel(views.StatusAction, string(done.Action.State))+
			". A link is shown only once; if it was lost, issue a new one (the old one then stops working).")
		h.Redirect(w, r, back)
		return
	case done.State() != store.ActionDone:
		h.Flash(r, "error", done.Problem.Summary)
		h.Redirect(w, r, back)
		return
	}
	h.showIssued(w, r, issue)
}

// signableWallet is the wallet whose owner signs p, or why no link may be
// issued for p now.
func (h *Handler) signableWallet(ctx context.Context, p store.Proposal) (store.Wallet, string, error) {
	if p.Status != store.ProposalPendingSignatures {
		return store.Wallet{}, "This proposal is " + views.StatusLabel(views.StatusProposal, string(p.Status)) + ": only a proposal waiting for the owner's signature can be sent to the device.", nil
	}
	// The money controls again, before the owner is asked to sign.
	if check, err := h.store.ProposalPolicyCheck(ctx, p.ID, h.clock()); err != nil {
		return store.Wallet{}, "", err
	} else if check.Refusal != nil {
		return store.Wallet{}, "The money controls refuse a signing link now. " + check.Refusal.Words(), nil
	}
	wallet, err := h.store.WalletByID(ctx, p.WalletID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && wallet.OwnerAddress == "") {
		return store.Wallet{}, "The owner address of this wallet is not in the mirror yet; refresh the employees' wallets first.", nil
	}
	if err != nil {
		return store.Wallet{}, "", err
	}
	if last, err := h.store.LatestSignRequest(ctx, p.ID); err == nil && (last.State == store.SignRelaying || last.State == store.SignRelayPending) {
		return store.Wallet{}, "The owner's signature is already on its way to the API: no new link is needed.", nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Wallet{}, "", err
	}
	return wallet, "", nil
}

// signIssue is one link being issued: what goes in, and the link and sign
// request it made (set once the ledger applies it).
type signIssue struct {
	proposal     store.Proposal
	ownerAddress string
	actor        store.Actor
	now          time.Time

	link    string
	created store.SignRequest
}

// issueSignRequest is the ledger's call for a link: a fresh payload tells
// whether signing is open and until when.
func (h *Handler) issueSignRequest(ctx context.Context, s *signIssue) (handlers.Effect, error) {
	p := s.proposal
	payload, err := h.api.GetSignPayload(ctx, p.OwnerUserID, p.ID)
	if apiclient.IsNotReady(err) {
		return handlers.Effect{}, refusal("The wallet service has no sign payload for this proposal yet; try again in a moment")
	}
	if err != nil {
		return handlers.Effect{}, refusal("The wallet service did not give a sign payload, so no link was issued. " + apiclient.ReadWords(err))
	}
	expires := expiryBy(s.now, payload.Deadline)
	tok, hash, err := NewToken()
	if err != nil {
		return handlers.Effect{}, refusal("No link could be made; try again")
	}
	s.link = h.publicOrigin + PathPrefix + tok
	sr := store.SignRequest{Kind: store.SignKindProposal, ProposalID: p.ID, UserID: p.OwnerUserID, WalletID: p.WalletID,
		OwnerAddress: s.ownerAddress, ExpiresAt: expires}
	return handlers.Effect{Target: "proposal:" + p.ID,
		Detail: "for owner " + sr.OwnerAddress + ", expires " + expires.UTC().Format(time.RFC3339),
		Apply: func(ctx context.Context, tx *store.Store) error {
			var err error
			s.created, err = tx.AddSignRequest(ctx, sr, hash, s.actor)
			return err
		}}, nil
}

// showIssued shows a new link with its QR code and what the device will
// show, once.
func (h *Handler) showIssued(w http.ResponseWriter, r *http.Request, s *signIssue) {
	qr, err := h.qrCode(s.link)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	summary, err := h.summaryOf(r.Context(), s.proposal, s.ownerAddress)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	panel := proposal.SignPanelOf(s.created, s.now)
	panel.Link, panel.QRDataURL = s.link, qr
	h.Render(w, r, http.StatusCreated, "Send to the owner's device",
		views.SignIssuedPage(views.SignIssuedView{ProposalID: s.proposal.ID, Device: summary, Panel: panel}), nil)
}
