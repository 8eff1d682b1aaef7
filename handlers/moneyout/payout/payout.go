package payout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/moneyout"
	"partneradmin/handlers/proposal"
	"partneradmin/store"
	"partneradmin/views"
)

// The bank payout (spec: "Bank payout rail (funded from USDB)"): the
// country, its bank, the bank's branch when it has any (an empty list means
// none is needed), the account validated by the API with its holder, then
// the amount typed as a decimal in USD and converted to USDB minor units,
// shown both ways on a review step (spec: "confusing them moves the wrong
// amount without a type error"). Confirming sends POST /payouts once under
// the review's token; its signatureRequest goes to the owner's device as a
// QR code, and the payout page follows it to completed or failed through
// the withdrawal webhooks (matched by the payout's id as `reference`). The
// API has no read of a payout: one whose answer never came stays unknown
// and the page says what to check.

const (
	// kind is the ledger's kind (and the audit row's action).
	kind  = "bank_payout.create"
	title = "Bank payout"
	// usdbDecimals is how many decimals USDB minor units have on
	// the payout rail. The spec does not show the token's precision; the
	// sandbox decides 2 ("10050" = 100.50 USDB, apiclient/sandbox/README).
	usdbDecimals int32 = 2
	// accountLength bounds a typed account number.
	accountLength = 64
)

// Handler serves the bank payout routes.
type Handler struct {
	moneyout.Rail
	links *handlers.SignLinks[store.BankPayout]
}

// New adds the bank payout to the index and sets up its
// signing links. No read-back: the API cannot read a payout back.
func New(hub *moneyout.Handler) *Handler {
	h := &Handler{Rail: hub.Rail}
	h.links = h.signLinks()
	hub.Add(views.Rail{Name: title, Href: "/money-out/payout",
		Description: "From the USDB wallet to a bank account in one of the API's payout countries, at its quote; signed on the owner's device."})
	return h
}

// request is what a payout asks, as the ledger keeps it (the account
// by its last four digits only).
type request struct {
	ID          int64           `json:"id"`
	UserID      string          `json:"userId"`
	WalletID    string          `json:"walletId"`
	Amount      decimal.Decimal `json:"amountUsd"`
	AmountMinor int64           `json:"amountMinor"`
	Country     string          `json:"country"`
	Currency    string          `json:"currency"`
	BankID      string          `json:"bankId"`
	BankName    string          `json:"bankName"`
	BranchID    string          `json:"branchId,omitempty"`
	BranchName  string          `json:"branchName,omitempty"`
	Last4       string          `json:"accountLast4"`
	Holder      string          `json:"holder"`
	Note        string          `json:"note,omitempty"`
}

func (q request) detail() string {
	return fmt.Sprintf("bank payout of %s USD (%s leaving the USDB wallet %s) to %s ****%s (%s), %s %s", q.Amount, sentAmount(q.AmountMinor),
		q.WalletID, q.BankName, q.Last4, q.Holder, q.Country, q.Currency)
}

func target(id int64) string { return "bank_payout:" + strconv.FormatInt(id, 10) }

func page(id int64) string { return "/money-out/payouts/" + strconv.FormatInt(id, 10) }

// wizard is the wizard as posted, checked step by step.
type wizard struct {
	v      views.BankPayoutView
	userID string
	wallet store.Wallet
	amount decimal.Decimal
	minor  apiclient.MinorUnits
	// balance is the USDB balance read at this step ("" when not read).
	balance string
}

func choices[T any](list []T, f func(T) views.Choice) []views.Choice {
	out := make([]views.Choice, 0, len(list))
	for _, x := range list {
		out = append(out, f(x))
	}
	return out
}

// usdbWallet is the treasury's USDB wallet (spec: the payout is "funded
// from USDB").
func usdbWallet(ws []store.Wallet) (store.Wallet, bool) {
	for _, w := range ws {
		if w.Currency == string(apiclient.USDB) {
			return w, true
		}
	}
	return store.Wallet{}, false
}

