package nigeria

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/destination"
	"partneradmin/handlers/moneyout"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// The Nigerian bank withdrawal (spec: "Nigerian withdrawal"): the bank from
// the API's list, the 10-digit NUBAN verified by the API (its registered
// holder shown and never editable), the withdrawal account registered
// (get-or-create, an action under the holder step's token), then the
// offramp proposal from the treasury's CNGN or USDB wallet with fromAmount
// a decimal (an action under the amount step's token, read back through
// the wallet's proposals). The proposal is mirrored with its creator, so it
// lands in the approval queue and its creator may not approve it.

const (
	// kindAccount is the ledger's kind of registering a withdrawal
	// account. The API has no read of withdrawal accounts, so an answer
	// that never came is not read back: registering is get-or-create, so
	// the person continues again (a new form) and gets the same account.
	kindAccount = "ngn_withdrawal_account.create"
	// kindOfframp is the ledger's kind of the offramp proposal.
	kindOfframp = "ngn_offramp.create"

	title = "Nigerian bank withdrawal"
	// typeNigerianOfframp is the proposal type the offramp creates (the
	// sandbox's; the spec does not name it).
	typeNigerianOfframp apiclient.ProposalType = "NIGERIAN_OFFRAMP"

	// clockSkew is how much earlier than the action's begin a proposal's
	// createdAt may be and still be the one the action made.
	clockSkew = time.Minute
)

// Handler serves the Nigerian withdrawal routes.
type Handler struct {
	moneyout.Rail
}

// New adds the Nigerian withdrawal to the index and registers
// how its proposal is read back.
func New(hub *moneyout.Handler) *Handler {
	h := &Handler{Rail: hub.Rail}
	hub.Add(views.Rail{Name: title, Href: "/money-out/nigeria",
		Description: "NGN to a Nigerian bank account (NUBAN) from the CNGN or USDB wallet, as a proposal that approvers approve and the owner signs."})
	if h.Actions != nil {
		h.Actions.ReadBackFor(kindOfframp, h.readBackOfframp)
	}
	return h
}

// account is a registered withdrawal account as the ledger keeps it (the
// account number only by its last four digits).
type account struct {
	ID       string `json:"id"`
	BankCode string `json:"bankCode"`
	BankName string `json:"bankName"`
	Last4    string `json:"last4"`
	Holder   string `json:"holder"`
	UserID   string `json:"userId"`
	// DestinationID is the address book's entry of the account when it
	// was registered (0: not in the book).
	DestinationID int64 `json:"destinationId,omitempty"`
}

func (a account) label() string { return a.BankName + " ****" + a.Last4 }

// accountRequest is what registering asks, as the ledger keeps it.
type accountRequest struct {
	UserID   string `json:"userId"`
	BankCode string `json:"bankCode"`
	BankName string `json:"bankName"`
	Last4    string `json:"accountLast4"`
	Holder   string `json:"holder"`
}

// offrampRequest is what the offramp asks, as the ledger keeps it.
type offrampRequest struct {
	OwnerUserID   string               `json:"ownerUserId"`
	WalletID      string               `json:"walletId"`
	Currency      apiclient.Stablecoin `json:"currency"`
	Amount        decimal.Decimal      `json:"fromAmount"`
	BankAccountID string               `json:"bankAccountId"`
	Account       string               `json:"account"`
	Holder        string               `json:"holder"`
}

func (q offrampRequest) detail() string {
	return fmt.Sprintf("Nigerian bank withdrawal of %s %s from wallet %s to %s (%s)", q.Amount, q.Currency, q.WalletID, q.Account, q.Holder)
}

// offrampResult is what the API answered.
type offrampResult struct {
	ProposalID string                          `json:"proposalId"`
	Status     string                          `json:"status"`
	Quote      *apiclient.NigerianOfframpQuote `json:"quote,omitempty"`
}

