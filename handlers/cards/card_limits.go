package cards

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// limitsView reads GET /limits: the limits and the provider caps.
func (h *Handler) limitsView(ctx context.Context, hit store.CardHit, canWrite bool) views.CardLimitsView {
	v := views.CardLimitsView{CardID: hit.ID, Currency: hit.Currency, CanWrite: canWrite}
	l, err := h.API.GetCardLimits(ctx, hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(ctx, "card limits", "card", hit.ID, "err", err)
		v.Error = apiclient.ReadWords(err) + " Limits could not be read, so they cannot be changed now."
		return v
	}
	fillLimits(&v, l, hit.Currency)
	v.ReadAt = h.Clock()
	v.Form = views.CardLimitsForm{TotalDaily: l.TotalDailyLimit.String(), MaxSingle: l.MaxSingleTransactionAmount.String(),
		FormToken: handlers.NewFormToken()}
	return v
}

func fillLimits(v *views.CardLimitsView, l *apiclient.CardLimits, cardCurrency string) {
	cur := string(l.Currency)
	if cur == "" {
		cur = cardCurrency
	}
	amt := func(d apiclient.DecimalNumber) views.Amount { return views.Amount{Value: d.Decimal, Currency: cur} }
	v.Loaded = true
	v.Current = views.CardLimitsNow{
		TotalDaily: amt(l.TotalDailyLimit), MaxSingle: amt(l.MaxSingleTransactionAmount),
		AvailableDaily: amt(l.AvailableDailyLimit), CapDaily: amt(l.MaxTotalDailyLimit), CapSingle: amt(l.MaxSingleTransactionLimitCap),
	}
}

var (
	// plainAmount is digits with an optional decimal point: 1500, 1500.50.
	plainAmount = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	// groupedAmount has commas between groups of three digits: 1,500.50.
	groupedAmount = regexp.MustCompile(`^[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$`)
)

// parseLimit reads a limit typed by a person, in major units of the card
// currency (spec: limits are numbers in major units, never minor units). A
// comma is accepted only as a thousands separator (1,500.50); "1,50" is
// refused, not read as 150. No more decimals than the currency's minor
// units are accepted.
func parseLimit(s, currency string) (decimal.Decimal, string) {
	s = strings.TrimSpace(s)
	places := minorUnits(currency)
	switch {
	case s == "":
		return decimal.Zero, "Enter an amount."
	case len(s) > 32:
		return decimal.Zero, "Enter an amount such as 1500 or 1,500.50."
	case strings.HasPrefix(s, "-"):
		return decimal.Zero, "The amount must be more than zero."
	}
	plain := s
	if strings.Contains(s, ",") {
		if !groupedAmount.MatchString(s) {
			return decimal.Zero, "“" + s + "” is not an amount: a comma only separates thousands, as in 1,500.50, and decimals follow a point, as in 1.50."
		}
		plain = strings.ReplaceAll(s, ",", "")
	}
	if !plainAmount.MatchString(plain) {
		return decimal.Zero, "Enter an amount such as 1500 or 1,500.50."
	}
	if _, frac, ok := strings.Cut(plain, "."); ok && int32(len(frac)) > places {
		return decimal.Zero, currency + " amounts have at most " + strconv.Itoa(int(places)) + " decimal places."
	}
	d, err := decimal.NewFromString(plain)
	if err != nil {
		return decimal.Zero, "Enter an amount such as 1500 or 1,500.50."
	}
	if !d.IsPositive() {
		return decimal.Zero, "The amount must be more than zero."
	}
	return d, ""
}

// parseLimits reads the form's two limits, putting a problem beside its
// field.
func parseLimits(form *views.CardLimitsForm, currency string) (daily, single decimal.Decimal) {
	daily, dmsg := parseLimit(form.TotalDaily, currency)
	single, smsg := parseLimit(form.MaxSingle, currency)
	if dmsg != "" {
		form.Fields["total_daily"] = dmsg
	}
	if smsg != "" {
		form.Fields["max_single"] = smsg
	}
	return daily, single
}

// limitsChange is a change of limits as the ledger keeps it.
type limitsChange struct {
	CardID     string          `json:"cardId"`
	UserID     string          `json:"userId"`
	Currency   string          `json:"currency"`
	TotalDaily decimal.Decimal `json:"totalDaily"`
	MaxSingle  decimal.Decimal `json:"maxSingle"`
	WasDaily   decimal.Decimal `json:"wasDaily"`
	WasSingle  decimal.Decimal `json:"wasSingle"`
}

func (c limitsChange) words() string {
	amt := func(d decimal.Decimal) string { return views.Amount{Value: d, Currency: c.Currency}.String() }
	return "daily " + amt(c.TotalDaily) + ", single " + amt(c.MaxSingle) +
		" (was daily " + amt(c.WasDaily) + ", single " + amt(c.WasSingle) + ")"
}