// Form is the first step: the country.
func (h *Handler) Form(w http.ResponseWriter, r *http.Request) {
	u, wallets, err := h.TreasuryUser(r.Context())
	if errors.Is(err, moneyout.ErrNoTreasury) {
		h.ErrorPage(w, r, http.StatusConflict, title, "The partner has no treasury user yet, so nothing can be paid out.")
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := wizard{userID: u.ServiceUserID, v: views.BankPayoutView{Fields: views.FieldErrors{}}}
	if wl, ok := usdbWallet(wallets); ok {
		f.wallet = wl
	}
	h.walk(r.Context(), &f, false, false)
	h.render(w, r, http.StatusOK, f.v)
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, v views.BankPayoutView) {
	if v.Fields == nil {
		v.Fields = views.FieldErrors{}
	}
	if v.Step == views.BankPayoutStepAccount && v.BankID != "" {
		book, err := h.BookPicker(r.Context(), "f-destination_id", store.DestBankAccount, v.BankID, v.Book.Chosen)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		v.Book, v.Book.Error = book, v.Fields.Get("destination_id")
	}
	h.Render(w, r, status, title, views.BankPayoutPage(v), nil)
}

// readForm reads the posted wizard.
func readForm(r *http.Request) views.BankPayoutView {
	v := views.BankPayoutView{Country: strings.ToUpper(strings.TrimSpace(r.PostFormValue("country"))),
		BankID: strings.TrimSpace(r.PostFormValue("bank_id")), BranchID: strings.TrimSpace(r.PostFormValue("branch_id")),
		AccountNumber: strings.TrimSpace(r.PostFormValue("account_number")), Holder: r.PostFormValue("holder"),
		Amount: r.PostFormValue("amount"), Note: strings.TrimSpace(r.PostFormValue("note")), Fields: views.FieldErrors{}}
	for field, s := range map[string]*string{"country": &v.Country, "bank": &v.BankID, "branch": &v.BranchID} {
		if handlers.CheckText(*s, moneyout.CodeLength, false) != "" {
			*s = ""
			v.Fields[field] = "Choose again from the list."
		}
	}
	if msg := handlers.CheckText(v.AccountNumber, accountLength, false); msg != "" {
		v.Fields["account_number"], v.AccountNumber = msg, ""
	}
	if handlers.CheckText(v.Holder, moneyout.HolderLength, false) != "" {
		v.Holder = ""
	}
	if msg := handlers.CheckText(v.Note, apiclient.MaxNoteLength, true); msg != "" {
		v.Fields["note"] = msg
	}
	return v
}

// walk checks the wizard from its first step and stops at the first
// step that is not complete, which it sets up to be shown. submitted: the
// person sent that step (so a missing answer is an error there, not just
// the next question). validate: the account is validated again and its
// holder compared even when one is carried (the confirm step). It returns
// true when every step up to the review is complete.
func (h *Handler) walk(ctx context.Context, f *wizard, submitted, validate bool) bool {
	if h.API == nil {
		f.v.Unavailable, f.v.Step = "No Partner API is connected.", views.BankPayoutStepCountry
		return false
	}
	rctx := apiclient.WithReadDeadline(ctx, time.Now().Add(moneyout.ReadBudget))
	for _, next := range []func() views.BankPayoutStep{
		func() views.BankPayoutStep { return h.walkCountry(rctx, f, submitted) },
		func() views.BankPayoutStep { return h.walkBank(rctx, f, submitted) },
		func() views.BankPayoutStep { return h.walkBranch(rctx, f, submitted) },
		func() views.BankPayoutStep { return h.walkAccount(ctx, f, submitted, validate) },
		func() views.BankPayoutStep { return h.walkAmount(ctx, f, submitted) },
	} {
		if stop := next(); stop != "" {
			f.v.Step = stop
			return false
		}
	}
	return true
}

// The steps of walk: each returns the step to stop at, "" to go on.

// walkCountry: one of the API's payout countries, with its currency.
func (h *Handler) walkCountry(ctx context.Context, f *wizard, submitted bool) views.BankPayoutStep {
	v := &f.v
	countries, err := h.API.ListPayoutCountries(ctx, f.userID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: payout countries", "err", err)
		v.Unavailable = "The API did not list the payout countries. " + moneyout.ReadFailed(err) + " Nothing was sent; reload to try again."
		return views.BankPayoutStepCountry
	}
	v.Countries = choices(countries, func(c apiclient.PayoutCountry) views.Choice {
		return views.Choice{Value: c.Code, Label: c.Name}
	})
	var country *apiclient.PayoutCountry
	for i := range countries {
		if countries[i].Code == v.Country {
			country = &countries[i]
		}
	}
	if country == nil || len(country.Currencies) == 0 {
		if submitted || v.Country != "" {
			v.Fields["country"] = "Choose one of the listed countries."
		}
		v.Country = ""
		return views.BankPayoutStepCountry
	}
	v.CountryName, v.Currency = country.Name, country.Currencies[0]
	return ""
}

// walkBank: one of the country's banks.
func (h *Handler) walkBank(ctx context.Context, f *wizard, submitted bool) views.BankPayoutStep {
	v := &f.v
	banks, err := h.API.ListPayoutBanks(ctx, f.userID, v.Country)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: payout banks", "country", v.Country, "err", err)
		v.Unavailable = "The API did not list the banks of " + v.CountryName + ". " + moneyout.ReadFailed(err) + " Nothing was sent; try again."
		return views.BankPayoutStepBank
	}
	v.Banks = choices(banks, func(b apiclient.PayoutBank) views.Choice { return views.Choice{Value: b.ID, Label: b.Name} })
	v.BankName = ""
	for _, b := range banks {
		if b.ID == v.BankID {
			v.BankName = b.Name
		}
	}
	if v.BankName == "" {
		if v.BankID != "" || submitted && v.Step == views.BankPayoutStepBank {
			v.Fields["bank"] = "Choose one of the listed banks of " + v.CountryName + "."
		}
		v.BankID = ""
		return views.BankPayoutStepBank
	}
	return ""
}

