package employees

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	qrcode "github.com/skip2/go-qrcode"

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
	h.Render(w, r, http.StatusOK, "Invite an employee", views.InvitePage(invitePage(views.InviteForm{AccountPurpose: "personal", Fields: views.FieldErrors{}})), nil)
}

func (h *Handler) renderInviteForm(w http.ResponseWriter, r *http.Request, status int, f views.InviteForm) {
	h.Render(w, r, status, "Invite an employee", views.InvitePage(invitePage(f)), views.InviteFormView(invitePage(f)))
}

// Invite validates the form, stores the invite, then calls the API once and
// records its answer. Bad input changes nothing (422, the form as typed).
func (h *Handler) Invite(w http.ResponseWriter, r *http.Request) {
	f := readInviteForm(r.PostFormValue)
	validateInvite(&f, true, h.Now())
	if !f.Fields.Any() {
		if existing, err := h.Store.EmployeeByEmail(r.Context(), f.Email); err == nil {
			x, xerr := h.Store.InviteExtrasOf(r.Context(), existing.ID)
			if xerr != nil {
				h.ServerError(w, r, xerr)
				return
			}
			if existing.ServiceUserID != "" || x.InviteURL != "" {
				f.Fields["email"] = fmt.Sprintf("%s was already invited (%s). Re-invite them from their page: /employees/%d.",
					f.Email, inviteStateLabel(existing.InviteState), existing.ID)
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
	req := inviteRequest(f)
	inv, emp, err := h.Store.BeginInvite(r.Context(), store.NewInvite{Email: f.Email, FirstName: f.FirstName, LastName: f.LastName,
		Country: f.CountryCode, OccupationCode: f.OccupationCode}, by)
	if errors.Is(err, store.ErrConflict) {
		f.Fields["email"] = "This email was already invited. Re-invite them from their page."
		h.renderInviteForm(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	res, callErr := h.API.InviteEmployee(r.Context(), req)
	outcome := inviteOutcome(res, callErr)
	if _, err := h.Store.FinishInvite(context.WithoutCancel(r.Context()), inv.ID, outcome, by); err != nil {
		h.ServerError(w, r, err)
		return
	}
	switch {
	case callErr == nil:
		h.renderInviteResult(w, r, http.StatusOK, emp, res, false, "")
	case apiclient.IsValidation(callErr):
		for _, msg := range mapAPIFields(apiclient.ValidationFields(callErr), req, f.Fields) {
			f.Problem = strings.TrimSpace(f.Problem + " " + msg)
		}
		if !f.Fields.Any() && f.Problem == "" {
			f.Problem = "The Partner API refused the invite as invalid."
		}
		h.renderInviteForm(w, r, http.StatusUnprocessableEntity, f)
	case apiclient.IsConflict(callErr):
		// spec: a 409 on user creation is "success of a prior attempt": the
		// invite is recorded as sent, and the link is one re-invite away.
		h.renderInviteResult(w, r, http.StatusOK, emp, &apiclient.InviteResult{Sent: true,
			Error: "an earlier attempt already invited this employee (409); use “Send the invite again” on their page to see the link"}, false, "")
	default:
		h.Logger.WarnContext(r.Context(), "invite failed upstream", "employee", emp.ID, "status", apiclient.StatusCode(callErr), "err", callErr)
		f.Problem = upstreamProblem(callErr)
		h.renderInviteForm(w, r, http.StatusBadGateway, f)
	}
}

// inviteOutcome turns the API's answer into the stored outcome.
func inviteOutcome(res *apiclient.InviteResult, err error) store.InviteOutcome {
	switch {
	case err == nil && res.Sent:
		return store.InviteOutcome{State: store.InviteCallSent, InviteURL: res.InviteURL}
	case err == nil:
		return store.InviteOutcome{State: store.InviteCallNotSent, InviteURL: res.InviteURL, Error: res.Error}
	case apiclient.IsConflict(err):
		return store.InviteOutcome{State: store.InviteCallSent, Error: "409 from the API: an earlier attempt created this employee"}
	case apiclient.StatusCode(err) == 0 && !apiclient.IsValidation(err):
		return store.InviteOutcome{State: store.InviteCallUnknown, Error: "no answer from the Partner API"}
	}
	return store.InviteOutcome{State: store.InviteCallFailed, Error: apiMessage(err)}
}

// apiMessage is the API's message in words, never a request body.
func apiMessage(err error) string {
	var e *apiclient.Error
	if errors.As(err, &e) {
		if m := e.Message(); m != "" {
			return fmt.Sprintf("%d: %s", e.StatusCode, m)
		}
		return fmt.Sprintf("status %d", e.StatusCode)
	}
	var fe apiclient.FieldErrors
	if errors.As(err, &fe) {
		return fe.Error()
	}
	return "no answer from the Partner API"
}

// upstreamProblem tells the admin what happened when the API failed, and
// that their input is kept.
func upstreamProblem(err error) string {
	if apiclient.StatusCode(err) == 0 {
		return "The Partner API did not answer in time. The invite is saved here and your input is kept below; it may or may not have been sent. Sending again is safe: the same email always gets the same link."
	}
	return "The Partner API failed (" + apiMessage(err) + ") and did not confirm the invite. It is saved here and your input is kept below; sending again is safe (the same email always gets the same link)."
}

// Reinvite sends the invite call again for an employee (spec: "Re-inviting
// the same email reissues the same link") and shows whether the link is
// unchanged.
func (h *Handler) Reinvite(w http.ResponseWriter, r *http.Request) {
	e, ok := h.employeeFromPath(w, r)
	if !ok {
		return
	}
	by := handlers.ActorFrom(r.Context())
	if e.InviteState == store.InviteDeleted {
		_ = h.Store.Audit(r.Context(), store.AuditEntry{Actor: by, Action: "employee.reinvite", Target: fmt.Sprintf("employee:%d", e.ID),
			Outcome: store.OutcomeRefused, Detail: "the account is deleted"})
		h.ErrorPage(w, r, http.StatusConflict, "Account deleted", "This employee's account is deleted: reactivate it before inviting again.")
		return
	}
	before, err := h.Store.InviteExtrasOf(r.Context(), e.ID)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	inv, _, err := h.Store.BeginInvite(r.Context(), store.NewInvite{Email: e.Email, FirstName: e.FirstName, LastName: e.LastName, Reinvite: true}, by)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	// The same call: the employer-held profile the API already holds is kept
	// (identification numbers are not stored here to send again).
	res, callErr := h.API.InviteEmployee(r.Context(), apiclient.InviteEmployeeRequest{Name: e.Name(), Email: e.Email})
	if _, err := h.Store.FinishInvite(context.WithoutCancel(r.Context()), inv.ID, inviteOutcome(res, callErr), by); err != nil {
		h.ServerError(w, r, err)
		return
	}
	if callErr != nil {
		h.ErrorPage(w, r, http.StatusBadGateway, "Invite not sent again", upstreamProblem(callErr))
		return
	}
	h.renderInviteResult(w, r, http.StatusOK, e, res, true, before.InviteURL)
}

func (h *Handler) renderInviteResult(w http.ResponseWriter, r *http.Request, status int, e store.Employee, res *apiclient.InviteResult, reinvite bool, previous string) {
	v := views.InviteResultView{EmployeeID: e.ID, Name: e.Name(), Email: e.Email, Sent: res.Sent, Error: res.Error, Reinvite: reinvite,
		PreviousLink: previous, SameLink: previous != "" && previous == res.InviteURL}
	if safeLink(res.InviteURL) {
		v.InviteURL = res.InviteURL
		v.QR = qrDataURL(res.InviteURL)
	}
	h.Render(w, r, status, "Invite", views.InviteResultPage(v), nil)
}

// safeLink accepts only http(s) links for showing and encoding.
func safeLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// qrDataURL encodes a link as a PNG QR code in a data: URL (the CSP allows
// data: images, and nothing is fetched).
func qrDataURL(link string) string {
	png, err := qrcode.Encode(link, qrcode.Medium, 256)
	if err != nil {
		return ""
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
}

// Occupations answers the autocomplete from the occupations lookup. The
// lookup is user-scoped in the spec; the partner's own treasury user asks.
func (h *Handler) Occupations(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("occupation_search"))
	v := views.OccupationResultsView{Query: q, Selected: r.URL.Query().Get("occupation_code")}
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
		v.Problem = "The occupations lookup did not answer (" + apiMessage(err) + "). Try again; an occupation cannot be typed in freely."
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