// checkNUBAN says what is wrong with a typed NUBAN, "" when nothing
// (spec Limits: "NUBAN | 10 digits").
func checkNUBAN(s string) string {
	if msg := handlers.CheckText(s, moneyout.CodeLength, false); msg != "" {
		return msg
	}
	return destination.NUBAN(s)
}

// nigerianBanks reads the banks list; msg says why it could not be.
func (h *Handler) banks(ctx context.Context, userID string) ([]apiclient.NigerianBank, string) {
	if h.API == nil {
		return nil, "No Partner API is connected."
	}
	banks, err := h.API.ListNigerianBanks(ctx, userID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: nigerian banks", "err", err)
		return nil, "The API did not list the banks. " + moneyout.ReadFailed(err) + " Reload the page to try again."
	}
	return banks, ""
}

func bankChoices(banks []apiclient.NigerianBank) []views.Choice {
	out := make([]views.Choice, 0, len(banks))
	for _, b := range banks {
		out = append(out, views.Choice{Value: b.Code, Label: b.Name})
	}
	return out
}

func findBank(banks []apiclient.NigerianBank, code string) (apiclient.NigerianBank, bool) {
	for _, b := range banks {
		if b.Code == code {
			return b, true
		}
	}
	return apiclient.NigerianBank{}, false
}

// render shows the wizard.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, v views.NigeriaWithdrawalView) {
	if v.Fields == nil {
		v.Fields = views.FieldErrors{}
	}
	h.Render(w, r, status, title, views.NigeriaWithdrawalPage(v), nil)
}

// accountStep renders step 1 with the banks list (read now).
func (h *Handler) accountStep(w http.ResponseWriter, r *http.Request, status int, userID string, v views.NigeriaWithdrawalView) {
	banks, msg := h.banks(r.Context(), userID)
	v.Step, v.Banks, v.BanksUnavailable = views.NigeriaStepAccount, bankChoices(banks), msg
	book, err := h.BookPicker(r.Context(), "f-destination_id", store.DestNigerianBank, "", v.Book.Chosen)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Book, v.Book.Error = book, v.Fields.Get("destination_id")
	h.render(w, r, status, v)
}