// walkBranch: the bank's branch, when it has any.
func (h *Handler) walkBranch(ctx context.Context, f *wizard, submitted bool) views.BankPayoutStep {
	v := &f.v
	branches, err := h.API.ListPayoutBankBranches(ctx, f.userID, v.BankID)
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: payout branches", "bank", v.BankID, "err", err)
		v.Unavailable = "The API did not say whether " + v.BankName + " needs a branch. " + moneyout.ReadFailed(err) + " Nothing was sent; try again."
		return views.BankPayoutStepBranch
	}
	// spec: "empty list means no branch needed".
	v.NoBranch = len(branches) == 0
	v.Branches = choices(branches, func(b apiclient.PayoutBankBranch) views.Choice { return views.Choice{Value: b.ID, Label: b.Name} })
	v.BranchName = ""
	if v.NoBranch {
		v.BranchID = ""
		return ""
	}
	for _, b := range branches {
		if b.ID == v.BranchID {
			v.BranchName = b.Name
		}
	}
	if v.BranchName == "" {
		if v.BranchID != "" || submitted && v.Step == views.BankPayoutStepBranch {
			v.Fields["branch"] = v.BankName + " needs the account's branch: choose one of the listed branches."
		}
		v.BranchID = ""
		return views.BankPayoutStepBranch
	}
	return ""
}

// walkAccount: the account, validated by the API with its holder, and
// allowed by the address book; the holder is shown before the amount.
func (h *Handler) walkAccount(ctx context.Context, f *wizard, submitted, validate bool) views.BankPayoutStep {
	v := &f.v
	if v.Fields.Has("account_number") || v.Fields.Has("destination_id") {
		return views.BankPayoutStepAccount
	}
	if v.AccountNumber == "" {
		if submitted && v.Step == views.BankPayoutStepAccount {
			v.Fields["account_number"] = "Enter the account number."
		}
		v.Holder = ""
		return views.BankPayoutStepAccount
	}
	if v.Holder == "" || validate || v.Step == views.BankPayoutStepAccount {
		holder, field, msg := h.validateAccount(ctx, f.userID, *v)
		switch {
		case msg != "" && field == "":
			v.Error = msg
			return views.BankPayoutStepAccount
		case msg != "":
			v.Fields[field] = msg
			return views.BankPayoutStepAccount
		case v.Holder != "" && v.Step != views.BankPayoutStepAccount && holder != v.Holder:
			v.Fields["account_number"] = "The API now names the account's holder " + holder + ", not " + v.Holder +
				" as shown before: check the account. Nothing was sent."
			v.Holder = holder
			return views.BankPayoutStepAccount
		}
		v.Holder = holder
	}
	// The account exists: the address book says whether money may go
	// there, before the amount is asked.
	if refused, err := h.BookRefusal(ctx, destinationOf(*v)); err != nil || refused != nil {
		if err != nil {
			h.Logger.WarnContext(ctx, "moneyout: payout: address book", "err", err)
			v.Error = "The address book could not be read just now, so the account cannot be checked. Nothing was sent; try again."
		} else {
			v.Error = moneyout.RefusedAt(v.Fields, refused, "account_number", "account_number")
		}
		return views.BankPayoutStepAccount
	}
	if v.Step == views.BankPayoutStepAccount {
		// The holder is shown before the amount is asked.
		return views.BankPayoutStepAmount
	}
	return ""
}

