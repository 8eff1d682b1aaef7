package employees

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

func invitePage(f views.InviteForm) views.InvitePageView {
	v := views.InvitePageView{Form: f}
	for _, c := range countries {
		v.Countries = append(v.Countries, views.Option{Value: c.Alpha3, Label: c.Name + " (" + c.Alpha3 + ")", Selected: c.Alpha3 == f.CountryCode})
		v.Nationalities = append(v.Nationalities, views.Option{Value: c.Alpha2, Label: c.Name, Selected: c.Alpha2 == f.Nationality})
	}
	for _, s := range nigerianStates {
		v.NigerianStates = append(v.NigerianStates, views.Option{Value: s, Label: s, Selected: s == f.State})
	}
	v.EmploymentOptions = selectOptions(employmentStatuses, f.EmploymentStatus)
	v.FundsOptions = selectOptions(fundsSources, f.SourceOfFunds)
	v.GenderOptions = selectOptions(genders[1:], f.Gender)
	v.PurposeOptions = selectOptions(purposes, f.AccountPurpose)
	return v
}

// InviteForm shows the single-invite form.
func (h *Handler) InviteForm(w http.ResponseWriter, r *http.Request) {
	f := views.InviteForm{AccountPurpose: "personal", Fields: views.FieldErrors{}, Token: handlers.NewFormToken()}
	h.Render(w, r, http.StatusOK, "Invite an employee", views.InvitePage(invitePage(f)), nil)
}

func (h *Handler) renderInviteForm(w http.ResponseWriter, r *http.Request, status int, f views.InviteForm) {
	h.Render(w, r, status, "Invite an employee", views.InvitePage(invitePage(f)), views.InviteFormView(invitePage(f)))
}

// invitedOf is what the ledger keeps of a valid form.
func invitedOf(f views.InviteForm) invited {
	req := invited{Email: f.Email, Name: f.Name, FirstName: f.FirstName, LastName: f.LastName, Country: f.CountryCode,
		OccupationCode: f.OccupationCode}
	for _, id := range inviteRequest(f).KYC.Profile.IdentificationNumbers {
		req.IDTypes = append(req.IDTypes, id.Type)
	}
	if f.BVN != "" {
		req.IDTypes = append(req.IDTypes, "bvn")
	}
	return req
}

// unknownInvite says what an invite whose outcome is not known means.
const unknownInvite = "The Partner API did not confirm the invite, so it is not known whether it was sent; the app keeps " +
	"checking, and the employee appears in the list once it is known. Sending it again is safe: re-inviting the same email " +
	"reissues the same link. Your input is kept below."

// Invite validates the form, then sends the invite once (its one-time
// token is the action's key) and records the employee and the invite with
// the API's answer. Bad input changes nothing (422, the form as typed).
func (h *Handler) Invite(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	f := readInviteForm(r.PostFormValue)
	f.Token = r.PostFormValue(handlers.FormTokenField)
	if h.seen(w, r, key, kindInvite, "/employees") {
		return
	}
	validateInvite(&f, h.Clock())
	if !f.Fields.Any() {
		if existing, err := h.Store.EmployeeByEmail(r.Context(), f.Email); err == nil {
			x, xerr := h.Store.InviteExtrasOf(r.Context(), existing.ID)
			if xerr != nil {
				h.ServerError(w, r, xerr)
				return
			}
			if existing.ServiceUserID != "" || x.InviteURL != "" {
				f.Fields["email"] = fmt.Sprintf("%s was already invited (%s). Re-invite them from their page: /employees/%d.",
					f.Email, views.StatusLabel(views.StatusInvite, existing.InviteState), existing.ID)
			}
		} else if !isNotFound(err) {
			h.ServerError(w, r, err)
			return
		}
	}
	if f.Fields.Any() {
		h.renderInviteForm(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	by := handlers.ActorFrom(r.Context())
	send, req := inviteRequest(f), invitedOf(f)
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindInvite, Target: inviteTarget(req), Actor: by, Request: req,
		Call: callInvite(h.API, send, req, by)})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, h.pageOfEmail(r.Context(), f.Email))
		return
	}
	if d.State() == store.ActionDone {
		var ans inviteAnswer
		if err := d.Action.DecodeResult(&ans); err != nil {
			h.ServerError(w, r, err)
			return
		}
		e, err := h.Store.EmployeeByEmail(r.Context(), f.Email)
		if err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderInviteResult(w, r, e, ans, false, "")
		return
	}
	// Refused or unknown: the form again, as typed, with a new token (the
	// old one is spent).
	f.Token = handlers.NewFormToken()
	if d.State() == store.ActionRefused {
		rest := mapAPIFields(d.Problem.Fields, send, f.Fields)
		f.Problem = strings.TrimSpace(d.Problem.Summary + " " + strings.Join(rest, " "))
	} else {
		f.Problem = unknownInvite
	}
	h.renderInviteForm(w, r, problemStatus(d), f)
}

// pageOfEmail is the employee's page when one has the email, else the list.
func (h *Handler) pageOfEmail(ctx context.Context, email string) string {
	if e, err := h.Store.EmployeeByEmail(ctx, email); err == nil {
		return fmt.Sprintf("/employees/%d", e.ID)
	}
	return "/employees"
}

