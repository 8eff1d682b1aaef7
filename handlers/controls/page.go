package controls

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// Page shows the money controls.
func (h *Handler) Page(w http.ResponseWriter, r *http.Request) {
	h.show(w, r, http.StatusOK, func(*views.ControlsView) {})
}

// show renders the page; edit sets a form as typed or an error.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, status int, edit func(*views.ControlsView)) {
	v, err := h.view(r.Context())
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	edit(&v)
	h.Render(w, r, status, "Money controls", views.ControlsPage(v), nil)
}

// view builds the page for the signed-in viewer.
func (h *Handler) view(ctx context.Context) (views.ControlsView, error) {
	viewer := handlers.ViewerFrom(ctx)
	now := h.clock()
	v := views.ControlsView{CanAdd: viewer.Can(store.PermTreasury), CanConfirm: viewer.Can(store.PermApprovalsAct),
		CanPropose: viewer.Can(store.PermSettings),
		Add:        views.DestinationForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		Limits:     views.LimitsForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		Settings:   views.SettingsForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{}},
		ApprovalMode: views.ApprovalModeForm{Token: handlers.NewFormToken(), Fields: views.FieldErrors{},
			Options: []views.Option{{Value: string(apiclient.ApprovalAnyAdmin), Label: modeWords(apiclient.ApprovalAnyAdmin)},
				{Value: string(apiclient.ApprovalAdminThreshold), Label: modeWords(apiclient.ApprovalAdminThreshold)},
				{Value: string(apiclient.ApprovalOwner), Label: modeWords(apiclient.ApprovalOwner)}}}}
	for _, k := range store.DestinationKinds() {
		v.KindOptions = append(v.KindOptions, views.Option{Value: string(k), Label: k.Label()})
	}
	settings, err := h.store.SettingsInForce(ctx, now)
	if err != nil {
		return v, err
	}
	v.SettingsNow = settingsWords(settings)
	v.Settings.CoolingOff = fmt.Sprint(settings.CoolingOffHours)
	v.Settings.OutsideBook = string(settings.OutsideBook)

	book, err := h.store.Destinations(ctx)
	if err != nil {
		return v, err
	}
	for _, d := range book {
		v.Destinations = append(v.Destinations, destinationRow(ctx, d, viewer.Staff.ID, v.CanAdd, v.CanConfirm, now))
	}

	_, wallets, err := h.store.Treasury(ctx)
	if err != nil && !errors.Is(err, store.ErrNoTreasury) {
		return v, err
	}
	for _, wl := range wallets {
		row, err := h.walletRow(ctx, wl)
		if err != nil {
			return v, err
		}
		v.Wallets = append(v.Wallets, row)
		v.WalletOption = append(v.WalletOption, views.Option{Value: wl.ID, Label: walletLabel(wl)})
	}

	if v.CanPropose {
		v.ApprovalMode.Current = h.currentMode(ctx)
	}
	changes, err := h.store.PolicyChanges(ctx, 0, 50)
	if err != nil {
		return v, err
	}
	for _, c := range changes {
		row := views.PolicyChangeRow{ID: c.ID, What: c.Kind.Label(), Summary: c.Summary, ProposedBy: c.ProposedBy.Name,
			ProposedAt: views.Relative(ctx, c.ProposedAt, now), State: changeState(ctx, c, now), Token: handlers.NewFormToken()}
		if c.State == store.PolicyProposed {
			row.Decide = v.CanPropose && c.ProposedBy.ID != viewer.Staff.ID
			row.Withdraw = v.CanPropose && c.ProposedBy.ID == viewer.Staff.ID
			v.Pending = append(v.Pending, row)
			continue
		}
		v.History = append(v.History, row)
	}
	return v, nil
}

