package cards

import (
	"context"
	"net/http"
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
		v.Error = upstreamWords(err) + " Limits could not be read, so they cannot be changed now."
		return v
	}
	fillLimits(&v, l, hit.Currency)
	v.ReadAt = h.Now()
	v.Form = views.CardLimitsForm{TotalDaily: l.TotalDailyLimit.String(), MaxSingle: l.MaxSingleTransactionAmount.String()}
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

// parseLimit reads a major-unit amount typed by a person: digits with at
// most two decimals, thousands separators allowed.
func parseLimit(s string) (decimal.Decimal, string) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if s == "" {
		return decimal.Zero, "Enter an amount."
	}
	d, err := decimal.NewFromString(s)
	if err != nil || strings.ContainsAny(s, "eE") {
		return decimal.Zero, "Enter an amount such as 1500 or 1500.50."
	}
	if !d.IsPositive() {
		return decimal.Zero, "The amount must be more than zero."
	}
	if d.Exponent() < -minorPlaces && !d.Equal(d.Round(minorPlaces)) {
		return decimal.Zero, "Use at most two decimal places."
	}
	return d, ""
}

// SetLimits changes totalDailyLimit and maxSingleTransactionAmount after
// reading the provider caps (spec: "read before setting limits").
func (h *Handler) SetLimits(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hit, ok := h.loadCard(w, r)
	if !ok {
		return
	}
	form := views.CardLimitsForm{TotalDaily: r.PostFormValue("total_daily"), MaxSingle: r.PostFormValue("max_single"), Fields: views.FieldErrors{}}
	entry := store.AuditEntry{Actor: handlers.ActorFrom(ctx), Action: "card.limits", Target: target(hit.ID)}
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
	daily, dmsg := parseLimit(form.TotalDaily)
	single, smsg := parseLimit(form.MaxSingle)
	if dmsg != "" {
		form.Fields["total_daily"] = dmsg
	}
	if smsg != "" {
		form.Fields["max_single"] = smsg
	}
	if form.Fields.Any() {
		again(http.StatusUnprocessableEntity, "")
		return
	}
	caps, err := h.API.GetCardLimits(ctx, hit.ServiceUserID, hit.ID)
	if err != nil {
		h.Logger.WarnContext(ctx, "card limits before set", "card", hit.ID, "err", err)
		again(http.StatusBadGateway, upstreamWords(err)+" The provider caps could not be read, so nothing was sent. Try again.")
		return
	}
	req := apiclient.SetCardLimitsRequest{
		TotalDailyLimit: apiclient.NewDecimalNumber(daily), MaxSingleTransactionAmount: apiclient.NewDecimalNumber(single), Caps: caps,
	}
	cur := string(caps.Currency)
	if cur == "" {
		cur = hit.Currency
	}
	if capD := caps.MaxTotalDailyLimit.Decimal; capD.IsPositive() && daily.GreaterThan(capD) {
		form.Fields["total_daily"] = "The provider allows at most " + views.Amount{Value: capD, Currency: cur}.String() + " a day."
	}
	if capS := caps.MaxSingleTransactionLimitCap.Decimal; capS.IsPositive() && single.GreaterThan(capS) {
		form.Fields["max_single"] = "The provider allows at most " + views.Amount{Value: capS, Currency: cur}.String() + " per transaction."
	}
	if !form.Fields.Has("max_single") && single.GreaterThan(daily) {
		form.Fields["max_single"] = "A single transaction cannot be more than the daily limit."
	}
	if form.Fields.Any() {
		again(http.StatusUnprocessableEntity, "")
		return
	}
	if err := req.Validate(); err != nil {
		for k, m := range apiclient.ValidationFields(err) {
			form.Fields[limitField(k)] = m
		}
		again(http.StatusUnprocessableEntity, "")
		return
	}
	detail := "daily " + views.Amount{Value: daily, Currency: cur}.String() + ", single " + views.Amount{Value: single, Currency: cur}.String() +
		" (was daily " + views.Amount{Value: caps.TotalDailyLimit.Decimal, Currency: cur}.String() + ", single " +
		views.Amount{Value: caps.MaxSingleTransactionAmount.Decimal, Currency: cur}.String() + ")"
	wctx, cancel := h.writeContext(r)
	defer cancel()
	err = h.API.SetCardLimits(wctx, hit.ServiceUserID, hit.ID, req)
	if err != nil {
		h.Logger.WarnContext(ctx, "set card limits", "card", hit.ID, "err", err)
		entry.Outcome, entry.Detail = store.OutcomeFailed, auditDetail(detail, "not applied")
		msg := upstreamWords(err) + " The limits may not have changed; they were not sent again."
		status := http.StatusBadGateway
		switch {
		case apiclient.IsValidation(err):
			entry.Outcome = store.OutcomeRefused
			for k, m := range apiclient.ValidationFields(err) {
				form.Fields[limitField(k)] = m
			}
			msg, status = "The API refused these limits.", http.StatusUnprocessableEntity
		case statusNotAllowed(err):
			entry.Outcome = store.OutcomeRefused
			msg, status = "The issuer does not allow limits on this card in its current status.", http.StatusConflict
		}
		if aerr := h.Store.Audit(wctx, entry); aerr != nil {
			h.ServerError(w, r, aerr)
			return
		}
		again(status, msg)
		return
	}
	entry.Outcome, entry.Detail = store.OutcomeOK, detail
	if aerr := h.Store.Audit(wctx, entry); aerr != nil {
		h.ServerError(w, r, aerr)
		return
	}
	h.Flash(r, "ok", "Limits saved: "+detail+".")
	h.Redirect(w, r, "/cards/"+hit.ID+"#limits")
}

func limitField(apiField string) string {
	switch apiField {
	case "totalDailyLimit":
		return "total_daily"
	case "maxSingleTransactionAmount":
		return "max_single"
	}
	return "total_daily"
}
