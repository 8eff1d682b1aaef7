package cards

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// nigerianStates are the delivery states offered (36 states and the FCT).
var nigerianStates = []string{"Abia", "Adamawa", "Akwa Ibom", "Anambra", "Bauchi", "Bayelsa", "Benue", "Borno",
	"Cross River", "Delta", "Ebonyi", "Edo", "Ekiti", "Enugu", "FCT", "Gombe", "Imo", "Jigawa", "Kaduna", "Kano",
	"Katsina", "Kebbi", "Kogi", "Kwara", "Lagos", "Nasarawa", "Niger", "Ogun", "Ondo", "Osun", "Oyo", "Plateau",
	"Rivers", "Sokoto", "Taraba", "Yobe", "Zamfara"}

func knownState(s string) bool {
	return slices.ContainsFunc(nigerianStates, func(x string) bool { return strings.EqualFold(x, s) })
}

// NormalizeNigerianPhone turns a Nigerian number given with a +234, 234 or
// 0 prefix (spaces, dashes and brackets allowed) into +234 and ten digits.
func NormalizeNigerianPhone(s string) (string, bool) {
	s = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "").Replace(strings.TrimSpace(s))
	for _, p := range []string{"+234", "234", "0"} {
		if rest, ok := strings.CutPrefix(s, p); ok && len(rest) == 10 && isDigits(rest) {
			return "+234" + rest, true
		}
	}
	return "", false
}

// cardCurrencyOf is the card currency a wallet takes: NGN on a CNGN wallet,
// USD on a USDB wallet.
func cardCurrencyOf(w store.Wallet) (string, bool) {
	switch {
	case w.DisplayCurrency == "NGN" || w.Currency == string(apiclient.CNGN):
		return "NGN", true
	case w.DisplayCurrency == "USD" || w.Currency == string(apiclient.USDB):
		return "USD", true
	}
	return "", false
}

// IssueForm is /cards/issue: choose an employee's wallet, then the form.
func (h *Handler) IssueForm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := searchQuery(r)
	v := views.CardIssueView{Query: q}
	if id := r.URL.Query().Get("wallet"); id != "" {
		f, ok := h.issueFormFor(w, r, id)
		if !ok {
			return
		}
		v.Form = &f.form
		h.render(w, r, http.StatusOK, "Issue a card", views.CardIssuePage(v), nil)
		return
	}
	list, err := h.Store.SearchWallets(ctx, q, 50)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	for _, wo := range list {
		cur, ok := cardCurrencyOf(wo.Wallet)
		if !ok {
			continue
		}
		v.Wallets = append(v.Wallets, views.IssueWalletRow{WalletID: wo.Wallet.ID, EmployeeName: wo.Employee.Name(),
			Email: wo.Employee.Email, Currency: cur, Token: wo.Wallet.Currency, Legacy: wo.Wallet.Legacy})
	}
	h.render(w, r, http.StatusOK, "Issue a card", views.CardIssuePage(v), nil)
}

// issueTarget is the wallet and employee a card is issued to, and its
// empty form.
type issueTarget struct {
	wallet   store.Wallet
	employee store.Employee
	form     views.CardIssueForm
}

// issueFormFor builds the empty form for a wallet. Cards are issued on
// employees' wallets only, never on the treasury's.
func (h *Handler) issueFormFor(w http.ResponseWriter, r *http.Request, walletID string) (issueTarget, bool) {
	ctx := r.Context()
	wallet, err := h.Store.WalletByID(ctx, walletID)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return issueTarget{}, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return issueTarget{}, false
	}
	emp, err := h.Store.EmployeeByID(ctx, wallet.EmployeeID)
	if err != nil {
		h.ServerError(w, r, err)
		return issueTarget{}, false
	}
	cur, ok := cardCurrencyOf(wallet)
	if !ok || emp.ServiceUserID == "" || emp.Kind != store.KindEmployee || emp.DeletedAt != nil {
		h.ErrorPage(w, r, http.StatusConflict, "No cards on this wallet",
			"Cards are issued in NGN or USD, on an employee's CNGN or USDB wallet: never on the treasury's wallets.")
		return issueTarget{}, false
	}
	// Re-read the employee's card lists first, so "never had a card" (and
	// with it the NIN question) is decided on what the API says now.
	if h.Indexer.API != nil {
		if ws, err := h.Store.WalletsByEmployee(ctx, emp.ID); err == nil {
			for _, w := range ws {
				if cardWallet(w) {
					if _, err := h.Indexer.RefreshWallet(ctx, w, emp.ServiceUserID); err != nil {
						h.Logger.WarnContext(ctx, "card issue: card list not re-read", "wallet", w.ID, "err", err)
					}
				}
			}
		}
	}
	had, err := h.Store.EmployeeHasHadCard(ctx, emp.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return issueTarget{}, false
	}
	return issueTarget{wallet: wallet, employee: emp, form: views.CardIssueForm{WalletID: wallet.ID, EmployeeName: emp.Name(),
		Currency: cur, Token: wallet.Currency, FormToken: handlers.NewFormToken(), Legacy: wallet.Legacy, NeedsNIN: !had, FirstCard: !had,
		CardColor: "#1E88E5", Type: "virtual", Fields: views.FieldErrors{}, States: nigerianStates}}, true
}