// walkAmount: the amount against the USDB balance read now, then the
// review.
func (h *Handler) walkAmount(ctx context.Context, f *wizard, submitted bool) views.BankPayoutStep {
	v := &f.v
	if f.wallet.Balance.Valid {
		v.Balance = moneyout.WalletMoney(f.wallet, f.wallet.Balance.Decimal).String()
	}
	if v.Step == views.BankPayoutStepAmount || v.Step == "" || v.Step == "edit" {
		if !submitted || v.Step == "edit" {
			return views.BankPayoutStepAmount
		}
	}
	parsed, msg := handlers.ParseAmount(v.Amount, usdbDecimals)
	amount := parsed.Value
	if msg != "" {
		v.Fields["amount"] = msg
	}
	if v.Fields.Has("note") || v.Fields.Has("amount") {
		return views.BankPayoutStepAmount
	}
	if f.wallet.ID == "" {
		v.Fields["amount"] = "The treasury has no USDB wallet to pay out from."
		return views.BankPayoutStepAmount
	}
	bal, read := h.LiveBalance(ctx, f.userID, f.wallet.ID)
	switch {
	case !read:
		v.Fields["amount"] = "The USDB wallet's balance could not be read from the Partner API just now, so the amount cannot be checked. Nothing was sent; try again in a moment."
		return views.BankPayoutStepAmount
	case amount.GreaterThan(bal):
		v.Fields["amount"] = "More than the USDB wallet holds now (" + moneyout.WalletMoney(f.wallet, bal).String() + ", read just now)."
		return views.BankPayoutStepAmount
	}
	// Counted in cents only once it is known to be no more than the
	// wallet holds: an amount too large for the count is more than any
	// wallet holds, and is told so above.
	minor, err := apiclient.MinorUnitsFromMajor(amount, usdbDecimals)
	if err != nil {
		v.Fields["amount"] = "This amount cannot be paid in USDB, which has 2 decimal places: write it like 1250.50."
		return views.BankPayoutStepAmount
	}
	f.amount, f.minor, f.balance = amount, minor, moneyout.WalletMoney(f.wallet, bal).String()+" (read just now)"
	v.Step = views.BankPayoutStepReview
	v.Review = &views.BankPayoutReview{Amount: moneyout.WalletMoney(f.wallet, amount), Sent: sentAmount(minor.Int64()),
		Account: "****" + moneyout.Last4(v.AccountNumber), Balance: f.balance}
	return ""
}

// validateAccount asks the API whether the account exists and who
// holds it (a check that changes nothing). On failure it returns the form
// field the words concern ("" for the summary).
func (h *Handler) validateAccount(ctx context.Context, userID string, v views.BankPayoutView) (holder, field, msg string) {
	cctx, cancel := context.WithTimeout(ctx, moneyout.CallTimeout)
	defer cancel()
	res, err := h.API.ValidatePayoutAccount(cctx, userID, apiclient.ValidatePayoutAccountRequest{Country: v.Country, Currency: v.Currency,
		BankID: v.BankID, AccountNumber: v.AccountNumber})
	if err != nil {
		h.Logger.WarnContext(ctx, "moneyout: validate payout account", "bank", v.BankID, "err", err)
		p := apiclient.Explain(err)
		for apiField, m := range p.Fields {
			switch apiField {
			case "accountNumber":
				return "", "account_number", m
			case "bankId":
				return "", "bank", m
			case "country", "currency":
				return "", "country", m
			}
		}
		if p.Kind == apiclient.Refused {
			return "", "account_number", p.Summary
		}
		return "", "", "The API did not check the account. " + p.Summary + " Nothing was sent; your input is kept: try again."
	}
	if !res.Valid {
		m := res.Message
		if m == "" {
			m = "The API says this account is not valid."
		}
		return "", "account_number", m
	}
	if res.AccountHolderName == "" {
		return "", "account_number", "The API accepted the account but named no holder, so it cannot be paid: check the account."
	}
	return res.AccountHolderName, "", ""
}