// destinationRow is a book entry on the page, with what the viewer (me)
// may do with it.
func destinationRow(ctx context.Context, d store.Destination, me int64, canAdd, canConfirm bool, now time.Time) views.DestinationRow {
	row := views.DestinationRow{ID: d.ID, Name: d.Name, Kind: d.Kind.Label(), Value: d.Value, AddedBy: d.AddedBy.Name,
		AddedAt: views.Relative(ctx, d.AddedAt, now), Token: handlers.NewFormToken(), CanClear: canAdd}
	if d.BankCode != "" {
		row.Value = d.Value + " · bank " + d.BankCode
	}
	switch {
	case d.ConfirmedAt == nil:
		row.State = "Waiting for another person to confirm it"
		row.Confirm = canConfirm && d.AddedBy.ID != me
	case !d.Usable(now):
		row.State = "Confirmed by " + d.ConfirmedBy.Name + "; usable " + views.Relative(ctx, *d.UsableFrom, now) + " (" + views.DateTime(ctx, *d.UsableFrom) + ")"
	default:
		row.State, row.Trusted = "Trusted since "+views.DateTime(ctx, *d.UsableFrom)+" (confirmed by "+d.ConfirmedBy.Name+")", true
	}
	switch {
	case d.ConfirmedAt == nil:
		row.RemoveLabel = "Withdraw"
	case d.RemovalAskedBy.ID != 0:
		row.State += "; " + d.RemovalAskedBy.Name + " asked to remove it"
		row.RemoveLabel, row.CanClear = "Confirm the removal", row.CanClear && d.RemovalAskedBy.ID != me
	default:
		row.RemoveLabel = "Ask to remove"
	}
	return row
}

// walletRow is a wallet's policy in force with what it used.
func (h *Handler) walletRow(ctx context.Context, wl store.Wallet) (views.WalletPolicyRow, error) {
	now := h.clock()
	row := views.WalletPolicyRow{WalletID: wl.ID, Label: walletLabel(wl), Day: "No daily limit", Week: "No weekly limit",
		Share: "No limit", StepUp: "None", SetBy: "No policy set"}
	l, c, ok, err := h.store.LimitsInForce(ctx, wl.ID, now)
	if err != nil || !ok {
		return row, err
	}
	used, err := h.store.VelocityUsed(ctx, wl.ID, now)
	if err != nil {
		return row, err
	}
	cur := fiat(wl.Currency)
	if l.Day.Valid {
		row.Day = views.FormatDecimal(used.Day, 2) + " of " + views.FormatDecimal(l.Day.Decimal, 2) + " " + cur + " in the last 24 hours"
	}
	if l.Week.Valid {
		row.Week = views.FormatDecimal(used.Week, 2) + " of " + views.FormatDecimal(l.Week.Decimal, 2) + " " + cur + " in the last 7 days"
	}
	if l.MaxSharePercent.Valid {
		row.Share = "At most " + l.MaxSharePercent.Decimal.String() + "% of the balance"
	}
	if l.StepUpAbove.Valid {
		row.StepUp = fmt.Sprintf("%d in the app above %s %s", l.StepUpApprovals, views.FormatDecimal(l.StepUpAbove.Decimal, 2), cur)
	}
	row.SetBy = "Proposed by " + c.ProposedBy.Name + ", approved by " + c.DecidedBy.Name
	return row, nil
}

// fiat is a stablecoin's fiat code, as screens show currencies.
func fiat(coin string) string {
	if f, ok := apiclient.Stablecoin(coin).Fiat(); ok {
		return string(f)
	}
	return coin
}

func walletLabel(w store.Wallet) string {
	s := fiat(w.Currency) + " (" + w.Currency + ")"
	if w.Balance.Valid {
		s += " · balance " + views.FormatDecimal(w.Balance.Decimal, 2) + " " + fiat(w.Currency)
	}
	return s
}

// settingsWords are the settings in force in words.
func settingsWords(s store.ControlSettings) string {
	out := fmt.Sprintf("A confirmed destination is usable after %d hours. ", s.CoolingOffHours)
	if s.OutsideBook == store.OutsideBookOwnerAsked {
		return out + "Only owners may send to a destination outside the book."
	}
	return out + "Sending to a destination outside the book is refused."
}

// changeState is where a change stands, in words.
func changeState(ctx context.Context, c store.PolicyChange, now time.Time) string {
	switch c.State {
	case store.PolicyProposed:
		return "Waiting for a second owner"
	case store.PolicyRejected:
		return "Turned down by " + c.DecidedBy.Name
	case store.PolicyFailed:
		return "The Partner API refused it"
	}
	if c.EffectiveAt != nil && now.Before(*c.EffectiveAt) {
		return "Approved by " + c.DecidedBy.Name + "; in force " + views.Relative(ctx, *c.EffectiveAt, now) + " (" + views.DateTime(ctx, *c.EffectiveAt) + ")"
	}
	return "Approved by " + c.DecidedBy.Name + "; in force since " + views.DateTime(ctx, *c.EffectiveAt)
}
