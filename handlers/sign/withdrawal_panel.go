package sign

import (
	"context"
	"errors"

	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// workflowPanel is the panel of a workflow request: it reads the
// withdrawal whose signature the request carries, if any.
func (h *Handler) workflowPanel(ctx context.Context, sr store.SignRequest) (views.SignPanel, error) {
	cw, err := h.store.CryptoWithdrawalBySignRequest(ctx, sr.ID)
	if errors.Is(err, store.ErrNotFound) {
		return proposal.SignPanelOf(sr, h.clock()), nil
	}
	if err != nil {
		return views.SignPanel{}, err
	}
	return proposal.WithdrawalPanel(sr, &cw, h.clock()), nil
}
