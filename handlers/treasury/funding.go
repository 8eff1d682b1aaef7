package treasury

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

const fundingTitle = "Fund the treasury"

// fundingReads is what the funding page read from the API for the
// treasury user; a nil answer has its error beside it.
type fundingReads struct {
	usd       *apiclient.VirtualAccount
	usdErr    error
	deposits  *apiclient.DepositAccounts
	depErr    error
	assets    []apiclient.CryptoRoute
	assetsErr error
	// onboarding decides whether the EUR and NGN accounts may be
	// provisioned.
	onboarding *apiclient.OnboardingStatus
	onbErr     error
}

// readFunding makes the page's reads at once, so that together they take
// no longer than the slowest: the request's read budget bounds each.
func (h *Handler) readFunding(ctx context.Context, userID string) fundingReads {
	var rd fundingReads
	if h.api == nil {
		err := errors.New("treasury: no Partner API configured")
		rd.usdErr, rd.depErr, rd.assetsErr, rd.onbErr = err, err, err, err
		return rd
	}
	var wg sync.WaitGroup
	wg.Go(func() { rd.usd, rd.usdErr = h.api.GetUSDVirtualAccount(ctx, userID) })
	wg.Go(func() { rd.deposits, rd.depErr = h.api.ListDepositAccounts(ctx, userID) })
	wg.Go(func() { rd.assets, rd.assetsErr = h.api.ListDepositAssets(ctx) })
	wg.Go(func() { rd.onboarding, rd.onbErr = h.api.GetOnboardingStatus(ctx, userID) })
	wg.Wait()
	return rd
}

// Funding shows how to put money into the treasury: the USD virtual
// account (with the reference the bank transfer must carry), the NGN
// virtual account, the MXN CLABE, and the treasury wallets' crypto deposit
// addresses with QR codes. With ?print=1 it is a page for the accounts
// team, without navigation or buttons. Account numbers are shown, never
// logged.
func (h *Handler) Funding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	printable := r.URL.Query().Get("print") == "1"
	t, err := h.load(ctx)
	if errors.Is(err, store.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusNotFound, fundingTitle,
			"The app does not know the partner's treasury user yet, so there is nothing to fund here.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	rd := h.readFunding(ctx, t.user.ServiceUserID)
	v := h.fundingView(t, rd)
	v.Print = printable
	if err := h.fundingMore(ctx, t, rd, &v); err != nil {
		h.ServerError(w, r, err)
		return
	}
	// Account numbers: no copy of the page in htmx's history cache.
	meta := h.PageMeta(r, fundingTitle)
	meta.NoHistoryCache = true
	if printable {
		h.RenderFragment(w, r, http.StatusOK, views.FundingPrintDocument(meta, v))
		return
	}
	h.RenderFragment(w, r, http.StatusOK, views.Layout(meta, views.FundingPage(v)))
}

// fundingPath is the funding page, where its forms answer.
const fundingPath = "/treasury/funding"

// fundingView turns the reads into the page.
func (h *Handler) fundingView(t treasury, rd fundingReads) views.FundingView {
	v := views.FundingView{TreasuryName: t.user.Name(), ServiceUserID: t.user.ServiceUserID, ReadAt: h.clock()}
	_, hasUSDB := t.walletIn(apiclient.USDB)
	v.USD = usdRail(rd, hasUSDB)
	v.NGN, v.MXN = bankRails(rd)
	v.Crypto = cryptoDeposits(t, rd)
	return v
}