// readBackLimits learns from GET /limits whether the limits were set.
func (h *Handler) readBackLimits(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
	var c limitsChange
	if err := a.DecodeRequest(&c); err != nil {
		return handlers.Effect{}, false, err
	}
	l, err := h.API.GetCardLimits(ctx, c.UserID, c.CardID)
	if err != nil {
		return handlers.Effect{}, false, err
	}
	if !l.TotalDailyLimit.Equal(c.TotalDaily) || !l.MaxSingleTransactionAmount.Equal(c.MaxSingle) {
		return handlers.Effect{}, false, nil
	}
	return handlers.Effect{Detail: c.words()}, true, nil
}

// limitField is the form field of a request field the API named; "" for
// the message above the form.
func limitField(apiField string) string {
	switch apiField {
	case "totalDailyLimit":
		return "total_daily"
	case "maxSingleTransactionAmount":
		return "max_single"
	}
	return ""
}

// SetLimits changes totalDailyLimit and maxSingleTransactionAmount after
// reading the provider caps (spec: "read before setting limits"). Every
// field is checked and every mistake shown at once, as the API does.
func (h *Handler) SetLimits(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	form := views.CardLimitsForm{TotalDaily: r.PostFormValue("total_daily"), MaxSingle: r.PostFormValue("max_single"),
		Fields: views.FieldErrors{}, FormToken: formToken(r), Posted: true}
	again := func(status int, msg string) {
		h.showDetail(w, r, hit, status, nil, func(v *views.CardDetailView) {
			v.Limits.Form = form
			v.Limits.Error = msg
		})
	}
	if hit.Reserved {
		again(http.StatusConflict, "This card is not issued yet: it has no limits.")
		return
	}
	daily, single := parseLimits(&form, hit.Currency)
	caps, err := h.API.GetCardLimits(ctx, hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(ctx, "card limits before set", "card", hit.ID, "err", err)
		if form.Fields.Any() {
			again(http.StatusUnprocessableEntity, "The provider caps could not be read, so the amounts were not checked against them.")
			return
		}
		again(http.StatusBadGateway, apiclient.ReadWords(err)+" The provider caps could not be read, so nothing was sent. Try again.")
		return
	}
	cur := string(caps.Currency)
	if cur == "" {
		cur = hit.Currency
	}
	req := checkLimits(&form, daily, single, caps, cur)
	if form.Fields.Any() {
		again(http.StatusUnprocessableEntity, "")
		return
	}
	c := limitsChange{CardID: hit.ID, UserID: hit.ServiceUserID, Currency: cur, TotalDaily: daily, MaxSingle: single,
		WasDaily: caps.TotalDailyLimit.Decimal, WasSingle: caps.MaxSingleTransactionAmount.Decimal}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindLimits, Target: target(hit.ID), Actor: handlers.ActorFrom(ctx), Request: c,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if err := h.API.SetCardLimits(ctx, c.UserID, c.CardID, req); err != nil {
				return handlers.Effect{}, err
			}
			return handlers.Effect{Detail: c.words()}, nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	switch {
	case d.Repeat:
		h.Flash(r, "info", handlers.RepeatWords(d.Action))
		h.Redirect(w, r, "/cards/"+hit.ID+"#limits")
		return
	case d.State() == store.ActionDone:
		h.Flash(r, "ok", "Limits saved: "+c.words()+".")
		h.Redirect(w, r, "/cards/"+hit.ID+"#limits")
		return
	}
	msg := d.Problem.Summary
	if d.State() == store.ActionRefused {
		msg = "The limits were not changed: " + msg
		for k, m := range d.Problem.Fields {
			if f := limitField(k); f != "" {
				form.Fields[f] = m
			}
		}
	}
	form.FormToken = handlers.NewFormToken()
	again(failedStatus(d), msg)
}

// checkLimits checks the amounts that parsed against the provider caps,
// each other and the client's own rules (the API's), putting each problem
// beside its field; it returns the request to send.
func checkLimits(form *views.CardLimitsForm, daily, single decimal.Decimal, caps *apiclient.CardLimits, cur string) apiclient.SetCardLimitsRequest {
	dailyOK, singleOK := !form.Fields.Has("total_daily"), !form.Fields.Has("max_single")
	if capD := caps.MaxTotalDailyLimit.Decimal; dailyOK && capD.IsPositive() && daily.GreaterThan(capD) {
		form.Fields["total_daily"] = "The provider allows at most " + views.Amount{Value: capD, Currency: cur}.String() + " a day."
	}
	if capS := caps.MaxSingleTransactionLimitCap.Decimal; singleOK && capS.IsPositive() && single.GreaterThan(capS) {
		form.Fields["max_single"] = "The provider allows at most " + views.Amount{Value: capS, Currency: cur}.String() + " per transaction."
	}
	if dailyOK && !form.Fields.Has("max_single") && single.GreaterThan(daily) {
		form.Fields["max_single"] = "A single transaction cannot be more than the daily limit."
	}
	req := apiclient.SetCardLimitsRequest{TotalDailyLimit: apiclient.NewDecimalNumber(daily),
		MaxSingleTransactionAmount: apiclient.NewDecimalNumber(single), Caps: caps}
	if !form.Fields.Any() {
		// The client's own check, the same rules as the API's.
		for k, m := range apiclient.ValidationFields(req.Validate()) {
			f := limitField(k)
			if f == "" {
				f = "total_daily"
			}
			form.Fields[f] = m
		}
	}
	return req
}