// cardRequest is a card request as the ledger keeps it: never the NIN, the
// card number, or the delivery address and phone.
type cardRequest struct {
	WalletID      string `json:"walletId"`
	EmployeeID    int64  `json:"employeeId"`
	UserID        string `json:"userId"`
	CardName      string `json:"cardName"`
	CardColor     string `json:"cardColor"`
	Currency      string `json:"currency"`
	Type          string `json:"type"`
	DeliveryState string `json:"deliveryState,omitempty"`
	NINGiven      bool   `json:"ninGiven,omitempty"`
	PANGiven      bool   `json:"panGiven,omitempty"`
	// Known are the ids of the wallet's cards and requests in the index
	// when the request was sent: a read-back looks for one not among them.
	Known []string `json:"known"`
}

func (c cardRequest) words() string { return c.Currency + " " + c.Type + " card " + c.CardName }

// cardIssued is what the API answered, as the ledger keeps it.
type cardIssued struct {
	ProposalID        string          `json:"proposalId"`
	ProposalStatus    string          `json:"proposalStatus"`
	FeeAmount         decimal.Decimal `json:"feeAmount"`
	FeeCurrency       string          `json:"feeCurrency,omitempty"`
	SignReady         bool            `json:"signReady,omitempty"`
	SignPending       bool            `json:"signPending,omitempty"`
	SignHint          string          `json:"signHint,omitempty"`
	SignError         string          `json:"signError,omitempty"`
	SignDeadline      time.Time       `json:"signDeadline"`
	MigrationRequired bool            `json:"migrationRequired,omitempty"`
	MigrationHint     string          `json:"migrationHint,omitempty"`
	// ReadBack: learnt from the card list after the answer was lost (no
	// fee or sign payload known).
	ReadBack bool `json:"readBack,omitempty"`
}

func issuedFrom(res *apiclient.CardIssuance) cardIssued {
	out := cardIssued{ProposalID: res.ProposalID, ProposalStatus: string(res.ProposalStatus), FeeAmount: res.FeeAmount,
		FeeCurrency: res.FeeCurrency, SignReady: res.SignPayload != nil, SignPending: res.SignPayloadPending,
		SignHint: res.SignPayloadHint, SignError: res.SignPayloadError,
		MigrationRequired: res.MigrationRequired, MigrationHint: res.MigrationHint}
	if res.SignPayload != nil {
		out.SignDeadline = res.SignPayload.Deadline
	}
	return out
}

// fee is the creation fee on screen, in the fiat of its stablecoin.
func (c cardIssued) fee() *views.Amount {
	if c.FeeCurrency == "" {
		return nil
	}
	cur := c.FeeCurrency
	if fiat, ok := apiclient.Stablecoin(c.FeeCurrency).Fiat(); ok {
		cur = string(fiat)
	}
	return &views.Amount{Value: c.FeeAmount, Currency: cur, Token: c.FeeCurrency}
}

// issueEffect is what an issuance changes here: the requested card's
// reserved entry in the index (its id is the proposal id), and the audit
// row. A legacy wallet's answer issues nothing and changes nothing.
func (h *Handler) issueEffect(c cardRequest, res cardIssued) handlers.Effect {
	if res.MigrationRequired || res.ProposalID == "" {
		return handlers.Effect{Result: res, Detail: auditDetail(c.words(), "not issued: legacy wallet, migration required")}
	}
	fee := "fee not known"
	if f := res.fee(); f != nil {
		fee = "fee " + f.String()
	}
	entry := store.CardEntry{ID: res.ProposalID, WalletID: c.WalletID, EmployeeID: c.EmployeeID, CardName: c.CardName,
		CardColor: c.CardColor, Currency: c.Currency, Type: c.Type, Status: string(apiclient.CardReserved), Reserved: true,
		ProposalID: res.ProposalID, ProposalStatus: res.ProposalStatus}
	return handlers.Effect{Target: target(res.ProposalID), Result: res,
		Detail: auditDetail(c.words(), "proposal "+res.ProposalID+" "+res.ProposalStatus, fee),
		Apply: func(ctx context.Context, tx *store.Store) error {
			return tx.UpsertCard(ctx, entry, h.Clock())
		}}
}

