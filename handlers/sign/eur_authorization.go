package sign

import (
	"context"
	"fmt"

	"partneradmin/apiclient"
	"partneradmin/apiclient/ethsig"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// IssueEURAuthorization hands the EUR provider's authorization code to the
// owner's device (spec: POST /eu/kyc takes "code: provider authorization
// code, signature: 0x hex wallet-ownership signature from the on-device
// SDK"). The device signs apiclient.EURProviderAuthorizationMessage(code)
// with the signed-message prefix; DevicePost checks that the signer is the
// EURe wallet's registered owner and only then submits code and signature,
// once. The server never signs it.
func (h *Handler) IssueEURAuthorization(ctx context.Context, by store.Actor, userID, walletID, code string) (views.SignPanel, error) {
	wallet, err := h.store.WalletByID(ctx, walletID)
	if err != nil {
		return views.SignPanel{}, err
	}
	if _, err := ethsig.ParseAddress(wallet.OwnerAddress); err != nil {
		return views.SignPanel{}, fmt.Errorf("sign: EUR authorization: wallet %s owner: %w", walletID, err)
	}
	now := h.clock()
	tok, hash, err := NewToken()
	if err != nil {
		return views.SignPanel{}, err
	}
	sr, err := h.store.CreateSignRequest(ctx, store.SignRequest{
		Kind: store.SignKindEURAuthorization, ChallengeID: code, Currency: string(apiclient.EURe),
		Message: apiclient.EURProviderAuthorizationMessage(code), UserID: userID, WalletID: walletID,
		OwnerAddress: wallet.OwnerAddress, ExpiresAt: now.Add(MaxLifetime),
	}, hash, by)
	if err != nil {
		return views.SignPanel{}, err
	}
	return h.issuedPanel(sr, tok, now)
}

// eurAuthorizationSummary is what the device shows before signing.
func eurAuthorizationSummary(sr store.SignRequest) views.DeviceSummary {
	return views.DeviceSummary{Title: "Authorize the EUR provider for the treasury's EURe wallet",
		Description: "Signing this message tells the EUR provider that you hold the key " + sr.OwnerAddress +
			" of the EURe wallet, so that SEPA payouts can be sent from it.",
		OwnerAddress: sr.OwnerAddress}
}

// eurAuthorizationCall submits the code and the checked signature.
func (h *Handler) eurAuthorizationCall(req submitRequest, sr store.SignRequest, sig ethsig.Signature) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		if err := h.api.SubmitEUKYC(ctx, sr.UserID, apiclient.EUKYCRequest{Code: sr.ChallengeID, Signature: sig.Hex()}); err != nil {
			return handlers.Effect{}, err
		}
		return h.eurAuthorized(req), nil
	}
}

// eurAuthorized is what an authorization the API took changes here: the
// request is completed. The provider's state itself is read from the API
// by the pages (never copied here).
func (h *Handler) eurAuthorized(req submitRequest) handlers.Effect {
	return handlers.Effect{Detail: "EUR provider authorization accepted by the API", Result: submitResult{State: store.SignCompleted},
		Apply: func(ctx context.Context, tx *store.Store) error {
			return tx.RecordSignRelayed(ctx, req.SignRequestID, store.SignCompleted, nil)
		}}
}

// readBackEURAuthorization: the provider active (or failed: the provider
// decided on it) means the authorization arrived; pending means it did
// not.
func (h *Handler) readBackEURAuthorization(ctx context.Context, req submitRequest) (handlers.Effect, bool, error) {
	st, err := h.api.GetOnboardingStatus(ctx, req.UserID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	switch st.EURProviderStatus {
	case "active", "failed":
		return h.eurAuthorized(req), true, nil
	}
	return handlers.Effect{}, false, nil
}
