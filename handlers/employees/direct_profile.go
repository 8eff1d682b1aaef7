package employees

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
	"partneradmin/views"
)

// profileSent is what the ledger keeps of a profile: whose, where, the
// occupation code, and which kinds of number were sent (never a number).
type profileSent struct {
	EmployeeID     int64    `json:"employeeId"`
	ServiceUserID  string   `json:"serviceUserId"`
	FirstName      string   `json:"firstName"`
	LastName       string   `json:"lastName"`
	Country        string   `json:"country"`
	OccupationCode string   `json:"occupationCode,omitempty"`
	IDTypes        []string `json:"idTypes,omitempty"`
}

// profileAnswer says whether the occupation landed (spec: "confirm with
// GET /kyc that employment and occupationCode are present").
type profileAnswer struct {
	Landed bool   `json:"landed"`
	Note   string `json:"note,omitempty"`
}

func profileEffect(req profileSent, ans profileAnswer) handlers.Effect {
	detail := "KYC profile sent (PATCH /kyc, " + req.Country
	if len(req.IDTypes) > 0 {
		detail += ", with " + strings.Join(req.IDTypes, " and ") + " numbers, not kept"
	}
	detail += ")"
	switch {
	case req.OccupationCode == "":
	case ans.Landed:
		detail += "; occupation " + req.OccupationCode + " confirmed by GET /kyc"
	default:
		detail += "; occupation " + req.OccupationCode + " " + ans.Note
	}
	return handlers.Effect{Target: employeeTarget(req.EmployeeID), Result: ans, Detail: detail}
}

// confirmOccupation reads GET /kyc after the PATCH: the spec's silent
// failure drops employment while the call succeeds.
func confirmOccupation(ctx context.Context, api *apiclient.Client, req profileSent) profileAnswer {
	if req.OccupationCode == "" {
		return profileAnswer{Landed: true}
	}
	p, err := api.GetKYC(ctx, req.ServiceUserID)
	if err != nil {
		return profileAnswer{Note: "could not be confirmed: GET /kyc failed"}
	}
	if p.Employment == nil || p.Employment.OccupationCode != req.OccupationCode {
		return profileAnswer{Note: "did not land: GET /kyc shows no employment"}
	}
	return profileAnswer{Landed: true}
}

// readBackProfile: the profile was recorded when GET /kyc shows the names
// and country sent.
func readBackProfile(api *apiclient.Client) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req profileSent
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		p, err := api.GetKYC(ctx, req.ServiceUserID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		if p.Profile == nil || p.Profile.PersonalInfo == nil || p.Address == nil ||
			p.Profile.PersonalInfo.FirstName != req.FirstName || p.Profile.PersonalInfo.LastName != req.LastName || p.Address.CountryCode != req.Country {
			return handlers.Effect{}, false, nil
		}
		ans := profileAnswer{Landed: req.OccupationCode == "" || p.Employment != nil && p.Employment.OccupationCode == req.OccupationCode}
		if !ans.Landed {
			ans.Note = "did not land: GET /kyc shows no employment"
		}
		return profileEffect(req, ans), true, nil
	}
}

// DirectProfile sends the KYC profile (PATCH /kyc) once per form, with the
// invite's fields and rules, then confirms the occupation landed.
// Identification numbers are sent and never kept or drawn back.
func (h *Handler) DirectProfile(w http.ResponseWriter, r *http.Request) {
	key, ok := handlers.FormKey(r)
	if !ok {
		h.StaleForm(w, r)
		return
	}
	e, ok := h.directEmployee(w, r)
	if !ok {
		return
	}
	page := fmt.Sprintf("/employees/%d/kyc", e.ID)
	if h.seen(w, r, key, kindKYCProfile, page) {
		return
	}
	f := readInviteForm(r.PostFormValue)
	f.Name, f.Email = e.Name(), e.Email
	validateInvite(&f, h.Clock())
	refuse := func(status int, problem string, notLanded bool) {
		h.renderDirect(w, r, status, e, func(v *views.DirectKYCView) {
			f.Token, f.Problem = handlers.NewFormToken(), problem
			v.Profile = invitePage(f)
			v.OccupationNotLanded = notLanded
		})
	}
	if f.Fields.Any() {
		refuse(http.StatusUnprocessableEntity, "", false)
		return
	}
	send := inviteRequest(f)
	profile := send.KYC.Profile
	req := profileSent{EmployeeID: e.ID, ServiceUserID: e.ServiceUserID, FirstName: f.FirstName, LastName: f.LastName, Country: f.CountryCode,
		OccupationCode: f.OccupationCode}
	for _, id := range profile.IdentificationNumbers {
		req.IDTypes = append(req.IDTypes, id.Type)
	}
	if profile.BVN != "" {
		req.IDTypes = append(req.IDTypes, "bvn")
	}
	by := handlers.ActorFrom(r.Context())
	d, err := h.Actions.Run(r.Context(), handlers.Write{Key: key, Kind: kindKYCProfile, Target: employeeTarget(e.ID), Actor: by, Request: req,
		Call: func(ctx context.Context) (handlers.Effect, error) {
			if err := h.API.UpdateKYC(ctx, e.ServiceUserID, profile); err != nil {
				return handlers.Effect{}, err
			}
			return profileEffect(req, confirmOccupation(ctx, h.API, req)), nil
		}})
	if h.Answered(w, r, err) {
		return
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, page)
		return
	}
	switch d.State() {
	case store.ActionDone:
		if err := h.Refresh(r.Context(), e, by); err != nil {
			h.Logger.WarnContext(r.Context(), "read onboarding after a KYC profile", "employee", e.ID, "err", err)
		}
		var ans profileAnswer
		if err := d.Action.DecodeResult(&ans); err != nil {
			h.ServerError(w, r, err)
			return
		}
		if !ans.Landed {
			f.Fields["occupation_code"] = "The Partner API did not keep the occupation: choose it from the list again."
			refuse(http.StatusOK, "The profile was sent, but the Partner API "+ans.Note+". Send it again with the occupation chosen from the list.", true)
			return
		}
		h.Flash(r, "ok", "The profile was sent to the Partner API. Identification numbers are not kept here.")
		h.Redirect(w, r, page+"#step-readiness")
	case store.ActionRefused:
		rest := mapAPIFields(d.Problem.Fields, send, f.Fields)
		refuse(problemStatus(d), strings.TrimSpace(d.Problem.Summary+" "+strings.Join(rest, " ")), false)
	default:
		refuse(problemStatus(d), "The Partner API did not confirm the profile, so it is not known whether it was kept; the app reads it back. "+
			"Do not send it again meanwhile.", false)
	}
}