// Step checks the wizard as posted and shows the next step.
func (h *Handler) Step(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, wallets, err := h.TreasuryUser(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	f := wizard{userID: u.ServiceUserID, v: readForm(r)}
	f.v.Step = views.BankPayoutStep(r.PostFormValue("step"))
	f.wallet, _ = usdbWallet(wallets)
	if err := h.fromBook(ctx, r, &f.v); err != nil {
		h.ServerError(w, r, err)
		return
	}
	status := http.StatusOK
	if h.walk(ctx, &f, true, false) {
		f.v.Token = handlers.NewFormToken()
	}
	switch {
	case f.v.Fields.Any():
		status = http.StatusUnprocessableEntity
	case f.v.Unavailable != "" || f.v.Error != "":
		status = http.StatusBadGateway
	}
	h.render(w, r, status, f.v)
}

// Confirm checks every step again (the account validated again, its
// holder unchanged, the amount against the balance read now) and sends the
// payout once under the review's token.
func (h *Handler) Confirm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u, wallets, err := h.TreasuryUser(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	token := r.PostFormValue(handlers.FormTokenField)
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	// A second click finds the first action before anything is read again.
	if a, err := h.Store.ActionByKey(ctx, key); err == nil && a.Kind == kind {
		h.repeat(w, r, a)
		return
	}
	typed := readForm(r)
	f := wizard{userID: u.ServiceUserID, v: typed}
	f.v.Step = views.BankPayoutStepReview
	f.wallet, _ = usdbWallet(wallets)
	if !h.walk(ctx, &f, true, true) {
		if f.v.Fields.Any() {
			h.render(w, r, http.StatusUnprocessableEntity, f.v)
			return
		}
		// A list or the account could not be read again: nothing was
		// sent; what was typed comes back with the same confirmation.
		typed.Retry, typed.Token, typed.Error = true, token, strings.TrimSpace(f.v.Unavailable+" "+f.v.Error)
		h.render(w, r, http.StatusBadGateway, typed)
		return
	}
	f.v.Token = token
	id, err := h.Store.ReserveBankPayoutID(ctx)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	done, err := h.Actions.Run(ctx, h.write(ctx, key, id, u.ServiceUserID, f))
	var refused *store.PolicyRefusal
	switch {
	case errors.As(err, &refused):
		f.v.Error = moneyout.RefusedAt(f.v.Fields, refused, "account_number", "amount")
		f.v.Step, f.v.Review = views.BankPayoutStepAmount, nil
		if refused.OnDestination {
			f.v.Step = views.BankPayoutStepAccount
		}
		h.render(w, r, http.StatusUnprocessableEntity, f.v)
		return
	case h.Answered(w, r, err):
		return
	case done.Repeat:
		h.repeat(w, r, done.Action)
		return
	case done.State() == store.ActionDone:
		rec, err := h.Store.BankPayoutByID(ctx, id)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		if rec.State != store.BankPayoutAwaitingSignature {
			h.show(w, r, rec, http.StatusCreated, "The API opened the payout without asking for a signature.", nil, "")
			return
		}
		h.links.Issue(w, r, rec, http.StatusCreated)
		return
	}
	// Refused, or not known: the review again with a new token (this one
	// is spent) and everything typed.
	f.v.Token = handlers.NewFormToken()
	if done.State() != store.ActionRefused {
		f.v.Error = done.Action.Message + " The API has no read of a payout, so this app cannot tell whether it was opened: nothing moves without the owner's signature, and an unsigned payout expires by itself. Check the treasury's USDB balance and its withdrawals before sending it again."
		h.render(w, r, http.StatusBadGateway, f.v)
		return
	}
	h.renderRefusal(w, r, f.v, done.Problem)
}

// write is the payout's write for the ledger: the request as the ledger
// keeps it (the account by its last four digits), its spend, and the call.
func (h *Handler) write(ctx context.Context, key string, id int64, userID string, f wizard) handlers.Write {
	v := f.v
	q := request{ID: id, UserID: userID, WalletID: f.wallet.ID, Amount: f.amount, AmountMinor: f.minor.Int64(),
		Country: v.Country, Currency: v.Currency, BankID: v.BankID, BankName: v.BankName, BranchID: v.BranchID, BranchName: v.BranchName,
		Last4: moneyout.Last4(v.AccountNumber), Holder: v.Holder, Note: v.Note}
	body := apiclient.PayoutRequest{SourceSmartWalletID: q.WalletID, Amount: f.minor, Country: q.Country, Currency: q.Currency,
		BankDetails: apiclient.PayoutBankDetails{BankID: q.BankID, AccountNumber: v.AccountNumber, AccountHolderName: q.Holder, BranchID: q.BranchID},
		Note:        q.Note}
	actor := handlers.ActorFrom(ctx)
	return handlers.Write{Key: key, Kind: kind, Target: target(id), Actor: actor, Request: q,
		Spend: h.Spend(ctx, f.wallet, f.amount, destinationOf(v)), Call: func(ctx context.Context) (handlers.Effect, error) {
			p, err := h.API.CreatePayout(ctx, q.UserID, body)
			if err != nil {
				return handlers.Effect{}, err
			}
			return opened(key, q, *p, actor), nil
		}}
}

// renderRefusal shows the API's refusal of a payout at the field it
// concerns: the wizard goes back to that field's step, with everything
// else kept.
func (h *Handler) renderRefusal(w http.ResponseWriter, r *http.Request, v views.BankPayoutView, p apiclient.Problem) {
	for apiField, m := range p.Fields {
		switch strings.TrimPrefix(apiField, "bankDetails.") {
		case "amount":
			v.Fields["amount"] = m
		case "accountNumber", "accountHolderName":
			v.Fields["account_number"] = m
		case "branchId":
			v.Fields["branch"] = m
		case "bankId":
			v.Fields["bank"] = m
		case "note":
			v.Fields["note"] = m
		case "country", "currency":
			v.Fields["country"] = m
		}
	}
	status := http.StatusUnprocessableEntity
	switch {
	case v.Fields.Any():
	case p.Status == http.StatusBadRequest && (strings.Contains(strings.ToLower(p.Summary), "balance") ||
		strings.Contains(strings.ToLower(p.Summary), "amount")):
		v.Fields["amount"] = p.Summary
	case p.Status == http.StatusBadRequest:
		v.Fields["account_number"] = p.Summary
	default:
		status = http.StatusBadGateway
		v.Error = p.Summary
	}
	for _, s := range []struct {
		field string
		step  views.BankPayoutStep
	}{{"country", views.BankPayoutStepCountry}, {"bank", views.BankPayoutStepBank}, {"branch", views.BankPayoutStepBranch},
		{"account_number", views.BankPayoutStepAccount}, {"amount", views.BankPayoutStepAmount}, {"note", views.BankPayoutStepAmount}} {
		if v.Fields.Has(s.field) {
			v.Step, v.Review = s.step, nil
			break
		}
	}
	h.render(w, r, status, v)
}

// repeat answers a confirm whose token was used: nothing is sent
// again; the first payout (or its request) is shown.
func (h *Handler) repeat(w http.ResponseWriter, r *http.Request, a store.Action) {
	h.Flash(r, "info", "This payout was already sent: "+views.StatusLabel(views.StatusAction, string(a.State))+". Nothing was sent again.")
	id, _ := strconv.ParseInt(strings.TrimPrefix(a.Target, "bank_payout:"), 10, 64)
	h.Redirect(w, r, page(id))
}

// opened records the payout the API opened, in the transaction that
// finishes its action.
func opened(key string, q request, p apiclient.Payout, by store.Actor) handlers.Effect {
	rec := store.BankPayout{ID: q.ID, ActionKey: key, UserID: q.UserID, WalletID: q.WalletID, Amount: q.Amount, AmountMinor: q.AmountMinor,
		Country: q.Country, Currency: q.Currency, BankID: q.BankID, BankName: q.BankName, BranchID: q.BranchID, BranchName: q.BranchName,
		AccountLast4: q.Last4, HolderName: q.Holder, Note: q.Note, UpstreamID: p.ID, State: store.BankPayoutCreated,
		CreatedByStaffID: by.StaffID, CreatedBy: by.Email}
	if qt := p.Quote; qt != nil {
		rec.QuoteSource = decimal.NullDecimal{Decimal: qt.SourceAmount, Valid: true}
		rec.QuoteDestination = decimal.NullDecimal{Decimal: qt.DestinationAmount, Valid: true}
		rec.QuoteRate = decimal.NullDecimal{Decimal: qt.ExchangeRate, Valid: true}
		rec.QuoteFee = decimal.NullDecimal{Decimal: qt.FeeAmount, Valid: true}
		if !qt.ExpiresAt.IsZero() {
			e := qt.ExpiresAt
			rec.QuoteExpiresAt = &e
		}
	}
	detail := q.detail() + ": opened, no signature asked"
	if sr := p.SignatureRequest; sr != nil {
		rec.State, rec.WorkflowID, rec.HashToSign = store.BankPayoutAwaitingSignature, sr.WorkflowID, sr.HashToSign
		if !sr.Deadline.IsZero() {
			d := sr.Deadline
			rec.Deadline = &d
		}
		detail = q.detail() + ": awaiting the owner's signature (workflow " + sr.WorkflowID + ")"
	}
	return handlers.Effect{Target: target(q.ID), Result: map[string]string{"id": p.ID}, Detail: detail,
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, err := tx.InsertBankPayout(ctx, rec)
			return err
		}}
}

