package treasury

import (
	"net/http"

	"partneradmin/handlers"
)

// DepositAddressesCSV exports the deposit addresses issued for the
// treasury.
func (h *Handler) DepositAddressesCSV(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	addrs, err := h.store.DepositAddresses(r.Context(), t.user.ServiceUserID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, "treasury-deposit-addresses.csv", "token", "chain", "address", "issued_at", "issued_for")
	for _, a := range addrs {
		cw.Row(a.Currency, a.Chain, a.Address, a.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), a.CreatedBy.Name)
	}
	cw.Close(h.Logger, r)
}

// RoutesCSV exports the accounts whose deposits are routed to a treasury
// wallet.
func (h *Handler) RoutesCSV(w http.ResponseWriter, r *http.Request) {
	t, err := h.load(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	routes, err := h.store.DepositRoutes(r.Context(), t.walletIDs())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	cw := handlers.NewCSV(w, r, "treasury-deposit-routes.csv", "holder", "service_user_id", "account", "wallet_id", "wallet_token", "routed_at", "routed_by")
	for _, d := range routes {
		token := ""
		if wl, ok := t.wallet(d.WalletID); ok {
			token = wl.Currency
		}
		cw.Row(d.HolderName, d.ServiceUserID, d.Rail, d.WalletID, token, d.RoutedAt.UTC().Format("2006-01-02T15:04:05Z"), d.RoutedBy.Name)
	}
	cw.Close(h.Logger, r)
}
