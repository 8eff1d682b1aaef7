package employees

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
	"partneradmin/views"
)

// Detail shows one employee: invite, profile summary, per-currency
// onboarding, accounts and wallets, each with when it was read. The first
// view of a linked employee reads the API; later views show the snapshots
// until refreshed.
func (h *Handler) Detail(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	snaps, err := h.Store.SnapshotsOf(r.Context(), e.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	if len(snaps) == 0 && e.ServiceUserID != "" && e.InviteState != store.InviteDeleted {
		if err := h.Refresh(r.Context(), e, handlers.ActorFrom(r.Context())); err != nil {
			h.ServerError(w, r, err)
			return
		}
	}
	h.renderDetailWith(w, r, http.StatusOK, e, func(*views.EmployeeDetailView) {})
}

// RefreshDetail re-reads the employee from the API (one click) and shows
// the page again.
func (h *Handler) RefreshDetail(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	if err := h.Refresh(r.Context(), e, handlers.ActorFrom(r.Context())); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Redirect(w, r, fmt.Sprintf("/employees/%d", e.ID))
}

// renderDetailWith renders the employee's page after set adds what one
// action shows (a message, a form's errors).
func (h *Handler) renderDetailWith(w http.ResponseWriter, r *http.Request, status int, e store.Employee, set func(v *views.EmployeeDetailView)) {
	v, err := h.detailView(r.Context(), e)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	v.CanWrite = canWrite(r)
	v.Occupation = views.OccupationFixForm{Fields: views.FieldErrors{}}
	if v.CanWrite {
		v.Tokens = views.DetailTokens{Reinvite: handlers.NewFormToken(), Resolve: handlers.NewFormToken(),
			Occupation: handlers.NewFormToken(), RetryUSD: handlers.NewFormToken(), Reactivate: handlers.NewFormToken()}
		h.addStartForms(e, &v)
		v.Asked = directAsked(e)
	}
	viewer := handlers.ViewerFrom(r.Context())
	v.Related = views.EmployeeRelated{ID: e.ID, Email: e.Email, ServiceUserID: e.ServiceUserID, Cards: viewer.Can(store.PermCardsRead),
		Approvals: viewer.Can(store.PermApprovalsRead), Activity: viewer.Can(store.PermActivityRead), Audit: viewer.Can(store.PermAuditRead)}
	v.BackURL, v.BackList = backToList(r)
	set(&v)
	h.Render(w, r, status, e.Name(), views.EmployeeDetailPage(v), nil)
}

func (h *Handler) detailView(ctx context.Context, e store.Employee) (views.EmployeeDetailView, error) {
	now := h.Clock()
	v := views.EmployeeDetailView{ID: e.ID, Name: e.Name(), Email: e.Email, ServiceUserID: e.ServiceUserID, InviteState: e.InviteState,
		InviteLabel: views.StatusLabel(views.StatusInvite, e.InviteState), ActionRequired: e.ActionRequired, LinkedAt: e.LinkedAt, KYCSubmitted: e.KYCSubmitted,
		DeletedAt: e.DeletedAt, Now: now}
	if e.DeletedAt != nil {
		v.ReactivateDaysLeft = daysLeft(*e.DeletedAt, now)
	}
	x, err := h.Store.InviteExtrasOf(ctx, e.ID)
	if err != nil {
		return v, err
	}
	if safeLink(x.InviteURL) && e.ServiceUserID == "" {
		v.InviteURL, v.InviteQR = x.InviteURL, qrDataURL(x.InviteURL)
	}
	invites, err := h.Store.InvitesOf(ctx, e.ID)
	if err != nil {
		return v, err
	}
	for _, i := range invites {
		v.Invites = append(v.Invites, views.InviteRow{At: i.CreatedAt, By: i.CreatedBy, State: i.State, Reinvite: i.Reinvite, Bulk: i.BulkRunID != 0, Error: i.Error})
	}
	snaps, err := h.Store.SnapshotsOf(ctx, e.ID)
	if err != nil {
		return v, err
	}
	readiness, err := h.Store.ReadinessOf(ctx, []int64{e.ID})
	if err != nil {
		return v, err
	}
	v.Profile = profileView(snaps)

	v.Currencies = currencyCards(snaps, readiness[e.ID])
	v.USDAccount = usdAccount(snaps)
	v.DepositAccounts = depositAccounts(snaps)
	wallets, err := h.Store.WalletsByEmployee(ctx, e.ID)
	if err != nil {
		return v, err
	}
	for _, w := range wallets {
		v.Wallets = append(v.Wallets, walletView(w))
		if w.BalanceReadAt != nil && (v.WalletsReadAt == nil || w.BalanceReadAt.After(*v.WalletsReadAt)) {
			v.WalletsReadAt = w.BalanceReadAt
		}
	}
	if _, sn := decodeSnap[[]apiclient.Wallet](snaps, userstate.SnapWallets); sn != nil && sn.Error != "" {
		v.WalletsError = sn.Error
	}
	return v, nil
}

// currencyCards are the employee's per-currency cards: the readiness cell
// with the last onboarding, KYC and USD readiness reads.
func currencyCards(snaps map[string]store.Snapshot, cells map[string]store.ReadinessCell) []views.CurrencyCardView {
	var out []views.CurrencyCardView
	onb, onbSnap := decodeSnap[apiclient.OnboardingStatus](snaps, userstate.SnapOnboarding)
	kr, krSnap := decodeSnap[apiclient.KYCReadiness](snaps, userstate.SnapKYCReadiness)
	ur, urSnap := decodeSnap[apiclient.USDReadiness](snaps, userstate.SnapUSDReadiness)
	for _, cur := range store.ReadinessCurrencies() {
		c, ok := cells[cur]
		card := views.CurrencyCardView{Currency: cur, Cell: cellView(cur, c, ok)}
		if onbSnap != nil {
			at := onbSnap.ReadAt
			card.ReadAt = &at
			card.Error = onbSnap.Error
		}
		if onb != nil {
			rail := onb.Currencies[apiclient.Fiat(cur)]
			card.RailStatus, card.Active = rail.Status, rail.Active
			if cur == "EUR" && onb.EURProviderStatus != "" {
				card.EURProvider = onb.EURProviderStatus
			}
		}
		missing := []string{}
		var missErr string
		if cur == "USD" {
			if ur != nil {
				missing = ur.Missing
			} else if urSnap != nil {
				missErr = "USD readiness: " + urSnap.Error
			}
		} else if kr != nil {
			missing = kr.Missing
		} else if krSnap != nil {
			missErr = "KYC readiness: " + krSnap.Error
		}
		for _, m := range missing {
			card.Missing = append(card.Missing, FieldInWords(m))
		}
		if missErr != "" {
			card.Error = strings.TrimSpace(strings.TrimPrefix(card.Error+"; "+missErr, "; "))
		}
		out = append(out, card)
	}

	return out
}

// usdAccount is the USD virtual account as last read.
func usdAccount(snaps map[string]store.Snapshot) views.VirtualAccountView {
	var v views.VirtualAccountView
	vba, vbaSnap := decodeSnap[apiclient.VirtualAccount](snaps, userstate.SnapVBAUSD)
	if vbaSnap != nil {
		at := vbaSnap.ReadAt
		v.ReadAt, v.Error = &at, vbaSnap.Error
	}
	if vba != nil {
		v.Status = string(vba.Status)
		if vba.Reason != nil {
			v.Reason = *vba.Reason
		}
		// spec: "failed | start-usa retry (safe)"; "rejected | terminal; do not retry".
		v.CanRetry = vba.Status == "failed"
		if a := vba.Account; a != nil && vba.Status == "active" {
			v.AccountName, v.AccountNumber, v.RoutingNumber = a.AccountName, a.AccountNumber, a.RoutingNumber
			v.BankName, v.BankAddress, v.SwiftCode, v.AccountType = a.BankName, a.BankAddress, a.SwiftCode, a.AccountType
			if a.DepositMessage != nil {
				v.DepositMessage = *a.DepositMessage
			}
		}
	}
	return v
}

// depositAccounts are the NGN and MXN deposit accounts as last read.
func depositAccounts(snaps map[string]store.Snapshot) []views.DepositAccountsView {
	var out []views.DepositAccountsView
	for _, kind := range []string{userstate.SnapDepositNGN, userstate.SnapDepositMXN} {
		list, sn := decodeSnap[[]apiclient.DepositAccount](snaps, kind)
		d := views.DepositAccountsView{Currency: strings.TrimPrefix(kind, "deposit_")}
		if sn == nil {
			continue
		}
		at := sn.ReadAt
		d.ReadAt, d.Error = &at, sn.Error
		if list != nil {
			for _, a := range *list {
				d.Accounts = append(d.Accounts, views.DepositAccountView{AccountName: a.AccountName, BankName: a.BankName,
					AccountNumber: a.AccountNumber, Clabe: a.Clabe, Status: a.Status, Target: string(a.TargetCurrency)})
			}
		}
		out = append(out, d)
	}
	return out
}

func walletView(w store.Wallet) views.WalletView {
	fiat := w.DisplayCurrency
	if fiat == "" {
		if f, ok := apiclient.Stablecoin(w.Currency).Fiat(); ok {
			fiat = string(f)
		}
	}
	wv := views.WalletView{Currency: fiat, Token: w.Currency, Status: w.Status, Legacy: w.Legacy}
	if w.Balance.Valid {
		wv.Balance = &views.Amount{Value: w.Balance.Decimal, Currency: fiat, Token: w.Currency}
	}
	return wv
}

func profileView(snaps map[string]store.Snapshot) views.ProfileView {
	s, sn := decodeSnap[userstate.KYCSummary](snaps, userstate.SnapKYCSummary)
	var p views.ProfileView
	if sn == nil {
		return p
	}
	at := sn.ReadAt
	p.ReadAt, p.Error = &at, sn.Error
	if s == nil {
		return p
	}
	if s.Empty {
		p.Empty = true
		return p
	}
	p.Name = strings.TrimSpace(s.FirstName + " " + s.LastName)
	p.DateOfBirth, p.Nationality, p.Country = s.DateOfBirth, s.Nationality, s.CountryCode
	p.Address = strings.Trim(strings.Join([]string{s.Street, s.City, s.State, s.PostalCode}, ", "), ", ")
	p.EmploymentStatus, p.OccupationCode, p.EmployerName, p.SourceOfFunds = s.EmploymentStatus, s.OccupationCode, s.EmployerName, s.SourceOfFunds
	for _, t := range s.IDTypes {
		p.IDTypes = append(p.IDTypes, FieldInWords("identificationNumbers."+t))
	}
	if s.HasBVN {
		p.IDTypes = append(p.IDTypes, FieldInWords("bvn"))
	}
	// spec: "employment and its occupationCode are absent or null when an
	// employment write did not land".
	p.OccupationMissing = !s.HasEmployment || s.OccupationCode == ""
	return p
}

// daysLeft is how many whole days of the reactivation window remain.
func daysLeft(deletedAt, now time.Time) int {
	left := deletedAt.Add(ReactivationWindow).Sub(now)
	if left <= 0 {
		return 0
	}
	return int((left + 24*time.Hour - 1) / (24 * time.Hour))
}

// FixOccupation sends the occupationCode chosen from the lookup with
// PATCH /kyc, once per form, then confirms with GET /kyc that it landed
// (spec: the silent drop of employment).
func (h *Handler) FixOccupation(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	if h.seen(w, r, key, kindOccupation, fmt.Sprintf("/employees/%d", e.ID)) {
		return
	}
	token := r.PostFormValue(handlers.FormTokenField)
	fix := views.OccupationFixForm{Code: strings.TrimSpace(r.PostFormValue("occupation_code")), Fields: views.FieldErrors{}}
	refuse := func(status int, msg string, newToken bool) {
		fix.Fields["occupation_code"] = msg
		fix.Code = printable(fix.Code)
		h.renderDetailWith(w, r, status, e, func(v *views.EmployeeDetailView) {
			v.Occupation = fix
			if !newToken {
				v.Tokens.Occupation = token
			}
		})
	}
	if fix.Code == "" || handlers.CheckText(fix.Code, 40, false) != "" || !occupationPattern.MatchString(fix.Code) {
		refuse(http.StatusUnprocessableEntity, "Search and choose the occupation from the list.", false)
		return
	}
	if e.ServiceUserID == "" {
		refuse(http.StatusUnprocessableEntity, "The employee has not linked yet: the occupation goes with the invite's profile.", false)
		return
	}
	snaps, err := h.Store.SnapshotsOf(r.Context(), e.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	req := onUser{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID, OccupationCode: fix.Code, EmploymentStatus: "employed"}
	if s, _ := decodeSnap[userstate.KYCSummary](snaps, userstate.SnapKYCSummary); s != nil && s.EmploymentStatus != "" {
		req.EmploymentStatus = s.EmploymentStatus
	}
	by := handlers.ActorFrom(r.Context())
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindOccupation, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) { return h.updateOccupation(ctx, req) }})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, fmt.Sprintf("/employees/%d", e.ID))
		return
	}
	switch d.State() {
	case store.ActionRefused:
		refuse(problemStatus(d), "The Partner API refused the occupation: "+d.Problem.Summary, true)
		return
	case store.ActionUnknown, store.ActionBegun:
		refuse(problemStatus(d), "The Partner API did not confirm the update, so it is not known whether it landed; the app keeps checking. "+
			"Refresh the page before sending it again.", true)
		return
	}
	var ans occupationAnswer
	if err := d.Action.DecodeResult(&ans); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if err := h.Refresh(r.Context(), e, by); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if !ans.Landed {
		refuse(http.StatusBadGateway, "The Partner API accepted the update but the occupation did not land. Choose another occupation or contact support.", true)
		return
	}
	h.Flash(r, "ok", "Occupation saved and confirmed by the Partner API.")
	h.Redirect(w, r, fmt.Sprintf("/employees/%d", e.ID))
}