// Reinvite sends the invite call again for an employee (spec: "Re-inviting
// the same email reissues the same link") and shows whether the link is
// unchanged.
func (h *Handler) Reinvite(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	page := fmt.Sprintf("/employees/%d", e.ID)
	by := handlers.ActorFrom(r.Context())
	if h.seen(w, r, key, kindReinvite, page) {
		return
	}
	if e.InviteState == store.InviteDeleted {
		if h.refuse(w, r, key, kindReinvite, employeeTarget(e.ID), "the account is deleted", page) {
			return
		}
		h.ErrorPage(w, r, http.StatusConflict, "Account deleted", "This employee's account is deleted: reactivate it before inviting again.")
		return
	}
	before, err := h.Store.InviteExtrasOf(r.Context(), e.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// The same call without a profile: the employer-held profile the API
	// already holds is kept (identification numbers are not kept here to
	// send again).
	req := invited{Email: e.Email, Name: e.Name(), FirstName: e.FirstName, LastName: e.LastName, Country: e.Country, EmployeeID: e.ID}
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindReinvite, Target: inviteTarget(req), Actor: by, Request: req,
		Call: callInvite(h.API, apiclient.InviteEmployeeRequest{Name: e.Name(), Email: e.Email}, req, by)})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	switch d.State() {
	case store.ActionDone:
		var ans inviteAnswer
		if err := d.Action.DecodeResult(&ans); err != nil {
			h.ServerError(w, r, err)
			return
		}
		h.renderInviteResult(w, r, e, ans, true, before.InviteURL)
	case store.ActionRefused:
		h.Flash(r, "error", "The invite was not sent again: "+d.Problem.Summary)
		h.Redirect(w, r, page)
	default:
		h.Flash(r, "warn", "The Partner API did not confirm the invite, so it is not known whether it was sent again; the app keeps checking. "+
			"Sending it again is safe: re-inviting the same email reissues the same link.")
		h.Redirect(w, r, page)
	}
}

func (h *Handler) renderInviteResult(w http.ResponseWriter, r *http.Request, e store.Employee, ans inviteAnswer, reinvite bool, previous string) {
	v := views.InviteResultView{EmployeeID: e.ID, Name: e.Name(), Email: e.Email, Sent: ans.Sent, Error: ans.Error, Note: ans.Note,
		Reinvite: reinvite, PreviousLink: previous, SameLink: previous != "" && previous == ans.InviteURL}
	if safeLink(ans.InviteURL) {
		v.InviteURL = ans.InviteURL
		v.QR = qrDataURL(ans.InviteURL)
	}
	h.Render(w, r, http.StatusOK, "Invite", views.InviteResultPage(v), nil)
}

// safeLink accepts only http(s) links for showing and encoding.
func safeLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// qrDataURL is the invite link's QR code, "" when it cannot be made (the
// page then shows the link alone).
func qrDataURL(link string) string {
	qr, err := handlers.QRDataURL(link, 256)
	if err != nil {
		return ""
	}
	return qr
}

// Occupations answers the autocomplete from the occupations lookup. The
// lookup is user-scoped in the spec; the partner's own treasury user asks.
func (h *Handler) Occupations(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("occupation_search"))
	v := views.OccupationResultsView{Query: q, Selected: r.URL.Query().Get("occupation_code")}
	if msg := handlers.CheckText(q, 100, false); msg != "" || handlers.CheckText(v.Selected, 40, false) != "" {
		if msg == "" {
			msg = "The chosen occupation is not a code from the list."
		}
		h.RenderFragment(w, r, http.StatusBadRequest, views.OccupationResults(views.OccupationResultsView{Problem: "The search was not understood: " + msg}))
		return
	}
	if len([]rune(q)) < 2 {
		v.Query = ""
		h.RenderFragment(w, r, http.StatusOK, views.OccupationResults(v))
		return
	}
	userID, err := h.lookupUser(r.Context())
	if err != nil {
		h.Logger.WarnContext(r.Context(), "occupations lookup: no partner user", "err", err)
		v.Problem = "The occupations lookup needs the partner's own user in the Partner API, and none is recorded."
		h.RenderFragment(w, r, http.StatusOK, views.OccupationResults(v))
		return
	}
	list, err := h.API.SearchOccupations(r.Context(), userID, q)
	if err != nil {
		h.Logger.WarnContext(r.Context(), "occupations lookup failed", "status", apiclient.StatusCode(err), "err", err)
		v.Problem = "The occupations could not be read, and an occupation cannot be typed in freely. " + apiclient.ReadWords(err)
		h.RenderFragment(w, r, http.StatusOK, views.OccupationResults(v))
		return
	}
	for i, o := range list {
		if i == 20 {
			break
		}
		v.Results = append(v.Results, views.Option{Value: o.Code, Label: o.Name})
	}
	h.RenderFragment(w, r, http.StatusOK, views.OccupationResults(v))
}

// lookupUser is the serviceUserId the partner uses for lookups that the
// spec scopes to a user but that describe no particular user.
func (h *Handler) lookupUser(ctx context.Context) (string, error) {
	users, err := h.Store.TreasuryUsers(ctx)
	if err != nil {
		return "", err
	}
	for _, u := range users {
		if u.ServiceUserID != "" {
			return u.ServiceUserID, nil
		}
	}
	return "", errors.New("employees: no treasury user with a serviceUserId")
}
