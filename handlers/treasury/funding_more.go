package treasury

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Paths of the funding page's writes.
const (
	fundingEURProvisionPath = "/treasury/funding/eur/provision"
	fundingNGNProvisionPath = "/treasury/funding/ngn/provision"
)

// fundingMore adds to the page what the app keeps or may do: the EUR
// account with the EUR and NGN provisioning offers, the deposit addresses
// issued for the other supported assets, and the routes of admins'
// accounts to the treasury.
func (h *Handler) fundingMore(ctx context.Context, t treasury, rd fundingReads, v *views.FundingView) error {
	v.EUR = eurRail(rd)
	v.NGN.Provision = ngnProvision(rd, v.NGN)
	v.EUR.Provision = eurProvision(t, rd, v.EUR)
	addrs, err := h.store.DepositAddresses(ctx, t.user.ServiceUserID)
	if err != nil {
		return err
	}
	v.Crypto.Assets = depositAssets(t, rd, addrs)
	v.Routes, err = h.routesView(ctx, t)
	return err
}

// eurRail is the treasury's EUR account (an IBAN) among its deposit
// accounts.
func eurRail(rd fundingReads) views.FundingBankRail {
	eur := views.FundingBankRail{Currency: "EUR", Title: "EUR account (IBAN)", NotSetUp: "Not set up: the treasury has no EUR account."}
	if rd.depErr != nil && !apiclient.IsNotFound(rd.depErr) {
		eur.Error = apiclient.ReadWords(rd.depErr)
		return eur
	}
	if rd.deposits == nil {
		return eur
	}
	for i, a := range rd.deposits.Accounts {
		if strings.EqualFold(a.Currency, "EUR") {
			eur.Accounts = append(eur.Accounts, bankAccount(fmt.Sprintf("eur-%d", i), a, "IBAN", a.AccountNumber))
		}
	}
	return eur
}

// provisionBase is what both offers share: nothing when the account
// exists or the accounts could not be read; the onboarding read's failure
// in words.
func provisionBase(rd fundingReads, rail views.FundingBankRail, action string) (views.FundingProvision, bool) {
	if rail.Error != "" || len(rail.Accounts) > 0 {
		return views.FundingProvision{}, false
	}
	p := views.FundingProvision{Action: action}
	if rd.onbErr != nil || rd.onboarding == nil {
		p.Error = "Whether the account can be opened is not known: the onboarding state could not be read. " + apiclient.ReadWords(rd.onbErr)
		return p, false
	}
	return p, true
}

// ngnOnboarded reports whether the NGN rail's onboarding is complete.
// spec: "The NGN start issues the virtual account"; POST /vba/ngn
// provisions it once the rail is active.
func ngnOnboarded(o *apiclient.OnboardingStatus) bool {
	r, ok := o.Currencies[apiclient.NGN]
	return ok && (r.Active || strings.EqualFold(r.Status, "active"))
}

// eurOnboarded reports whether the EUR provider's onboarding is complete.
// spec: "eurProviderStatus (value active when EUR onboarding is complete)".
func eurOnboarded(o *apiclient.OnboardingStatus) bool {
	return strings.EqualFold(o.EURProviderStatus, "active")
}

func ngnProvision(rd fundingReads, rail views.FundingBankRail) views.FundingProvision {
	p, ok := provisionBase(rd, rail, fundingNGNProvisionPath)
	if !ok {
		return p
	}
	if ngnOnboarded(rd.onboarding) {
		p.Allowed, p.Token = true, handlers.NewFormToken()
		return p
	}
	p.Missing = "Nothing to open yet: a button here opens the account once the treasury's NGN onboarding is complete."
	return p
}

func eurProvision(t treasury, rd fundingReads, rail views.FundingBankRail) views.FundingProvision {
	p, ok := provisionBase(rd, rail, fundingEURProvisionPath)
	if !ok {
		return p
	}
	if eurOnboarded(rd.onboarding) {
		p.Allowed, p.Token = true, handlers.NewFormToken()
		return p
	}
	p.Missing = "The EUR account can be opened once the treasury's EUR onboarding is complete. Its steps: "
	if _, ok := t.walletIn(apiclient.EURe); !ok {
		p.Missing += "add a EURe wallet on the treasury page; "
	}
	p.Missing += "start the EUR provider's onboarding with that wallet; then the owner's device signs the provider's authorization code. " +
		"The EUR provider's onboarding is " + eurWords(rd.onboarding.EURProviderStatus) + " so far."
	return p
}

// eurWords is the EUR provider's state in words.
func eurWords(s string) string {
	switch strings.ToLower(s) {
	case "", "none":
		return "not started"
	case "pending":
		return "waiting for the owner's authorization"
	case "failed":
		return "failed (it may be started again)"
	}
	return strings.ReplaceAll(strings.ToLower(s), "_", " ")
}