// readBackIssue looks for the request in the wallet's card list: a
// requested (or issued) card with the name, colour and type asked for that
// was not listed before the request was sent.
func (h *Handler) readBackIssue(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var c cardRequest
	if err := a.DecodeRequest(&c); err != nil {
		return handlers.Effect{}, false, err
	}
	list, err := h.API.ListCards(ctx, c.UserID, c.WalletID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	for _, card := range list {
		if card.ID == "" || slices.Contains(c.Known, card.ID) || card.CardName != c.CardName ||
			!strings.EqualFold(card.CardColor, c.CardColor) || (card.Type != "" && card.Type != c.Type) {
			continue
		}
		res := cardIssued{ProposalID: card.ProposalID, ProposalStatus: string(card.ProposalStatus), ReadBack: true}
		if res.ProposalID == "" {
			res.ProposalID = card.ID
		}
		eff := h.issueEffect(c, res)
		entry := entryFrom(card)
		entry.WalletID, entry.EmployeeID = c.WalletID, c.EmployeeID
		eff.Target = target(entry.ID)
		eff.Apply = func(ctx context.Context, tx *store.Store) error { return tx.UpsertCard(ctx, entry, h.Clock()) }
		return eff, true, nil
	}
	return handlers.Effect{}, false, nil
}

// issueFieldOf is the form field of a request field the API named; "" for
// the message above the form.
func issueFieldOf(apiField string) string {
	switch apiField {
	case "cardName":
		return "card_name"
	case "cardColor":
		return "card_color"
	case "deliveryAddress":
		return "delivery_address"
	case "deliveryState":
		return "delivery_state"
	case "deliveryPhoneNumber":
		return "delivery_phone"
	case "otpChannel":
		return "otp_channel"
	case "nin", "pan", "type", "state":
		return apiField
	}
	return ""
}

// Issue requests a card (POST /cards), once per form: the form's token is
// the action's key. The NIN and card number are sent once and never kept or
// shown again.
func (h *Handler) Issue(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	t, in, ok := h.postedIssueForm(w, r)
	if !ok {
		return
	}
	f, wallet, emp := &t.form, t.wallet, t.employee
	page := func(status int, result *views.CardIssueResult) {
		h.render(w, r, status, "Issue a card", views.CardIssuePage(views.CardIssueView{Form: f, Result: result}), nil)
	}
	validateIssue(f, &in, r)
	if f.Fields.Any() {
		page(http.StatusUnprocessableEntity, nil)
		return
	}
	req := apiclient.CreateCardRequest{CardName: f.CardName, CardColor: f.CardColor, Currency: apiclient.Fiat(f.Currency),
		Type: f.Type, SmartWalletID: wallet.ID, NIN: in.nin, State: f.State, OTPChannel: f.OTPChannel, PAN: in.pan}
	if f.Type == "physical" && in.pan == "" {
		req.DeliveryAddress, req.DeliveryState, req.DeliveryPhoneNumber = f.Address, f.DeliveryState, in.phone
		f.Phone = in.phone
	}
	known, err := h.Store.WalletCardIDs(ctx, wallet.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	c := cardRequest{WalletID: wallet.ID, EmployeeID: emp.ID, UserID: emp.ServiceUserID, CardName: f.CardName,
		CardColor: f.CardColor, Currency: f.Currency, Type: f.Type, DeliveryState: req.DeliveryState,
		NINGiven: in.nin != "", PANGiven: in.pan != "", Known: known}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindIssue, Target: "wallet:" + wallet.ID, Actor: handlers.ActorFrom(ctx),
		Request: c,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			res, err := h.API.CreateCard(ctx, c.UserID, req)
			if err != nil {
				return handlers.Effect{}, err
			}
			return h.issueEffect(c, issuedFrom(res)), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	f.FormToken = handlers.NewFormToken()
	var res cardIssued
	if d.State() == store.ActionDone && d.Action.DecodeResult(&res) == nil {
		result := h.issueResult(r, c, emp, res)
		if d.Repeat {
			result.Message = handlers.RepeatWords(d.Action)
		}
		if res.MigrationRequired || res.ProposalID == "" {
			page(http.StatusConflict, &result)
			return
		}
		h.render(w, r, http.StatusCreated, "Card requested", views.CardIssuePage(views.CardIssueView{Result: &result}), nil)
		return
	}
	page(issueNotDone(f, d), nil)
}

// issueNotDone puts a request that did not end done into the form's words
// and returns the status to answer with.
func issueNotDone(f *views.CardIssueForm, d handlers.Done) int {
	switch {
	case d.Repeat:
		f.Message = handlers.RepeatWords(d.Action)
	case d.State() == store.ActionRefused:
		p := d.Problem
		for k, m := range p.Fields {
			if fld := issueFieldOf(k); fld != "" {
				f.Fields[fld] = issueMessage(fld, maskDigits(m))
			}
		}
		if p.Status == http.StatusBadRequest && !f.Fields.Any() {
			// spec: "omitting nin for an owner never issued a card returns
			// 400 code E101 ('not enrolled for cards')": the API's
			// explanation goes next to the NIN, which is asked for again.
			f.NeedsNIN = true
			f.Fields["nin"] = maskDigits(p.Summary)
		} else {
			f.Message = "No card was requested: " + maskDigits(p.Summary)
		}
	default:
		f.Message = maskDigits(d.Problem.Summary) + " Check this employee's cards (Cards page, re-read the card lists) before requesting it again."
	}
	if d.State() == store.ActionRefused && f.Fields.Any() {
		return http.StatusUnprocessableEntity
	}
	return failedStatus(d)
}

// issueSecrets are what the form posts that never goes back to the page:
// the NIN, the card number, and the delivery phone once normalised.
type issueSecrets struct {
	nin, pan, phone string
}

// postedIssueForm reads the posted form onto the wallet's empty form
// (false when the wallet cannot take a card: answered already).
func (h *Handler) postedIssueForm(w http.ResponseWriter, r *http.Request) (issueTarget, issueSecrets, bool) {
	walletID := r.PostFormValue("wallet_id")
	if walletID == "" || checkText(walletID, 100, "") != "" {
		h.ErrorPage(w, r, http.StatusUnprocessableEntity, "Choose a wallet", "Choose the employee's wallet the card is issued on.")
		return issueTarget{}, issueSecrets{}, false
	}
	t, ok := h.issueFormFor(w, r, walletID)
	if !ok {
		return issueTarget{}, issueSecrets{}, false
	}
	f := &t.form
	f.FormToken = formToken(r)
	f.CardName = strings.TrimSpace(r.PostFormValue("card_name"))
	f.CardColor = strings.TrimSpace(r.PostFormValue("card_color"))
	f.Type = r.PostFormValue("type")
	f.State = strings.TrimSpace(r.PostFormValue("state"))
	f.Address = strings.TrimSpace(r.PostFormValue("delivery_address"))
	f.DeliveryState = strings.TrimSpace(r.PostFormValue("delivery_state"))
	f.Phone = strings.TrimSpace(r.PostFormValue("delivery_phone"))
	f.OTPChannel = r.PostFormValue("otp_channel")
	f.NINHolder = r.PostFormValue("nin_holder")
	if handlers.CheckText(f.NINHolder, 200, false) != "" {
		f.NINHolder = ""
	}
	in := issueSecrets{nin: strings.TrimSpace(r.PostFormValue("nin")),
		pan: strings.NewReplacer(" ", "", "-", "").Replace(r.PostFormValue("pan"))}
	f.NINEntered, f.PANEntered = in.nin != "", in.pan != ""
	if in.nin != "" {
		f.NeedsNIN = true // asked for it: keep asking after a re-render
	}
	return t, in, true
}

// validateIssue checks the form, putting each problem beside its field,
// and normalises the delivery phone into in.
func validateIssue(f *views.CardIssueForm, in *issueSecrets, r *http.Request) {
	if msg := checkText(f.CardName, 0, "The card name"); msg != "" {
		f.Fields["card_name"] = msg
	} else if n := utf8.RuneCountInString(f.CardName); n < 1 || n > apiclient.MaxCardNameLength {
		f.Fields["card_name"] = "The card name is 1 to 50 characters."
	}
	if !colorPattern.MatchString(f.CardColor) {
		f.Fields["card_color"] = "A colour is #RGB or #RRGGBB in hex digits, such as #1E88E5."
	}
	if f.Type != "virtual" && f.Type != "physical" {
		f.Type = "virtual"
		f.Fields["type"] = "Choose virtual or physical."
	}
	validateNIN(f, in.nin, r.PostFormValue("holder_confirmed") == "1")
	if f.State != "" && !knownState(f.State) {
		f.State, f.Fields["state"] = "", "Choose a Nigerian state from the list."
	}
	if f.OTPChannel != "" && f.OTPChannel != "sms" && f.OTPChannel != "email" {
		f.OTPChannel, f.Fields["otp_channel"] = "", "Choose sms or email."
	}
	switch {
	case f.Type == "virtual" && in.pan != "":
		f.Fields["pan"] = "A card number applies only to an existing physical card. Leave it empty for a virtual card."
	case in.pan != "":
		if len(in.pan) < 13 || len(in.pan) > 19 || !isDigits(in.pan) {
			f.Fields["pan"] = "A card number is 13 to 19 digits. Type it again."
		}
	case f.Type == "physical":
		validateDelivery(f, in)
	}
	if msg := checkText(f.Phone, 30, "The phone number"); msg != "" {
		f.Phone, f.Fields["delivery_phone"] = "", msg
	}
}

// validateNIN checks the NIN a first card needs: 11 digits, looked up
// first and its holder confirmed by staff (the lookup's answer is not
// kept, so the confirmation comes back with the form).
func validateNIN(f *views.CardIssueForm, nin string, confirmed bool) {
	switch {
	case f.NeedsNIN && nin == "":
		f.Fields["nin"] = "This employee has never had a card: their 11-digit NIN is required."
	case nin != "" && (len(nin) != 11 || !isDigits(nin)):
		f.Fields["nin"] = "The NIN is exactly 11 digits. Type it again."
	case f.FirstCard && f.NINHolder == "":
		f.Fields["nin"] = "Look up the NIN first, then confirm whose it is."
	case f.FirstCard && !confirmed:
		f.Fields["holder_confirmed"] = "Tick the box to confirm the NIN belongs to this employee."
	}
}

// validateDelivery checks where a new physical card goes.
func validateDelivery(f *views.CardIssueForm, in *issueSecrets) {
	if msg := checkText(f.Address, 200, "The delivery address"); msg != "" {
		f.Fields["delivery_address"] = msg
	} else if f.Address == "" {
		f.Fields["delivery_address"] = "Enter the delivery address, or the number of an existing card."
	}
	if f.DeliveryState == "" || !knownState(f.DeliveryState) {
		f.DeliveryState, f.Fields["delivery_state"] = "", "Choose the delivery state."
	}
	p, ok := NormalizeNigerianPhone(f.Phone)
	if !ok {
		f.Fields["delivery_phone"] = "Enter a Nigerian number: +234, 234 or 0 followed by 10 digits."
	}
	in.phone = p
}

// issueResult is the issuance's outcome on screen. The approval page is
// linked only for those who may open it; everyone sees where it stands.
func (h *Handler) issueResult(r *http.Request, c cardRequest, emp store.Employee, res cardIssued) views.CardIssueResult {
	return views.CardIssueResult{CardName: c.CardName, EmployeeName: emp.Name(),
		Issuance: views.CardIssuance{ProposalID: res.ProposalID, Status: res.ProposalStatus, CanOpenApproval: canOpenApproval(r)},
		Fee:      res.fee(), SignReady: res.SignReady, SignPending: res.SignPending, SignHint: res.SignHint,
		SignError: res.SignError, SignDeadline: res.SignDeadline,
		MigrationRequired: res.MigrationRequired, MigrationHint: res.MigrationHint}
}

// issueMessage keeps the API's words for a field, except for the NIN and
// PAN, which get the app's own (an upstream message is not trusted not to
// echo the number).
func issueMessage(field, msg string) string {
	switch field {
	case "nin":
		return "The API refused the NIN: it is exactly 11 digits. Type it again."
	case "pan":
		return "The API refused the card number: it is 13 to 19 digits. Type it again."
	}
	return msg
}

// maskDigits hides any run of more than six digits (a card or identity
// number) in text from upstream before it is shown.
func maskDigits(s string) string {
	var b strings.Builder
	run := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			run++
			if run > 6 {
				b.WriteRune('•')
				continue
			}
		} else {
			run = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}
