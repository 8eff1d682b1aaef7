package cards

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// nigerianStates are the delivery states offered (36 states and the FCT).
func nigerianStates() [37]string {
	return [37]string{"Abia", "Adamawa", "Akwa Ibom", "Anambra", "Bauchi", "Bayelsa", "Benue", "Borno",
		"Cross River", "Delta", "Ebonyi", "Edo", "Ekiti", "Enugu", "FCT", "Gombe", "Imo", "Jigawa", "Kaduna", "Kano",
		"Katsina", "Kebbi", "Kogi", "Kwara", "Lagos", "Nasarawa", "Niger", "Ogun", "Ondo", "Osun", "Oyo", "Plateau",
		"Rivers", "Sokoto", "Taraba", "Yobe", "Zamfara"}
}

func knownState(s string) bool {
	for _, x := range nigerianStates() {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
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
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	v := views.CardIssueView{Query: q}
	if id := r.URL.Query().Get("wallet"); id != "" {
		f, status, ok := h.issueFormFor(w, r, id)
		if !ok {
			return
		}
		v.Form = &f
		h.render(w, r, status, "Issue a card", views.CardIssuePage(v), nil)
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

// issueFormFor builds the empty form for a wallet.
func (h *Handler) issueFormFor(w http.ResponseWriter, r *http.Request, walletID string) (views.CardIssueForm, int, bool) {
	ctx := r.Context()
	wallet, err := h.Store.WalletByID(ctx, walletID)
	if errors.Is(err, store.ErrNotFound) {
		h.NotFound(w, r)
		return views.CardIssueForm{}, 0, false
	}
	if err != nil {
		h.ServerError(w, r, err)
		return views.CardIssueForm{}, 0, false
	}
	emp, err := h.Store.EmployeeByID(ctx, wallet.EmployeeID)
	if err != nil {
		h.ServerError(w, r, err)
		return views.CardIssueForm{}, 0, false
	}
	cur, ok := cardCurrencyOf(wallet)
	if !ok || emp.ServiceUserID == "" {
		h.ErrorPage(w, r, http.StatusConflict, "No cards on this wallet", "Cards are issued in NGN or USD, on an employee's CNGN or USDB wallet.")
		return views.CardIssueForm{}, 0, false
	}
	// Re-read the employee's card lists first, so "never had a card" (and
	// with it the NIN question) is decided on what the API says now.
	if h.Indexer != nil && h.Indexer.API != nil {
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
		return views.CardIssueForm{}, 0, false
	}
	states := nigerianStates()
	return views.CardIssueForm{WalletID: wallet.ID, EmployeeName: emp.Name(), Currency: cur, Token: wallet.Currency,
		Legacy: wallet.Legacy, NeedsNIN: !had, CardColor: "#1E88E5", Type: "virtual", Fields: views.FieldErrors{},
		States: states[:]}, http.StatusOK, true
}

// Issue requests a card (POST /cards). Nothing is ever sent twice: an
// unclear failure says so and keeps the form, minus the NIN and PAN.
func (h *Handler) Issue(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	walletID := r.PostFormValue("wallet_id")
	if walletID == "" {
		h.ErrorPage(w, r, http.StatusUnprocessableEntity, "Choose a wallet", "Choose the employee's wallet the card is issued on.")
		return
	}
	f, _, ok := h.issueFormFor(w, r, walletID)
	if !ok {
		return
	}
	wallet, _ := h.Store.WalletByID(ctx, walletID)
	emp, _ := h.Store.EmployeeByID(ctx, wallet.EmployeeID)
	f.CardName = strings.TrimSpace(r.PostFormValue("card_name"))
	f.CardColor = strings.TrimSpace(r.PostFormValue("card_color"))
	f.Type = r.PostFormValue("type")
	f.State = strings.TrimSpace(r.PostFormValue("state"))
	f.Address = strings.TrimSpace(r.PostFormValue("delivery_address"))
	f.DeliveryState = strings.TrimSpace(r.PostFormValue("delivery_state"))
	f.Phone = strings.TrimSpace(r.PostFormValue("delivery_phone"))
	f.OTPChannel = r.PostFormValue("otp_channel")
	nin := strings.TrimSpace(r.PostFormValue("nin"))
	pan := strings.NewReplacer(" ", "", "-", "").Replace(r.PostFormValue("pan"))
	f.NINEntered, f.PANEntered = nin != "", pan != ""
	if nin != "" {
		f.NeedsNIN = true // asked for it: keep asking after a re-render
	}
	page := func(status int) {
		h.render(w, r, status, "Issue a card", views.CardIssuePage(views.CardIssueView{Form: &f}), nil)
	}

	if n := utf8.RuneCountInString(f.CardName); n < 1 || n > apiclient.MaxCardNameLength {
		f.Fields["card_name"] = "The card name is 1 to 50 characters."
	}
	if !colorPattern.MatchString(f.CardColor) {
		f.Fields["card_color"] = "A colour is #RGB or #RRGGBB in hex digits, such as #1E88E5."
	}
	if f.Type != "virtual" && f.Type != "physical" {
		f.Fields["type"] = "Choose virtual or physical."
	}
	if f.NeedsNIN && nin == "" {
		f.Fields["nin"] = "This employee has never had a card: their 11-digit NIN is required."
	} else if nin != "" && (len(nin) != 11 || !isDigits(nin)) {
		f.Fields["nin"] = "The NIN is exactly 11 digits. Type it again."
	}
	if f.State != "" && !knownState(f.State) {
		f.Fields["state"] = "Choose a Nigerian state from the list."
	}
	if f.OTPChannel != "" && f.OTPChannel != "sms" && f.OTPChannel != "email" {
		f.Fields["otp_channel"] = "Choose sms or email."
	}
	phone := ""
	switch {
	case f.Type == "virtual" && pan != "":
		f.Fields["pan"] = "A card number applies only to an existing physical card. Leave it empty for a virtual card."
	case pan != "":
		if len(pan) < 13 || len(pan) > 19 || !isDigits(pan) {
			f.Fields["pan"] = "A card number is 13 to 19 digits. Type it again."
		}
	case f.Type == "physical":
		if f.Address == "" {
			f.Fields["delivery_address"] = "Enter the delivery address, or the number of an existing card."
		}
		if f.DeliveryState == "" || !knownState(f.DeliveryState) {
			f.Fields["delivery_state"] = "Choose the delivery state."
		}
		p, ok := NormalizeNigerianPhone(f.Phone)
		if !ok {
			f.Fields["delivery_phone"] = "Enter a Nigerian number: +234, 234 or 0 followed by 10 digits."
		}
		phone = p
	}
	if f.Fields.Any() {
		page(http.StatusUnprocessableEntity)
		return
	}
	req := apiclient.CreateCardRequest{CardName: f.CardName, CardColor: f.CardColor, Currency: apiclient.Fiat(f.Currency),
		Type: f.Type, SmartWalletID: wallet.ID, NIN: nin, State: f.State, OTPChannel: f.OTPChannel, PAN: pan}
	if f.Type == "physical" && pan == "" {
		req.DeliveryAddress, req.DeliveryState, req.DeliveryPhoneNumber = f.Address, f.DeliveryState, phone
		f.Phone = phone
	}
	entry := store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: "card.issue", Target: "wallet:" + wallet.ID}
	what := f.Currency + " " + f.Type + " card " + f.CardName
	wctx, cancel := h.writeContext(r)
	defer cancel()
	res, err := h.API.CreateCard(wctx, emp.ServiceUserID, req)
	if err != nil {
		h.Logger.WarnContext(ctx, "issue card", "wallet", wallet.ID, "err", err)
		entry.Outcome, entry.Detail = store.OutcomeRefused, what
		status := http.StatusUnprocessableEntity
		var e *apiclient.Error
		switch {
		case asErr(err, &e) && e.StatusCode == http.StatusBadRequest && e.Code == "E101":
			// spec: "omitting nin for an owner never issued a card returns
			// 400 code E101 ('not enrolled for cards')"
			f.NeedsNIN = true
			f.Fields["nin"] = "This employee is not enrolled for cards yet: their 11-digit NIN is required."
		case apiclient.ValidationFields(err) != nil:
			for k, m := range apiclient.ValidationFields(err) {
				f.Fields[issueField(k)] = issueMessage(k, m)
			}
			if !f.Fields.Any() {
				f.Message = "The API refused the request as invalid."
			}
		case apiclient.StatusCode(err) == http.StatusBadRequest:
			f.Message = "The API refused the request: " + safeMessage(e) + "."
		default:
			entry.Outcome = store.OutcomeFailed
			status = http.StatusBadGateway
			f.Message = upstreamWords(err) + " The request may or may not have reached the API, and it was not sent again. " +
				"Check this employee's cards (Cards page, re-read the card lists) before submitting again."
		}
		if aerr := h.Store.Audit(wctx, entry); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		page(status)
		return
	}
	result := views.CardIssueResult{CardName: f.CardName, EmployeeName: f.EmployeeName, ProposalID: res.ProposalID,
		ProposalStatus: string(res.ProposalStatus), SignReady: res.SignPayload != nil, SignPending: res.SignPayloadPending,
		SignHint: res.SignPayloadHint, SignError: res.SignPayloadError,
		MigrationRequired: res.MigrationRequired, MigrationHint: res.MigrationHint}
	if res.SignPayload != nil {
		result.SignDeadline = res.SignPayload.Deadline
	}
	if res.FeeCurrency != "" {
		cur := res.FeeCurrency
		if fiat, ok := apiclient.Stablecoin(res.FeeCurrency).Fiat(); ok {
			cur = string(fiat)
		}
		result.Fee = &views.Amount{Value: res.FeeAmount, Currency: cur, Token: res.FeeCurrency}
	}
	if res.MigrationRequired || res.ProposalID == "" {
		entry.Outcome, entry.Detail = store.OutcomeRefused, auditDetail(what, "legacy wallet: migration required")
		if aerr := h.Store.Audit(wctx, entry); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		h.render(w, r, http.StatusConflict, "Issue a card", views.CardIssuePage(views.CardIssueView{Form: &f, Result: &result}), nil)
		return
	}
	fee := ""
	if result.Fee != nil {
		fee = "fee " + result.Fee.String()
	}
	entry.Outcome, entry.Detail = store.OutcomeOK, auditDetail(what, "proposal "+res.ProposalID+" "+string(res.ProposalStatus), fee)
	reserved := store.CardEntry{ID: res.ProposalID, WalletID: wallet.ID, EmployeeID: emp.ID, CardName: f.CardName,
		CardColor: f.CardColor, Currency: f.Currency, Type: f.Type, Status: string(apiclient.CardReserved), Reserved: true,
		ProposalID: res.ProposalID, ProposalStatus: string(res.ProposalStatus)}
	if err := h.Store.CardIssued(wctx, reserved, entry, h.Now()); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.render(w, r, http.StatusCreated, "Card requested", views.CardIssuePage(views.CardIssueView{Result: &result}), nil)
}

func issueField(apiField string) string {
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
	return "card_name"
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

// safeMessage is an upstream message with any long digit run (a card or
// identity number) masked.
func safeMessage(e *apiclient.Error) string {
	if e == nil {
		return "no reason given"
	}
	var b strings.Builder
	run := 0
	for _, r := range e.Message() {
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
	return strings.TrimSuffix(b.String(), ".")
}