// updateOccupation sends the occupation and reads the KYC back: the
// write is done once the update is accepted, and the read says whether the
// occupation landed.
func (h *Handler) updateOccupation(ctx context.Context, req onUser) (handlers.Effect, error) {
	err := h.API.UpdateKYC(ctx, req.ServiceUserID, apiclient.KYCProfile{
		Employment: &apiclient.KYCEmployment{EmploymentStatus: req.EmploymentStatus, OccupationCode: req.OccupationCode}})
	if err != nil {
		return handlers.Effect{}, err
	}
	p, err := h.API.GetKYC(ctx, req.ServiceUserID)
	switch {
	case err != nil:
		return occupationEffect(req, false, "it could not be confirmed with GET /kyc. "+apiclient.ReadWords(err)), nil
	case p.Employment == nil || p.Employment.OccupationCode != req.OccupationCode:
		return occupationEffect(req, false, "GET /kyc shows no occupationCode"), nil
	}
	return occupationEffect(req, true, "GET /kyc shows it"), nil
}

// RetryUSD restarts a failed USD account set-up, once per form. spec:
// "failed | start-usa retry (safe)"; a rejected account is never retried.
func (h *Handler) RetryUSD(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	page := fmt.Sprintf("/employees/%d", e.ID)
	if h.seen(w, r, key, kindRetryUSD, page) {
		return
	}
	refuse := func(status int, msg string) {
		if h.refuse(w, r, key, kindRetryUSD, employeeTarget(e.ID), msg, page) {
			return
		}
		h.ErrorPage(w, r, status, "USD account not retried", msg)
	}
	if e.ServiceUserID == "" {
		refuse(http.StatusConflict, "The employee has not linked yet.")
		return
	}
	vba, err := h.API.GetUSDVirtualAccount(r.Context(), e.ServiceUserID)
	if err != nil {
		refuse(http.StatusBadGateway, "The USD account state could not be read, so nothing was retried. "+apiclient.ReadWords(err))
		return
	}
	if vba.Status != "failed" {
		refuse(http.StatusConflict, "Only a failed USD account can be retried; it is "+string(vba.Status)+".")
		return
	}
	wallets, err := h.Store.WalletsByEmployee(r.Context(), e.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	req := onUser{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID}
	for _, wl := range wallets {
		if wl.Currency == string(apiclient.USDB) {
			req.WalletID = wl.ID
		}
	}
	if req.WalletID == "" {
		refuse(http.StatusConflict, "The employee has no USDB wallet to attach the USD account to.")
		return
	}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindRetryUSD, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if _, err := h.API.StartUSA(ctx, req.ServiceUserID, apiclient.StartUSARequest{SmartWalletID: req.WalletID}); err != nil {
				return handlers.Effect{}, err
			}
			return handlers.Effect{Target: employeeTarget(e.ID), Detail: "start-usa sent again"}, nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	switch d.State() {
	case store.ActionRefused:
		h.ErrorPage(w, r, problemStatus(d), "USD account not retried", d.Problem.Summary)
		return
	case store.ActionUnknown, store.ActionBegun:
		h.ErrorPage(w, r, problemStatus(d), "USD account retry not confirmed",
			"The Partner API did not confirm the retry; the app keeps checking. Retrying again is safe (start-usa is idempotent), but refresh the page first.")
		return
	}
	if err := h.Refresh(r.Context(), e, by); err != nil {
		h.ServerError(w, r, err)
		return
	}
	h.Flash(r, "ok", "USD account set-up restarted.")
	h.Redirect(w, r, page)
}

// backToList is the way back from an employee's page: the readiness
// matrix with its filters when the viewer came from it, else the employee
// list as they left it.
func backToList(r *http.Request) (href, label string) {
	if m := handlers.BackTo(r, "/employees/readiness"); m != "/employees/readiness" {
		return m, "Readiness by currency"
	}
	return handlers.BackTo(r, "/employees"), "Employees"
}