// signDeadline is when the payout can no longer be signed: the earlier of
// the signature request's deadline and the quote's expiry.
func signDeadline(rec store.BankPayout) *time.Time {
	return handlers.EarliestDeadline(rec.Deadline, rec.QuoteExpiresAt)
}

// what is the line the device shows for the payout.
func what(rec store.BankPayout) string {
	s := fmt.Sprintf("Bank payout of %s USD (%s leaving the USDB wallet) to %s, %s ****%s", views.FormatDecimal(rec.Amount, 2),
		sentAmount(rec.AmountMinor), rec.HolderName, rec.BankName, rec.AccountLast4)
	if rec.QuoteDestination.Valid {
		s += fmt.Sprintf(", quoted to arrive as %s %s", views.FormatDecimal(rec.QuoteDestination.Decimal, 2), rec.Currency)
	}
	return s
}

// signLinks issues a payout's signing links.
func (h *Handler) signLinks() *handlers.SignLinks[store.BankPayout] {
	return &handlers.SignLinks[store.BankPayout]{Base: h.Base, Sign: h.Sign, LogMessage: "moneyout: issue the payout's signing link",
		Failed: "The payout was opened, but its signing link could not be issued. Try \"Issue a new signing link\".",
		Load: func(ctx context.Context, id int64) (store.BankPayout, error) {
			rec, _, err := h.Store.FollowBankPayout(ctx, id)
			return rec, err
		},
		Check: handlers.CheckOneSignRequest(h.Store, func(rec store.BankPayout) int64 { return rec.SignRequestID }, h.cannotIssueLink),
		Signature: func(rec store.BankPayout) handlers.Signature {
			return handlers.Signature{UserID: rec.UserID, WalletID: rec.WalletID, WorkflowID: rec.WorkflowID, HashToSign: rec.HashToSign,
				Deadline: signDeadline(rec), What: what(rec), Log: []any{"payout", rec.ID}}
		},
		Keep: func(ctx context.Context, rec store.BankPayout, signRequestID int64) (store.BankPayout, error) {
			rec.SignRequestID = signRequestID
			return rec, h.Store.SetBankPayoutSignRequest(ctx, rec.ID, signRequestID)
		},
		Show: h.show}
}