// depositAssets are the supported assets no treasury wallet receives at
// its own address, each with the address issued for it, if any.
func depositAssets(t treasury, rd fundingReads, addrs []store.DepositAddress) []views.FundingAsset {
	if rd.assetsErr != nil {
		return nil
	}
	var out []views.FundingAsset
	for i, a := range rd.assets {
		if heldAtOwnAddress(t, a) {
			continue
		}
		fa := views.FundingAsset{ID: fmt.Sprintf("asset-%d", i), Chain: a.Chain, Currency: a.Currency}
		j := slices.IndexFunc(addrs, func(d store.DepositAddress) bool {
			return strings.EqualFold(d.Chain, a.Chain) && strings.EqualFold(d.Currency, a.Currency)
		})
		if j >= 0 {
			fa.Address, fa.CreatedAt, fa.CreatedBy = addrs[j].Address, addrs[j].CreatedAt, addrs[j].CreatedBy.Name
			if qr, err := handlers.QRDataURL(fa.Address, 256); err == nil {
				fa.QR = qr
			}
		} else {
			fa.Token = handlers.NewFormToken()
		}
		out = append(out, fa)
	}
	return out
}

// heldAtOwnAddress reports whether a treasury wallet receives the asset at
// its own address: its own token on its own chain, as cryptoDeposits shows
// it (its Others are the rest).
func heldAtOwnAddress(t treasury, a apiclient.CryptoRoute) bool {
	return slices.ContainsFunc(t.wallets, func(w store.Wallet) bool {
		return w.Address != "" && !w.Legacy && sameRoute(a, apiclient.CryptoRoute{Chain: w.Chain, Currency: w.Currency})
	})
}

// walletWords names a treasury wallet for a person: "USDB wallet
// 0x1234…abcd".
func walletWords(w store.Wallet) string {
	a := w.Address
	if len(a) > 12 {
		a = a[:6] + "…" + a[len(a)-4:]
	}
	return strings.TrimSpace(w.Currency + " wallet " + a)
}

// routesView is the routes panel: the routes in force and, for an owner,
// the form with the treasury's admins.
func (h *Handler) routesView(ctx context.Context, t treasury) (views.FundingRoutes, error) {
	v := views.FundingRoutes{CanManage: handlers.ViewerFrom(ctx).Can(store.PermSettings)}
	routes, err := h.store.DepositRoutes(ctx, t.walletIDs())
	if err != nil {
		return v, err
	}
	for _, r := range routes {
		fr := views.FundingRoute{Holder: r.HolderName, ServiceUserID: r.ServiceUserID, Rail: r.Rail, WalletID: r.WalletID,
			Wallet: "a treasury wallet", RoutedAt: r.RoutedAt, RoutedBy: r.RoutedBy.Name}
		if fr.Holder == "" {
			fr.Holder = "A person the app no longer lists"
		}
		if w, ok := t.wallet(r.WalletID); ok {
			fr.Wallet = "the treasury's " + walletWords(w)
		}
		if v.CanManage {
			fr.Token = handlers.NewFormToken()
		}
		v.Routes = append(v.Routes, fr)
	}
	if !v.CanManage {
		return v, nil
	}
	for _, w := range t.wallets {
		if !w.Legacy && (w.Currency == string(apiclient.USDB) || w.Currency == string(apiclient.CNGN)) {
			v.Wallets = append(v.Wallets, views.Option{Value: w.ID, Label: "The treasury's " + walletWords(w)})
		}
	}
	if h.api == nil {
		v.Error = "The app has no Partner API connection, so the treasury's admins cannot be read."
		return v, nil
	}
	pol, err := h.api.GetApprovalPolicy(ctx, t.user.ServiceUserID)
	if err != nil {
		v.Error = "The treasury's admins could not be read, so no route can be added now. " + apiclient.ReadWords(err)
		return v, nil
	}
	if len(pol.Admins) == 0 {
		v.NoAdmins = true
		return v, nil
	}
	people, err := h.store.EmployeesByServiceUserIDs(ctx, pol.Admins)
	if err != nil {
		return v, err
	}
	for _, id := range pol.Admins {
		if e, ok := people[id]; ok && e.DeletedAt == nil {
			v.Holders = append(v.Holders, views.Option{Value: id, Label: e.Name() + " (" + e.Email + ")"})
		}
	}
	slices.SortFunc(v.Holders, func(a, b views.Option) int { return strings.Compare(a.Label, b.Label) })
	v.Token = handlers.NewFormToken()
	return v, nil
}

// walletIDs are the treasury's wallets' ids.
func (t treasury) walletIDs() []string {
	ids := make([]string, 0, len(t.wallets))
	for _, w := range t.wallets {
		ids = append(ids, w.ID)
	}
	return ids
}