// usdStatusWords says each state of the spec's USD account table in
// people's words, with the badge's tone.
func usdStatusWords(s apiclient.VirtualAccountStatus) (words, tone string) {
	switch s {
	case apiclient.VirtualAccountNone, "":
		return "Not set up: the treasury has no USD bank account yet.", "pending"
	case apiclient.VirtualAccountProvisioning:
		return "Being set up: the account is being opened at the bank.", "pending"
	case apiclient.VirtualAccountPending:
		return "Almost ready: the bank is issuing the account details.", "pending"
	case apiclient.VirtualAccountActive:
		return "Active: receives USD bank transfers.", "active"
	case apiclient.VirtualAccountFailed:
		return "Set-up failed. Starting it again is safe.", "failed"
	case apiclient.VirtualAccountRejected:
		return "Rejected by the bank. This is final: it cannot be started again.", "rejected"
	}
	return "State reported by the Partner API: " + string(s) + ".", "pending"
}

// usdRail is the USD account panel. spec: "none | POST .../onboarding/
// start-usa | provisioning"; "failed | start-usa retry (safe)"; "rejected |
// terminal; do not retry". A 404 is read as not started.
func usdRail(rd fundingReads, hasUSDB bool) views.FundingUSD {
	var u views.FundingUSD
	status := apiclient.VirtualAccountNone
	switch {
	case rd.usdErr != nil && !apiclient.IsNotFound(rd.usdErr):
		u.Error = apiclient.ReadWords(rd.usdErr)
		return u
	case rd.usd != nil:
		status = rd.usd.Status
	}
	u.Status = string(status)
	u.Words, u.Tone = usdStatusWords(status)
	if rd.usd != nil && rd.usd.Reason != nil {
		u.Reason = *rd.usd.Reason
	}
	if a := activeAccount(rd.usd); a != nil {
		u.Account = &views.FundingUSDAccount{AccountName: a.AccountName, AccountNumber: a.AccountNumber, RoutingNumber: a.RoutingNumber,
			BankName: a.BankName, BankAddress: a.BankAddress, SwiftCode: a.SwiftCode, AccountType: a.AccountType}
		if a.DepositMessage != nil {
			u.Account.DepositMessage = strings.TrimSpace(*a.DepositMessage)
		}
	}
	if status == apiclient.VirtualAccountNone || status == apiclient.VirtualAccountFailed {
		if hasUSDB {
			u.CanStart = true
			u.Retry = status == apiclient.VirtualAccountFailed
		} else {
			u.StartBlocked = "Starting USD onboarding needs a USDB wallet for the treasury: add one on the treasury page first."
		}
	}
	return u
}

// bankRails are the NGN virtual account and the MXN CLABE deposit accounts.
func bankRails(rd fundingReads) (ngn, mxn views.FundingBankRail) {
	ngn = views.FundingBankRail{Currency: "NGN", Title: "NGN virtual account",
		NotSetUp: "Not set up: the treasury has no NGN virtual account. It is issued when the treasury user's NGN onboarding starts (with the treasury's BVN and its CNGN wallet), after its KYC is activated for NGN."}
	mxn = views.FundingBankRail{Currency: "MXN", Title: "MXN deposit account (CLABE)",
		NotSetUp: "Not set up: the treasury has no CLABE. It appears once the treasury user's Mexico KYC is approved (its MXN onboarding started with its MEXe wallet, then the provider's verification)."}
	if rd.depErr != nil && !apiclient.IsNotFound(rd.depErr) {
		ngn.Error, mxn.Error = apiclient.ReadWords(rd.depErr), apiclient.ReadWords(rd.depErr)
		return ngn, mxn
	}
	if rd.deposits == nil {
		return ngn, mxn
	}
	for i, a := range rd.deposits.Accounts {
		if strings.EqualFold(a.Currency, "NGN") {
			ngn.Accounts = append(ngn.Accounts, bankAccount(fmt.Sprintf("ngn-%d", i), a, "Account number (NUBAN)", a.AccountNumber))
		}
	}
	for i, a := range rd.deposits.MexicanAccounts {
		mxn.Accounts = append(mxn.Accounts, bankAccount(fmt.Sprintf("mxn-%d", i), a, "CLABE", a.Clabe))
	}
	return ngn, mxn
}

