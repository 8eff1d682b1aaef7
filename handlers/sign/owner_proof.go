package sign

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// IssueOwnerProof starts creating a wallet whose owner key lives on a
// device: it asks the API for an owner-proof challenge and hands its message
// to the device through a sign request. The device signs it with the
// signed-message prefix; DevicePost checks the signer and creates the wallet
// with one call.
func (h *Handler) IssueOwnerProof(ctx context.Context, by store.Actor, userID string, currency apiclient.Stablecoin, owner string) (views.SignPanel, error) {
	ch, err := h.api.CreateOwnerProofChallenge(ctx, userID, apiclient.OwnerProofChallengeRequest{Currency: currency, UserOwnerAddress: owner})
	if err != nil {
		return views.SignPanel{}, err
	}
	now := h.clock()
	expires := expiryBy(now, ch.ExpiresAt)
	tok, hash, err := NewToken()
	if err != nil {
		return views.SignPanel{}, err
	}
	addr, err := ethsig.ParseAddress(owner)
	if err != nil {
		return views.SignPanel{}, err
	}
	sr, err := h.store.CreateSignRequest(ctx, store.SignRequest{
		Kind: store.SignKindOwnerProof, ChallengeID: ch.ChallengeID, Currency: string(currency), Message: ch.Message,
		UserID: userID, OwnerAddress: addr.Hex(), ExpiresAt: expires,
	}, hash, by)
	if err != nil {
		return views.SignPanel{}, err
	}
	return h.issuedPanel(sr, tok, now)
}

// messageSignatureWords are the refusals of a message signed by the wrong
// key, one wording per kind of request.
type messageSignatureWords struct {
	expired, wrongKey, noPrefix, nothingSent string
}

var (
	ownerProofWords = messageSignatureWords{
		expired:     "The challenge has expired; nothing was sent. Ask for a new link.",
		wrongKey:    "The signature does not come from the owner key ",
		noPrefix:    "The challenge was signed without the signed-message prefix; an owner proof must be signed as a message.",
		nothingSent: " Nothing was sent to the wallet service.",
	}
	eurAuthorizationWords = messageSignatureWords{
		expired:     "The link has expired; nothing was sent. Ask for a new one.",
		wrongKey:    "The signature does not come from the EURe wallet's owner key ",
		noPrefix:    "The authorization was signed without the signed-message prefix; it must be signed as a message.",
		nothingSent: " Nothing was sent to the EUR provider.",
	}
)

// checkMessageSignature checks that the request's message was signed, with
// the message prefix, by its owner address ("" when it may be sent).
func (h *Handler) checkMessageSignature(sr store.SignRequest, sig ethsig.Signature, words messageSignatureWords) string {
	if !h.clock().Before(sr.ExpiresAt) {
		return words.expired
	}
	want, err := ethsig.ParseAddress(sr.OwnerAddress)
	if err != nil {
		return "The owner address of this request is not valid; nothing was sent."
	}
	got, err := ethsig.RecoverMessage([]byte(sr.Message), sig)
	if err == nil && got.Equal(want) {
		return ""
	}
	msg := words.wrongKey + want.Hex() + "."
	if raw, rerr := ethsig.Recover(ethsig.Keccak256([]byte(sr.Message)), sig); rerr == nil && raw.Equal(want) {
		msg = words.noPrefix
	}
	return msg + words.nothingSent
}

// ownerProofCall creates the wallet from the challenge and the checked
// signature, with one call.
func (h *Handler) ownerProofCall(req submitRequest, sr store.SignRequest, sig ethsig.Signature) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		wallet, err := h.api.CreateManagedWallet(ctx, sr.UserID, apiclient.CreateManagedWalletRequest{
			Currency: apiclient.Stablecoin(sr.Currency), UserOwnerAddress: sr.OwnerAddress,
			OwnerProofChallengeID: sr.ChallengeID, OwnerProofSignature: sig.Hex(),
		})
		if err != nil {
			return handlers.Effect{}, err
		}
		return h.walletCreated(req, *wallet), nil
	}
}

// walletCreated is what a wallet the API created from an owner proof
// changes here: the wallet joins the mirror (when its user is known here)
// and the request is completed.
func (h *Handler) walletCreated(req submitRequest, wallet apiclient.Wallet) handlers.Effect {
	now := h.clock()
	return handlers.Effect{Target: "wallet:" + wallet.ID,
		Detail: "wallet " + wallet.ID + " (" + string(wallet.Currency) + ") created for owner " + wallet.UserOwnerAddress,
		Result: submitResult{State: store.SignCompleted},
		Apply: func(ctx context.Context, tx *store.Store) error {
			e, err := tx.EmployeeByServiceUserID(ctx, req.UserID)
			switch {
			case err == nil:
				if err := tx.UpsertWallet(ctx, store.Wallet{ID: wallet.ID, EmployeeID: e.ID, Currency: string(wallet.Currency),
					DisplayCurrency: string(wallet.DisplayCurrency), Address: wallet.Address, Chain: wallet.Chain, Status: wallet.Status,
					OwnerAddress: wallet.UserOwnerAddress, Legacy: wallet.Legacy,
					Balance: decimal.NullDecimal{Decimal: wallet.Balance, Valid: true}, BalanceReadAt: &now}); err != nil {
					return err
				}
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
			return tx.RecordSignRelayed(ctx, req.SignRequestID, store.SignCompleted, nil)
		}}
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
	wallet, err := h.store.WalletByID(ctx, walletID)
	if err != nil {
		return views.SignPanel{}, err
	}
	now := h.clock()
	expires := expiryBy(now, req.Deadline)
	tok, hash, err := NewToken()
	if err != nil {
		return views.SignPanel{}, err
	}
	sr, err := h.store.CreateSignRequest(ctx, store.SignRequest{
		Kind: store.SignKindWorkflow, WorkflowID: req.WorkflowID, HashToSign: req.HashToSign, Message: what,
		UserID: userID, WalletID: walletID, OwnerAddress: wallet.OwnerAddress, ExpiresAt: expires,
	}, hash, by)
	if err != nil {
		return views.SignPanel{}, err
	}
	return h.issuedPanel(sr, tok, now)
}

// expiryBy is when a link issued now expires: after MaxLifetime, or at the
// API's deadline when that comes first.
func expiryBy(now, deadline time.Time) time.Time {
	expires := now.Add(MaxLifetime)
	if !deadline.IsZero() && deadline.Before(expires) {
		return deadline
	}
	return expires
}

// issuedPanel is the panel that shows a new sign request's link and QR
// code, once.
func (h *Handler) issuedPanel(sr store.SignRequest, tok string, now time.Time) (views.SignPanel, error) {
	link := h.publicOrigin + PathPrefix + tok
	qr, err := h.qrCode(link)
	if err != nil {
		return views.SignPanel{}, err
	}
	panel := proposal.SignPanelOf(sr, now)
	panel.Link, panel.QRDataURL = link, qr
	return panel, nil
}
