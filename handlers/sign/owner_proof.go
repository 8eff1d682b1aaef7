package sign

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers/approvals"
	"partneradmin/store"
	"partneradmin/views"
)

// IssueOwnerProof starts creating a wallet whose owner key lives on a
// device: it asks the API for an owner-proof challenge and hands its message
// to the device through a sign request. The device signs it with the
// signed-message prefix; DevicePost checks the signer and creates the wallet
// with one call.
func (h *Handler) IssueOwnerProof(ctx context.Context, by store.Actor, userID string, currency apiclient.Stablecoin, owner string) (views.SignPanel, error) {
	ch, err := h.API.CreateOwnerProofChallenge(ctx, userID, apiclient.OwnerProofChallengeRequest{Currency: currency, UserOwnerAddress: owner})
	if err != nil {
		return views.SignPanel{}, err
	}
	now := h.now()
	expires := now.Add(MaxLifetime)
	if !ch.ExpiresAt.IsZero() && ch.ExpiresAt.Before(expires) {
		expires = ch.ExpiresAt
	}
	tok, hash, err := NewToken()
	if err != nil {
		return views.SignPanel{}, err
	}
	addr, err := ethsig.ParseAddress(owner)
	if err != nil {
		return views.SignPanel{}, err
	}
	sr, err := h.Store.CreateSignRequest(ctx, store.SignRequest{
		Kind: store.SignKindOwnerProof, ChallengeID: ch.ChallengeID, Currency: string(currency), Message: ch.Message,
		UserID: userID, OwnerAddress: addr.Hex(), ExpiresAt: expires,
	}, hash, by)
	if err != nil {
		return views.SignPanel{}, err
	}
	link := h.PublicOrigin + PathPrefix + tok
	qr, err := QRDataURL(link)
	if err != nil {
		return views.SignPanel{}, err
	}
	panel := approvals.SignPanelOf(sr, now)
	panel.Link, panel.QRDataURL = link, qr
	return panel, nil
}

// relayOwnerProof checks that the challenge was signed, with the message
// prefix, by the owner address, then creates the wallet: one call.
func (h *Handler) relayOwnerProof(w http.ResponseWriter, r *http.Request, sr store.SignRequest, sig ethsig.Signature, refuse func(string)) {
	ctx := r.Context()
	if !h.now().Before(sr.ExpiresAt) {
		refuse("The challenge has expired; nothing was sent. Ask for a new link.")
		return
	}
	want, err := ethsig.ParseAddress(sr.OwnerAddress)
	if err != nil {
		refuse("The owner address of this request is not valid.")
		return
	}
	got, err := ethsig.RecoverMessage([]byte(sr.Message), sig)
	if err != nil || !got.Equal(want) {
		msg := "The signature does not come from the owner key " + want.Hex() + "."
		if raw, rerr := ethsig.Recover(ethsig.Keccak256([]byte(sr.Message)), sig); rerr == nil && raw.Equal(want) {
			msg = "The challenge was signed without the signed-message prefix; an owner proof must be signed as a message."
		}
		refuse(msg + " Nothing was sent to the wallet service.")
		return
	}
	if err := h.Store.MarkSignRelaying(ctx, sr.ID, sig.Hex(), 0); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	wallet, err := h.API.CreateManagedWallet(ctx, sr.UserID, apiclient.CreateManagedWalletRequest{
		Currency: apiclient.Stablecoin(sr.Currency), UserOwnerAddress: sr.OwnerAddress,
		OwnerProofChallengeID: sr.ChallengeID, OwnerProofSignature: sig.Hex(),
	})
	if err != nil {
		msg := UpstreamWords(err)
		if apiclient.StatusCode(err) == 0 {
			// No read-back exists for a half-made wallet: a person checks
			// the wallet list before asking again; never resent blindly.
			msg = "The wallet service did not answer; check the treasury's wallets before asking for a new link."
			h.logged(ctx, "MarkSignRelayUnsure", h.Store.MarkSignRelayUnsure(ctx, sr.ID, msg))
			writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: msg, State: store.SignRelayPending})
			return
		}
		h.logged(ctx, "RefuseSignRequest", h.Store.RefuseSignRequest(ctx, sr.ID, msg))
		writeJSON(w, http.StatusBadGateway, DeviceAnswer{Error: msg, State: store.SignRefused})
		return
	}
	if e, err := h.Store.EmployeeByServiceUserID(ctx, sr.UserID); err == nil {
		now := h.now()
		if err := h.Store.UpsertWallet(ctx, store.Wallet{ID: wallet.ID, EmployeeID: e.ID, Currency: string(wallet.Currency),
			DisplayCurrency: string(wallet.DisplayCurrency), Address: wallet.Address, Chain: wallet.Chain, Status: wallet.Status,
			OwnerAddress: wallet.UserOwnerAddress, Legacy: wallet.Legacy,
			Balance: decimal.NullDecimal{Decimal: wallet.Balance, Valid: true}, BalanceReadAt: &now}); err != nil {
			h.Logger.ErrorContext(ctx, "owner proof: mirror the new wallet", "err", err)
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		h.Logger.ErrorContext(ctx, "owner proof: find the wallet's user", "err", err)
	}
	if err := h.Store.FinishSignRelay(ctx, sr.ID, store.SignCompleted, nil); err != nil {
		h.deviceServerError(w, r, true, err)
		return
	}
	writeJSON(w, http.StatusOK, DeviceAnswer{State: store.SignCompleted})
}

// IssueWorkflow hands a rail's signatureRequest (a payout, a withdrawal, an
// order) to the wallet owner's device. what is the line the device shows
// ("Crypto withdrawal of 25 USDB to 0x…"); it is kept in the request's
// message. The hash is stored because no endpoint returns it again; the
// device's signature is checked against the wallet's registered owner and
// completed through /wallets/submit-signature, once.
func (h *Handler) IssueWorkflow(ctx context.Context, by store.Actor, userID, walletID string, req apiclient.SignatureRequest, what string) (views.SignPanel, error) {
	if _, err := ethsig.ParseHash(req.HashToSign); err != nil {
		return views.SignPanel{}, fmt.Errorf("sign: workflow %s: %w", req.WorkflowID, err)
	}
	wallet, err := h.Store.WalletByID(ctx, walletID)
	if err != nil {
		return views.SignPanel{}, err
	}
	now := h.now()
	expires := now.Add(MaxLifetime)
	if !req.Deadline.IsZero() && req.Deadline.Before(expires) {
		expires = req.Deadline
	}
	tok, hash, err := NewToken()
	if err != nil {
		return views.SignPanel{}, err
	}
	sr, err := h.Store.CreateSignRequest(ctx, store.SignRequest{
		Kind: store.SignKindWorkflow, WorkflowID: req.WorkflowID, HashToSign: req.HashToSign, Message: what,
		UserID: userID, WalletID: walletID, OwnerAddress: wallet.OwnerAddress, ExpiresAt: expires,
	}, hash, by)
	if err != nil {
		return views.SignPanel{}, err
	}
	link := h.PublicOrigin + PathPrefix + tok
	qr, err := QRDataURL(link)
	if err != nil {
		return views.SignPanel{}, err
	}
	panel := approvals.SignPanelOf(sr, now)
	panel.Link, panel.QRDataURL = link, qr
	return panel, nil
}