// Detail shows one payout, moved along what the withdrawal webhooks
// recorded; before the API opened it (or when it refused or did not
// answer), the request that asked for it.
func (h *Handler) Detail(w http.ResponseWriter, r *http.Request) {
	h.links.Detail(w, r, h.showRequest)
}

// Link issues a new signing link for a payout that still waits for
// its signature.
func (h *Handler) Link(w http.ResponseWriter, r *http.Request) {
	h.links.Reissue(w, r)
}

// cannotIssueLink says why no new link may be issued ("" when one
// may): the payout waits for a signature, its quote and deadline have not
// passed, and no signature is on its way or accepted.
func (h *Handler) cannotIssueLink(rec store.BankPayout, sr *store.SignRequest) string {
	if rec.State != store.BankPayoutAwaitingSignature {
		return "This payout does not wait for a signature."
	}
	if d := signDeadline(rec); d != nil && !h.Clock().Before(*d) {
		return "The payout's quote expired before it was signed: start a new payout for a fresh quote."
	}
	if handlers.SignatureOnItsWay(sr) {
		return handlers.SignatureOnItsWayWords
	}
	return ""
}

// show renders a payout the API opened. panel is a just-issued sign
// request (with its QR code); otherwise the stored one's state is shown.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, rec store.BankPayout, status int, note string, panel *views.SignPanel, errMsg string) {
	sr, err := handlers.SignRequestOf(r.Context(), h.Store, rec.SignRequestID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if panel == nil && sr != nil {
		p := proposal.SignPanelOf(*sr, h.Clock())
		panel = &p
	}
	wl := store.Wallet{Currency: string(apiclient.USDB)}
	v := views.BankPayoutRecord{ID: rec.ID, State: string(rec.State), StateLabel: views.StatusLabel(views.StatusBankPayout, string(rec.State)), Final: rec.State.Final(),
		UpstreamID: rec.UpstreamID, Holder: rec.HolderName, Amount: moneyout.WalletMoney(wl, rec.Amount), Sent: sentAmount(rec.AmountMinor), Back: handlers.BackTo(r, "/money-out"),
		Note: rec.Note, CreatedBy: rec.CreatedBy, CreatedAt: rec.CreatedAt, SettledAt: rec.SettledAt, Notice: note, Sign: panel,
		Destination: fmt.Sprintf("%s%s, account ****%s, %s (%s)", rec.BankName, branchOf(rec), rec.AccountLast4, rec.Country, rec.Currency)}
	if rec.QuoteDestination.Valid {
		v.QuoteDestination = &views.Amount{Value: rec.QuoteDestination.Decimal, Currency: rec.Currency}
	}
	if rec.QuoteSource.Valid {
		a := moneyout.WalletMoney(wl, rec.QuoteSource.Decimal)
		v.QuoteSource = &a
	}
	if rec.QuoteFee.Valid {
		a := moneyout.WalletMoney(wl, rec.QuoteFee.Decimal)
		v.QuoteFee = &a
	}
	if rec.QuoteRate.Valid {
		v.QuoteRate = rec.QuoteRate.Decimal.String() + " " + rec.Currency + " per USD"
	}
	signed := sr != nil && (sr.State == store.SignSubmitted || sr.State == store.SignCompleted || sr.State == store.SignRelayPending)
	if rec.State == store.BankPayoutAwaitingSignature && signed {
		v.StateLabel = "signed: the rail is paying it out"
	}
	if d := signDeadline(rec); d != nil {
		v.QuoteExpiresAt = d
		v.QuoteExpired = rec.State == store.BankPayoutAwaitingSignature && !signed && !h.Clock().Before(*d)
	}
	if rec.State == store.BankPayoutFailed {
		v.Error = "The payout failed on the rail: " + rec.FailureReason
		if rec.FailureReason == "" {
			v.Error = "The payout failed on the rail; the API gave no reason."
		}
	}
	if v.QuoteExpired {
		v.Error = "The quote expired before the owner signed: this payout will not be sent. Start a new payout for a fresh quote."
	}
	if errMsg != "" {
		v.Error = errMsg
	}
	if !v.Final && !v.QuoteExpired {
		v.PollURL = page(rec.ID)
	}
	v.CanIssueLink = h.cannotIssueLink(rec, sr) == "" && (panel == nil || panel.Link == "")
	h.Render(w, r, status, title, views.BankPayoutRecordPage(v), views.BankPayoutRecordBody(v))
}

