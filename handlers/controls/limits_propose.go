package controls

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// ProposeLimits records an owner's proposed spending policy of a wallet;
// a second owner approves it on the same page.
func (h *Handler) ProposeLimits(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !handlers.ValidFormToken(r.PostFormValue(handlers.FormTokenField)) {
		h.StaleForm(w, r)
		return
	}
	f := views.LimitsForm{Token: r.PostFormValue(handlers.FormTokenField), WalletID: r.PostFormValue("wallet_id"),
		Currency: strings.TrimSpace(r.PostFormValue("currency")), Day: r.PostFormValue("day"), Week: r.PostFormValue("week"),
		MaxShare: r.PostFormValue("max_share"), StepUpAbove: r.PostFormValue("step_up_above"),
		StepUpApprovals: strings.TrimSpace(r.PostFormValue("step_up_approvals")), StepUpBy: r.PostFormValue("step_up_by"), Fields: views.FieldErrors{}}
	_, wallets, err := h.store.Treasury(ctx)
	if err != nil && !errors.Is(err, store.ErrNoTreasury) {
		h.ServerError(w, r, err)
		return
	}
	var wallet *store.Wallet
	for i := range wallets {
		if wallets[i].ID == f.WalletID {
			wallet = &wallets[i]
		}
	}
	l := store.WalletLimits{}
	if wallet == nil {
		f.Fields["wallet_id"] = "Choose one of the treasury wallets."
	} else {
		l.Currency = wallet.Currency
		cur := strings.ToUpper(f.Currency)
		if cur != strings.ToUpper(fiat(wallet.Currency)) && cur != strings.ToUpper(wallet.Currency) {
			f.Fields["currency"] = "The wallet holds " + fiat(wallet.Currency) + ": its limits are in " + fiat(wallet.Currency) + ", not in another currency."
		}
	}
	l.Day = optionalAmount(f.Fields, "day", f.Day)
	l.Week = optionalAmount(f.Fields, "week", f.Week)
	l.MaxSharePercent = optionalAmount(f.Fields, "max_share", f.MaxShare)
	if l.MaxSharePercent.Valid && l.MaxSharePercent.Decimal.GreaterThan(decimal.NewFromInt(100)) {
		f.Fields["max_share"] = "A share of the balance is at most 100%."
	}
	if l.Day.Valid && l.Week.Valid && l.Week.Decimal.LessThan(l.Day.Decimal) {
		f.Fields["week"] = "The weekly limit cannot be below the daily one."
	}
	l.StepUpAbove = optionalAmount(f.Fields, "step_up_above", f.StepUpAbove)
	if l.StepUpAbove.Valid {
		n, err := strconv.Atoi(f.StepUpApprovals)
		if err != nil || n < 1 || n > 10 {
			f.Fields["step_up_approvals"] = "Give how many people approve in the app: 1 to 10."
		}
		l.StepUpApprovals = n
		named, msg, err := h.namedApprovers(ctx, f.StepUpBy)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		switch {
		case msg != "":
			f.Fields["step_up_by"] = msg
		case len(named) > 0 && len(named) < n:
			f.Fields["step_up_by"] = fmt.Sprintf("Name at least %d people: as many as the approvals asked for.", n)
		}
		l.StepUpBy = named
	} else if strings.TrimSpace(f.StepUpBy) != "" {
		f.Fields["step_up_by"] = "Named approvers go with a tier: give its amount too."
	}
	if !f.Fields.Any() && !l.Any() {
		f.Fields["day"] = "Give at least one limit."
	}
	if f.Fields.Any() {
		h.show(w, r, http.StatusUnprocessableEntity, func(v *views.ControlsView) { v.Limits = f })
		return
	}
	_, err = h.store.ProposePolicyChange(ctx, store.NewPolicyChange{Kind: store.PolicyLimits, Target: wallet.ID, Body: l,
		Summary: limitsWords(*wallet, l), By: handlers.ActorFrom(ctx), At: h.clock()})
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "The spending policy was proposed. A second owner must approve it; it is in force after the cooling-off period.")
	h.Redirect(w, r, "/controls#changes")
}

// namedApprovers reads the emails of the named step-up approvers: each
// an active staff member who may approve. None typed is none named.
func (h *Handler) namedApprovers(ctx context.Context, typed string) ([]int64, string, error) {
	if msg := handlers.CheckText(typed, 2000, false); msg != "" {
		return nil, msg, nil
	}
	var emails []string
	for _, e := range strings.Split(typed, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" && !slices.Contains(emails, e) {
			emails = append(emails, e)
		}
	}
	if len(emails) == 0 {
		return nil, "", nil
	}
	staff, err := h.store.ListStaff(ctx)
	if err != nil {
		return nil, "", err
	}
	var ids []int64
	for _, e := range emails {
		i := slices.IndexFunc(staff, func(s store.Staff) bool { return strings.EqualFold(s.Email, e) })
		if i < 0 || staff[i].Disabled || !staff[i].Role.Can(store.PermApprovalsAct) {
			return nil, e + " is not a staff member who may approve.", nil
		}
		ids = append(ids, staff[i].ID)
	}
	return ids, "", nil
}

// optionalAmount reads an amount that may be left empty (no limit).
func optionalAmount(fields views.FieldErrors, name, typed string) decimal.NullDecimal {
	if strings.TrimSpace(typed) == "" {
		return decimal.NullDecimal{}
	}
	a, msg := handlers.ParseAmount(typed, 2)
	if msg != "" {
		fields[name] = msg
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(a.Value)
}

// limitsWords is a wallet's policy in words.
func limitsWords(w store.Wallet, l store.WalletLimits) string {
	cur := fiat(w.Currency)
	var parts []string
	if l.Day.Valid {
		parts = append(parts, "at most "+views.FormatDecimal(l.Day.Decimal, 2)+" "+cur+" in 24 hours")
	}
	if l.Week.Valid {
		parts = append(parts, "at most "+views.FormatDecimal(l.Week.Decimal, 2)+" "+cur+" in 7 days")
	}
	if l.MaxSharePercent.Valid {
		parts = append(parts, "one request at most "+l.MaxSharePercent.Decimal.String()+"% of the balance")
	}
	if l.StepUpAbove.Valid {
		tier := fmt.Sprintf("%d approvals in the app above %s %s", l.StepUpApprovals, views.FormatDecimal(l.StepUpAbove.Decimal, 2), cur)
		if len(l.StepUpBy) > 0 {
			tier += fmt.Sprintf(" by %d named people", len(l.StepUpBy))
		}
		parts = append(parts, tier)
	}
	return "the " + cur + " wallet: " + strings.Join(parts, "; ")
}