func bankAccount(id string, a apiclient.DepositAccount, label, number string) views.FundingBankAccount {
	// spec: "only active accounts receive deposits".
	return views.FundingBankAccount{ID: id, AccountName: a.AccountName, BankName: a.BankName, NumberLabel: label, Number: number,
		BankCode: a.BankCode, Status: a.Status, Active: a.IsActive(), Target: string(a.TargetCurrency)}
}

// cryptoDeposits are the treasury wallets' addresses, each with the
// supported deposit assets it receives directly: its own token on its own
// chain (spec: GET /v1/deposit/supported-assets, "enabled chains and
// tokens"). Other supported assets are listed apart: the API issues a
// deposit address for them (POST /deposit/wallet), which is not one of the
// wallets' own.
func cryptoDeposits(t treasury, rd fundingReads) views.FundingCrypto {
	var c views.FundingCrypto
	if rd.assetsErr != nil {
		c.Error = apiclient.ReadWords(rd.assetsErr)
	}
	held := map[apiclient.CryptoRoute]bool{}
	for i, w := range t.wallets {
		if w.Address == "" || w.Legacy {
			continue
		}
		d := views.FundingDepositWallet{ID: fmt.Sprintf("wallet-%d", i), Token: w.Currency, Chain: w.Chain, Address: w.Address, Status: w.Status}
		if f, ok := apiclient.Stablecoin(w.Currency).Fiat(); ok {
			d.Fiat = string(f)
		}
		route := apiclient.CryptoRoute{Chain: strings.ToLower(w.Chain), Currency: strings.ToUpper(w.Currency)}
		switch {
		case rd.assetsErr != nil:
			d.Note = "Which tokens the Partner API accepts could not be read. Send only " + w.Currency + " on " + w.Chain + " to this address."
		case slices.ContainsFunc(rd.assets, func(a apiclient.CryptoRoute) bool { return sameRoute(a, route) }):
			d.Accepts = w.Currency + " on " + w.Chain
			held[route] = true
		default:
			d.Note = "The Partner API lists no crypto deposit of " + w.Currency + " on " + w.Chain + ": fund this wallet another way (a bank account above, or a swap)."
		}
		// No QR code to scan for an address the API says takes no
		// deposit: scanning is how a wrong transfer starts.
		if d.Note == "" || rd.assetsErr != nil {
			if qr, err := handlers.QRDataURL(w.Address, 256); err == nil {
				d.QR = qr
			}
		}
		c.Wallets = append(c.Wallets, d)
	}
	// The wallets that receive crypto first.
	slices.SortStableFunc(c.Wallets, func(a, b views.FundingDepositWallet) int {
		return cmpBool(a.Accepts == "", b.Accepts == "")
	})
	for _, a := range rd.assets {
		if !held[apiclient.CryptoRoute{Chain: strings.ToLower(a.Chain), Currency: strings.ToUpper(a.Currency)}] {
			c.Others = append(c.Others, a.Currency+" on "+a.Chain)
		}
	}
	return c
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func sameRoute(a, b apiclient.CryptoRoute) bool {
	return strings.EqualFold(a.Chain, b.Chain) && strings.EqualFold(a.Currency, b.Currency)
}

// activeAccount is the account's bank details when it is active. spec:
// "account ... populated only when status is active".
func activeAccount(v *apiclient.VirtualAccount) *apiclient.VirtualAccountDetails {
	if v == nil || v.Status != apiclient.VirtualAccountActive {
		return nil
	}
	return v.Account
}

// walletIn is the treasury's wallet of a stablecoin.
func (t treasury) walletIn(coin apiclient.Stablecoin) (store.Wallet, bool) {
	i := slices.IndexFunc(t.wallets, func(w store.Wallet) bool { return w.Currency == string(coin) && !w.Legacy })
	if i < 0 {
		return store.Wallet{}, false
	}
	return t.wallets[i], true
}