// Form is step 1: the bank and the NUBAN.
func (h *Handler) Form(w http.ResponseWriter, r *http.Request) {
	u, _, err := h.TreasuryUser(r.Context())
	if errors.Is(err, moneyout.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusConflict, title, "The partner has no treasury user yet, so nothing can be withdrawn.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.accountStep(w, r, http.StatusOK, u.ServiceUserID, views.NigeriaWithdrawalView{})
}

// Verify checks the bank and the NUBAN, then asks the API for the
// registered holder (a check that changes nothing) and shows it.
func (h *Handler) Verify(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, _, err := h.TreasuryUser(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.NigeriaWithdrawalView{BankCode: strings.TrimSpace(r.PostFormValue("bank_code")),
		AccountNumber: strings.TrimSpace(r.PostFormValue("account_number")), Fields: views.FieldErrors{}}
	picked, msg, err := h.BookChosen(ctx, r, store.DestNigerianBank)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if msg != "" {
		v.Fields["destination_id"] = msg
	}
	if picked != nil {
		v.Book.Chosen = strconv.FormatInt(picked.ID, 10)
		if msg := moneyout.FromBook(&v.AccountNumber, picked.Value) + moneyout.FromBook(&v.BankCode, picked.BankCode); msg != "" {
			v.Fields["destination_id"] = msg
		}
	}
	if msg := checkNUBAN(v.AccountNumber); msg != "" {
		v.Fields["account_number"] = msg
	}
	if v.BankCode == "" || handlers.CheckText(v.BankCode, moneyout.CodeLength, false) != "" {
		v.Fields["bank"] = "Choose the bank."
		v.BankCode = ""
	}
	if v.Fields.Any() {
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	}
	rctx := apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
	banks, msg := h.banks(rctx, u.ServiceUserID)
	if msg != "" {
		v.Error = msg + " Nothing was sent; your input is kept."
		h.accountStep(w, r, http.StatusBadGateway, u.ServiceUserID, v)
		return
	}
	bank, ok := findBank(banks, v.BankCode)
	if !ok {
		v.Fields["bank"] = "Choose one of the listed banks."
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	}
	holder, problem, field := h.verifyHolder(ctx, u.ServiceUserID, v.AccountNumber, bank)
	if problem != "" {
		status := http.StatusBadGateway
		if field != "" {
			v.Fields[field], status = problem, http.StatusUnprocessableEntity
		} else {
			v.Error = problem
		}
		h.accountStep(w, r, status, u.ServiceUserID, v)
		return
	}
	// The account exists: the address book says whether money may go
	// there, before anything is registered.
	_, refused, err := h.bookCheck(ctx, bank.Code, v.AccountNumber)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if refused != nil {
		v.Error = moneyout.RefusedAt(v.Fields, refused, "account_number", "account_number")
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	}
	v.Step, v.BankName, v.Holder, v.Token = views.NigeriaStepHolder, bank.Name, holder, handlers.NewFormToken()
	h.render(w, r, http.StatusOK, v)
}

// verifyHolder asks the API for the account's registered holder. On
// failure it returns the words and the form field they concern ("" for
// the summary).
func (h *Handler) verifyHolder(ctx context.Context, userID, number string, bank apiclient.NigerianBank) (holder, problem, field string) {
	cctx, cancel := context.WithTimeout(ctx, moneyout.CallTimeout)
	defer cancel()
	got, err := h.API.VerifyNigerianAccount(cctx, userID, apiclient.VerifyNigerianAccountRequest{AccountNumber: number, BankCode: bank.Code})
	switch {
	case err == nil && got.AccountHolderName != "":
		return got.AccountHolderName, "", ""
	case err == nil:
		return "", "The API verified the account but gave no holder name, so it cannot be used. Check the number.", "account_number"
	case apiclient.IsNotFound(err):
		// spec: "404 when no account matches".
		return "", "No account with this number exists at " + bank.Name + ". Check the number and the bank.", "account_number"
	}
	h.Logger.WarnContext(ctx, "moneyout: verify nigerian account", "bank", bank.Code, "err", err)
	p := apiclient.Explain(err)
	for apiField, m := range p.Fields {
		switch apiField {
		case "accountNumber":
			return "", m, "account_number"
		case "bankCode":
			return "", m, "bank"
		}
	}
	if p.Kind == apiclient.Refused {
		return "", p.Summary, ""
	}
	return "", "The API did not verify the account. " + p.Summary + " Nothing was registered; your input is kept: try again.", ""
}

// Account registers the verified account as a withdrawal account
// (once per form) and shows the amount step. The holder must be the one
// the API registered, unchanged: it is verified again before anything is
// sent.
func (h *Handler) Account(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, _, err := h.TreasuryUser(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := readAccount(r)
	if !handlers.ValidFormToken(v.Token) {
		h.StaleForm(w, r)
		return
	}
	if v.Fields.Any() {
		// The account as typed is not one step 1 would have let through:
		// start from step 1, with what can be kept.
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	}
	rctx := apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
	banks, msg := h.banks(rctx, u.ServiceUserID)
	bank, ok := findBank(banks, v.BankCode)
	switch {
	case msg != "":
		v.Step, v.Error = views.NigeriaStepHolder, msg+" Nothing was sent."
		h.render(w, r, http.StatusBadGateway, v)
		return
	case !ok:
		v.Fields["bank"] = "Choose one of the listed banks."
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	}
	v.BankName = bank.Name
	registered, problem, field := h.verifyHolder(ctx, u.ServiceUserID, v.AccountNumber, bank)
	switch {
	case problem != "" && field != "":
		v.Fields[field] = problem
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	case problem != "":
		v.Step, v.Error = views.NigeriaStepHolder, problem
		h.render(w, r, http.StatusBadGateway, v)
		return
	case registered != v.Holder:
		// spec: accountHolderName is the "exact name from step 2".
		v.Step, v.Holder = views.NigeriaStepHolder, registered
		v.Fields["holder"] = "The account holder's name was changed. It must be exactly as the bank registered it, shown here again; nothing was sent."
		h.render(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	bookID, refused, err := h.bookCheck(ctx, bank.Code, v.AccountNumber)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if refused != nil {
		v.Error = moneyout.RefusedAt(v.Fields, refused, "account_number", "account_number")
		h.accountStep(w, r, http.StatusUnprocessableEntity, u.ServiceUserID, v)
		return
	}
	key, _ := handlers.FormKey(r)
	q := accountRequest{UserID: u.ServiceUserID, BankCode: bank.Code, BankName: bank.Name, Last4: moneyout.Last4(v.AccountNumber), Holder: registered}
	done, err := h.Actions.Run(ctx, h.registerWrite(ctx, key, q, v.AccountNumber, bookID))
	switch {
	case h.Answered(w, r, err):
		return
	case done.State() == store.ActionDone:
		var acct account
		if err := done.Action.DecodeResult(&acct); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.amountStep(w, r, http.StatusOK, views.NigeriaWithdrawalView{AccountToken: v.Token, Token: handlers.NewFormToken()}, acct)
		return
	case done.Repeat:
		v.Step, v.Error = views.NigeriaStepHolder, "This form was already sent: "+views.StatusLabel(views.StatusAction, string(done.Action.State))+". Nothing was sent again. "+done.Action.Message
		h.render(w, r, http.StatusConflict, v)
		return
	}
	h.renderNotRegistered(w, r, v, done)
}

// readAccount reads the holder step as posted, its fields checked.
func readAccount(r *http.Request) views.NigeriaWithdrawalView {
	v := views.NigeriaWithdrawalView{BankCode: strings.TrimSpace(r.PostFormValue("bank_code")), Token: r.PostFormValue(handlers.FormTokenField),
		AccountNumber: strings.TrimSpace(r.PostFormValue("account_number")), Holder: r.PostFormValue("holder"), Fields: views.FieldErrors{}}
	if msg := checkNUBAN(v.AccountNumber); msg != "" {
		v.Fields["account_number"] = msg
	}
	if v.BankCode == "" || handlers.CheckText(v.BankCode, moneyout.CodeLength, false) != "" {
		v.Fields["bank"], v.BankCode = "Choose the bank.", ""
	}
	if msg := handlers.CheckText(v.Holder, moneyout.HolderLength, false); msg != "" {
		v.Fields["holder"], v.Holder = msg, ""
	}
	return v
}

// renderNotRegistered shows the holder step again after a registration
// the API refused or did not answer.
func (h *Handler) renderNotRegistered(w http.ResponseWriter, r *http.Request, v views.NigeriaWithdrawalView, done handlers.Done) {
	// Refused or not known: the holder step again with a new token (this
	// one is spent). Registering is get-or-create, so continuing again
	// returns the same account, never a second one.
	v.Step, v.Token = views.NigeriaStepHolder, handlers.NewFormToken()
	status := http.StatusBadGateway
	if done.State() == store.ActionRefused {
		for apiField, m := range done.Problem.Fields {
			switch apiField {
			case "accountHolderName":
				v.Fields["holder"] = m
			case "accountNumber", "bankCode", "bankName":
				v.Error = join(v.Error, m)
			}
		}
		if v.Fields.Any() {
			status = http.StatusUnprocessableEntity
		}
		v.Error = join(done.Problem.Summary, v.Error)
	} else {
		v.Error = done.Action.Message + " Registering an account is get-or-create: continuing again returns the same account."
	}
	h.render(w, r, status, v)
}

// registerWrite is registering the account, for the ledger; the number is
// sent, never kept.
func (h *Handler) registerWrite(ctx context.Context, key string, q accountRequest, number string, bookID int64) handlers.Write {
	return handlers.Write{Key: key, Kind: kindAccount, Target: "ngn_withdrawal_account:" + q.BankCode + ":" + q.Last4,
		Actor: handlers.ActorFrom(ctx), Request: q, Call: func(ctx context.Context) (handlers.Effect, error) {
			acct, err := h.API.CreateNigerianWithdrawalAccount(ctx, q.UserID, apiclient.NigerianWithdrawalAccountRequest{
				AccountNumber: number, BankCode: q.BankCode, BankName: q.BankName, AccountHolderName: q.Holder})
			if err != nil {
				return handlers.Effect{}, err
			}
			res := account{ID: acct.ID, BankCode: q.BankCode, BankName: q.BankName, Last4: q.Last4, Holder: q.Holder, UserID: q.UserID,
				DestinationID: bookID}
			return handlers.Effect{Target: "ngn_withdrawal_account:" + acct.ID, Result: res,
				Detail: fmt.Sprintf("withdrawal account %s at %s (****%s, %s) registered", acct.ID, q.BankName, q.Last4, q.Holder)}, nil
		}}
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

// sourceWallets are the treasury's wallets an offramp can take value from
// (spec: "Source currency is CNGN (direct) or USDB").
func sourceWallets(ws []store.Wallet) []store.Wallet {
	var out []store.Wallet
	for _, w := range ws {
		if w.Currency == string(apiclient.CNGN) || w.Currency == string(apiclient.USDB) {
			out = append(out, w)
		}
	}
	return out
}

// amountStep renders step 3 for a registered account.
func (h *Handler) amountStep(w http.ResponseWriter, r *http.Request, status int, v views.NigeriaWithdrawalView, acct account) {
	_, wallets, err := h.TreasuryUser(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.Step, v.AccountLabel, v.Holder = views.NigeriaStepAmount, acct.label(), acct.Holder
	for _, wl := range sourceWallets(wallets) {
		label := wl.Currency + " wallet"
		if wl.Balance.Valid {
			label += " (" + moneyout.WalletMoney(wl, wl.Balance.Decimal).String() + ", last read)"
		}
		v.Wallets = append(v.Wallets, views.Choice{Value: wl.ID, Label: label})
	}
	h.render(w, r, status, v)
}

// accountOf is the withdrawal account registered under a holder step's
// token: that action, done, of this kind.
func (h *Handler) accountOf(ctx context.Context, token string) (account, bool, error) {
	if !handlers.ValidFormToken(token) {
		return account{}, false, nil
	}
	a, err := h.Store.ActionByKey(ctx, "form:"+token)
	if errors.Is(err, store.ErrNotFound) {
		return account{}, false, nil
	}
	if err != nil {
		return account{}, false, err
	}
	if a.Kind != kindAccount || a.State != store.ActionDone {
		return account{}, false, nil
	}
	var acct account
	if err := a.DecodeResult(&acct); err != nil {
		return account{}, false, err
	}
	return acct, acct.ID != "", nil
}

// tokenPlaces is how many decimal places an amount of a treasury token
// may have: the spec gives no token precision; every token of its table is
// a stablecoin of a fiat currency counted in hundredths.
const tokenPlaces = 2

// Offramp checks the amount step and proposes the withdrawal once
// under the form's token.
func (h *Handler) Offramp(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, wallets, err := h.TreasuryUser(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v := views.NigeriaWithdrawalView{AccountToken: r.PostFormValue("account_token"), WalletID: r.PostFormValue("wallet_id"),
		Amount: r.PostFormValue("amount"), Token: r.PostFormValue(handlers.FormTokenField), Fields: views.FieldErrors{}}
	if !handlers.ValidFormToken(v.Token) {
		h.StaleForm(w, r)
		return
	}
	acct, ok, err := h.accountOf(ctx, v.AccountToken)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !ok || acct.UserID != u.ServiceUserID {
		h.ErrorPage(w, r, http.StatusBadRequest, title,
			"This form does not name an account registered in this app, so nothing was sent. Start the withdrawal again from the bank and account number.")
		return
	}
	wallet, amount := h.checkAmount(ctx, u.ServiceUserID, wallets, &v)
	if v.Fields.Any() {
		h.amountStep(w, r, http.StatusUnprocessableEntity, v, acct)
		return
	}
	key, _ := handlers.FormKey(r)
	q := offrampRequest{OwnerUserID: u.ServiceUserID, WalletID: wallet.ID, Currency: apiclient.Stablecoin(wallet.Currency),
		Amount: amount, BankAccountID: acct.ID, Account: acct.label(), Holder: acct.Holder}
	actor := handlers.ActorFrom(ctx)
	to, err := h.destinationOf(ctx, acct)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	done, err := h.Actions.Run(ctx, handlers.Write{Key: key, Kind: kindOfframp, Target: "wallet:" + wallet.ID, Actor: actor,
		Request: q, Spend: h.Spend(ctx, wallet, amount, to), Call: func(ctx context.Context) (handlers.Effect, error) {
			o, err := h.API.CreateNigerianOfframp(ctx, q.OwnerUserID, q.WalletID, apiclient.NigerianOfframpRequest{
				BankAccountID: q.BankAccountID, FromAmount: q.Amount})
			if err != nil {
				return handlers.Effect{}, err
			}
			return offrampEffect(q, apiclient.Proposal{ID: o.ProposalID, Status: o.Status}, o.Quote, actor, h.Clock()), nil
		}})
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		v.Error = moneyout.RefusedAt(v.Fields, refused, "account", "amount")
		h.amountStep(w, r, http.StatusUnprocessableEntity, v, acct)
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat || done.State() == store.ActionDone:
		if done.Repeat {
			h.Flash(r, "info", "This form was already sent: "+views.StatusLabel(views.StatusAction, string(done.Action.State))+". Nothing was sent again.")
		} else {
			h.Flash(r, "ok", "Withdrawal proposed. Another approver must approve it, then the owner signs it.")
		}
		h.Redirect(w, r, offrampPage(done.Action.ID))
		return
	}
	v.Token = handlers.NewFormToken()
	status := offrampRefusal(&v, done)
	h.amountStep(w, r, status, v, acct)
}

// checkAmount checks the wallet chosen and the amount against its balance
// read now; the messages go to the fields.
func (h *Handler) checkAmount(ctx context.Context, userID string, wallets []store.Wallet, v *views.NigeriaWithdrawalView) (store.Wallet, decimal.Decimal) {
	var wallet store.Wallet
	found := false
	for _, wl := range sourceWallets(wallets) {
		if wl.ID == v.WalletID {
			wallet, found = wl, true
		}
	}
	if !found {
		v.Fields["wallet"] = "Choose the treasury's CNGN or USDB wallet."
	}
	parsed, msg := handlers.ParseAmount(v.Amount, tokenPlaces)
	if msg != "" {
		v.Fields["amount"] = msg
	}
	amount := parsed.Value
	if !v.Fields.Any() {
		bal, read := h.LiveBalance(ctx, userID, wallet.ID)
		switch {
		case !read:
			v.Fields["amount"] = "The wallet's balance could not be read from the Partner API just now, so the amount cannot be checked. Nothing was sent; try again in a moment."
		case amount.GreaterThan(bal):
			v.Fields["amount"] = "More than the wallet holds now (" + moneyout.WalletMoney(wallet, bal).String() + ", read just now)."
		}
	}
	return wallet, amount
}

// offrampRefusal puts a proposal the API refused (or did not answer) at
// its fields, or in the summary, and returns the page's status.
func offrampRefusal(v *views.NigeriaWithdrawalView, done handlers.Done) int {
	status := http.StatusBadGateway
	if done.State() == store.ActionRefused {
		p := done.Problem
		for apiField, m := range p.Fields {
			switch apiField {
			case "fromAmount":
				v.Fields["amount"] = m
			case "bankAccountId":
				v.Fields["account"] = m
			}
		}
		switch {
		case v.Fields.Any():
		case p.Status == http.StatusBadRequest:
			// The API's 400 beyond a field list is the balance check.
			v.Fields["amount"] = p.Summary
		case p.Status == http.StatusForbidden:
			v.Fields["wallet"] = p.Summary
		case p.Status == http.StatusNotFound:
			v.Fields["account"] = p.Summary + " Start again from the bank and account number."
		}
		if v.Fields.Any() {
			status = http.StatusUnprocessableEntity
		} else {
			v.Error = p.Summary
		}
	} else {
		v.Error = done.Action.Message + " Look for it in the approval queue before proposing it again."
	}
	return status
}

func offrampPage(actionID int64) string {
	return "/money-out/nigeria/offramps/" + strconv.FormatInt(actionID, 10)
}

// offrampEffect mirrors the proposal with its creator (who then may not
// approve it); what the API's answer leaves out is what was asked.
func offrampEffect(q offrampRequest, p apiclient.Proposal, quote *apiclient.NigerianOfframpQuote, by store.Actor, now time.Time) handlers.Effect {
	row := proposal.FromAPI(p, q.OwnerUserID, now)
	if row.WalletID == "" {
		row.WalletID = q.WalletID
	}
	if row.Type == "" {
		row.Type = string(typeNigerianOfframp)
	}
	if row.Currency == "" {
		row.Currency = string(q.Currency)
	}
	if row.Amount.IsZero() {
		row.Amount = q.Amount
	}
	if row.Description == "" {
		row.Description = "Nigerian bank withdrawal to " + q.Account + " (" + q.Holder + ")"
	}
	if row.Status == "" {
		row.Status = store.ProposalStatus(apiclient.ProposalPendingApprovals)
	}
	row.CreatedByStaffID = by.StaffID
	return handlers.Effect{Target: "proposal:" + p.ID, Result: offrampResult{ProposalID: p.ID, Status: string(row.Status), Quote: quote},
		Detail: q.detail(), Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.UpsertProposal(ctx, row)
			return err
		}}
}

// readBackOfframp finds the proposal an offramp with no answer made: a
// NIGERIAN_OFFRAMP proposal of the wallet for the amount asked, created
// after the action began, that no other action made and the mirror names
// no creator for.
func (h *Handler) readBackOfframp(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var q offrampRequest
	if err := a.DecodeRequest(&q); err != nil {
		return handlers.Effect{}, false, err
	}
	ps, err := h.API.ListProposals(ctx, q.OwnerUserID, q.WalletID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	since := a.BegunAt.Add(-clockSkew)
	var found *apiclient.Proposal
	for i, p := range ps {
		amount := p.Amount
		if p.FromAmount != nil {
			amount = *p.FromAmount
		}
		if p.Type != typeNigerianOfframp || !amount.Equal(q.Amount) || !p.CreatedAt.IsZero() && p.CreatedAt.Before(since) ||
			found != nil && !p.CreatedAt.Before(found.CreatedAt) {
			continue
		}
		free, err := h.unclaimed(ctx, p.ID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		if free {
			found = &ps[i]
		}
	}
	if found == nil {
		return handlers.Effect{}, false, nil
	}
	return offrampEffect(q, *found, nil, a.Actor, h.Clock()), true, nil
}

// unclaimed reports whether no action made the proposal and the mirror
// names no creator for it.
func (h *Handler) unclaimed(ctx context.Context, proposalID string) (bool, error) {
	made, err := h.Store.ListActions(ctx, store.ActionFilter{Target: "proposal:" + proposalID, Limit: 1})
	if err != nil || len(made) > 0 {
		return false, err
	}
	p, err := h.Store.ProposalByID(ctx, proposalID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	return p.CreatedByStaffID == 0, nil
}

// OfframpDetail shows a proposed withdrawal: the request as the
// ledger has it, the API's quote, and the link to its approval.
func (h *Handler) OfframpDetail(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		h.NotFound(w, r)
		return
	}
	a, err := h.Store.ActionByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || err == nil && a.Kind != kindOfframp {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	var q offrampRequest
	if err := a.DecodeRequest(&q); err != nil {
		h.ServerError(w, r, err)
		return
	}
	wl := store.Wallet{Currency: string(q.Currency)}
	v := views.NigeriaOfframpView{ActionID: a.ID, State: string(a.State), StateLabel: views.StatusLabel(views.StatusAction, string(a.State)), Account: q.Account, Back: handlers.BackTo(r, "/money-out"),
		Holder: q.Holder, From: moneyout.WalletMoney(wl, q.Amount), CreatedBy: a.Actor.Email, RateUnit: string(q.Currency)}
	if a.State != store.ActionDone {
		v.Message = a.Message
	}
	var res offrampResult
	if a.State == store.ActionDone {
		if err := a.DecodeResult(&res); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	v.ProposalID, v.Status = res.ProposalID, views.StatusLabel(views.StatusProposal, res.Status)
	if res.ProposalID != "" {
		// The proposal moves on elsewhere (approved, signed, executed):
		// the page follows it until it is final.
		v.PollURL = r.URL.Path
		p, err := h.Store.ProposalByID(r.Context(), res.ProposalID)
		switch {
		case err == nil:
			v.Status = views.StatusLabel(views.StatusProposal, string(p.Status))
			if p.Status.Final() {
				v.PollURL = ""
			}
		case !errors.Is(err, store.ErrNotFound):
			h.ServerError(w, r, err)
			return
		}
	}
	if qt := res.Quote; qt != nil {
		v.To = views.Amount{Value: qt.ToAmount, Currency: string(apiclient.NGN)}
		v.Fee = views.Amount{Value: qt.FeeAmount, Currency: string(apiclient.NGN)}
		v.Rate, v.Swapped = qt.ExchangeRate.String(), q.Currency != apiclient.CNGN
	}
	h.Render(w, r, http.StatusOK, title, views.NigeriaOfframpPage(v), nil)
}

// bookCheck is the book's answer for a Nigerian account: the entry's
// id when the book has one (usable or not), and the refusal when money
// may not go there now.
func (h *Handler) bookCheck(ctx context.Context, bankCode, number string) (int64, *store.PolicyRefusal, error) {
	key := store.DestinationKey(store.DestNigerianBank, bankCode, number)
	refused, err := h.BookRefusal(ctx, key)
	if err != nil {
		return 0, nil, err
	}
	d, err := h.Store.DestinationByKey(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, refused, nil
	case err != nil:
		return 0, nil, err
	}
	return d.ID, refused, nil
}

// destinationOf is the spend's destination of a registered account: the
// book's entry it was registered from. The ledger keeps the account by its
// last four digits only, so an account the book did not have (or no longer
// has) is named by those, which no entry matches: outside the book.
func (h *Handler) destinationOf(ctx context.Context, acct account) (string, error) {
	if acct.DestinationID != 0 {
		d, err := h.Store.Destination(ctx, acct.DestinationID)
		switch {
		case err == nil:
			return store.DestinationKey(d.Kind, d.BankCode, d.Value), nil
		case !errors.Is(err, store.ErrNotFound):
			return "", err
		}
	}
	return store.DestinationKey(store.DestNigerianBank, acct.BankCode, "****"+acct.Last4), nil
}