// sentAmount is a request's amount, its USDB minor units read back as a
// decimal of the token: what the API is told leaves the wallet.
func sentAmount(minor int64) views.Amount {
	return views.Amount{Value: apiclient.NewMinorUnits(minor).Major(usdbDecimals), Currency: string(apiclient.USDB)}
}

func branchOf(rec store.BankPayout) string {
	if rec.BranchName == "" {
		return ""
	}
	return " (" + rec.BranchName + ")"
}

// showRequest renders a payout the API has not opened: the request
// as the ledger has it.
func (h *Handler) showRequest(w http.ResponseWriter, r *http.Request, id int64) {
	var q request
	a, ok := h.NotOpened(w, r, h.Store, target(id), kind, &q)
	if !ok {
		return
	}
	wl := store.Wallet{Currency: string(apiclient.USDB)}
	v := views.BankPayoutRecord{ID: id, State: string(a.State), StateLabel: views.StatusLabel(views.StatusAction, string(a.State)), Final: a.State.Finished(),
		Holder: q.Holder, Amount: moneyout.WalletMoney(wl, q.Amount), Sent: sentAmount(q.AmountMinor), Note: q.Note, Back: handlers.BackTo(r, "/money-out"),
		CreatedBy: a.Actor.Email, CreatedAt: a.BegunAt,
		Destination: fmt.Sprintf("%s, account ****%s, %s (%s)", q.BankName, q.Last4, q.Country, q.Currency)}
	poll, says := handlers.NotOpenedSays(a, "The API has no read of a payout: check the treasury's USDB balance and withdrawals at the Partner API, then record the outcome on API requests. Nothing moves without the owner's signature.")
	if poll {
		v.PollURL = page(id)
	}
	v.Error = says
	h.Render(w, r, http.StatusOK, title, views.BankPayoutRecordPage(v), views.BankPayoutRecordBody(v))
}

// destinationOf is a payout's destination as the book names it: the
// rail's bank id and the account number, written as the book keeps it.
func destinationOf(v views.BankPayoutView) string {
	account := strings.ToUpper(strings.ReplaceAll(strings.ReplaceAll(v.AccountNumber, " ", ""), "-", ""))
	return store.DestinationKey(store.DestBankAccount, v.BankID, account)
}

// fromBook fills the payout's account from the entry picked at the
// account step; the entry must be an account at the bank chosen.
func (h *Handler) fromBook(ctx context.Context, r *http.Request, v *views.BankPayoutView) error {
	picked, msg, err := h.BookChosen(ctx, r, store.DestBankAccount)
	switch {
	case err != nil:
		return err
	case msg != "":
		v.Fields["destination_id"] = msg
	case picked != nil && picked.BankCode != v.BankID:
		v.Fields["destination_id"] = "This entry of the book is an account at another bank: choose one at the bank chosen, or go back and choose its bank."
	case picked != nil:
		v.Book.Chosen = strconv.FormatInt(picked.ID, 10)
		if msg := moneyout.FromBook(&v.AccountNumber, picked.Value); msg != "" {
			v.Fields["destination_id"] = msg
		}
	}
	if v.Fields.Has("destination_id") {
		v.Step = views.BankPayoutStepAccount
	}
	return nil
}
