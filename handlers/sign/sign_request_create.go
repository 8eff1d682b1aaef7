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
	refuse := func(msg string) {
		if err := h.actions.Refused(ctx, kindCreate, "proposal:"+id, actor, msg); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.Flash(r, "error", msg)
		h.Redirect(w, r, back)
	}
	if p.Status != store.ProposalPendingSignatures {
		refuse("This proposal is " + views.StatusLabel(views.StatusProposal, string(p.Status)) + ": only a proposal waiting for the owner's signature can be sent to the device.")
		return
	}
	// The money controls again, before the owner is asked to sign.
	if check, err := h.store.ProposalPolicyCheck(ctx, p.ID, h.clock()); err != nil {
		h.ServerError(w, r, err)
		return
	} else if check.Refusal != nil {
		refuse("The money controls refuse a signing link now. " + check.Refusal.Words())
		return
	}
	wallet, err := h.store.WalletByID(ctx, p.WalletID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && wallet.OwnerAddress == "") {
		refuse("The owner address of this wallet is not in the mirror yet; refresh the employees' wallets first.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if last, err := h.store.LatestSignRequest(ctx, p.ID); err == nil && (last.State == store.SignRelaying || last.State == store.SignRelayPending) {
		refuse("The owner's signature is already on its way to the API: no new link is needed.")
		return
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		h.ServerError(w, r, err)
		return
	}
	var (
		link    string
		created store.SignRequest
		now     = h.clock()
	)
	done, err := h.actions.Run(ctx, handlers.Write{Key: key, Kind: kindCreate, Target: "proposal:" + p.ID, Actor: actor,
		Request: createRequest{ProposalID: p.ID, OwnerAddress: wallet.OwnerAddress},
		Call: func(ctx context.Context) (handlers.Effect, error) {
			// A fresh payload tells whether signing is open and until when.
			payload, err := h.api.GetSignPayload(ctx, p.OwnerUserID, p.ID)
			if apiclient.IsNotReady(err) {
				return handlers.Effect{}, refusal("The wallet service has no sign payload for this proposal yet; try again in a moment")
			}
			if err != nil {
				return handlers.Effect{}, refusal("The wallet service did not give a sign payload, so no link was issued. " + apiclient.ReadWords(err))
			}
			expires := now.Add(MaxLifetime)
			if !payload.Deadline.IsZero() && payload.Deadline.Before(expires) {
				expires = payload.Deadline
			}
			tok, hash, err := NewToken()
			if err != nil {
				return handlers.Effect{}, refusal("No link could be made; try again")
			}
			link = h.publicOrigin + PathPrefix + tok
			sr := store.SignRequest{Kind: store.SignKindProposal, ProposalID: p.ID, UserID: p.OwnerUserID, WalletID: p.WalletID,
				OwnerAddress: wallet.OwnerAddress, ExpiresAt: expires}
			return handlers.Effect{Target: "proposal:" + p.ID,
				Detail: "for owner " + sr.OwnerAddress + ", expires " + expires.UTC().Format(time.RFC3339),
				Apply: func(ctx context.Context, tx *store.Store) error {
					var err error
					created, err = tx.AddSignRequest(ctx, sr, hash, actor)
					return err
				}}, nil
		}})
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
	qr, err := h.qrCode(link)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	summary, err := h.summaryOf(ctx, p, wallet.OwnerAddress)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	panel := proposal.SignPanelOf(created, now)
	panel.Link, panel.QRDataURL = link, qr
	h.Render(w, r, http.StatusCreated, "Send to the owner's device",
		views.SignIssuedPage(views.SignIssuedView{ProposalID: p.ID, Device: summary, Panel: panel}), nil)
}
