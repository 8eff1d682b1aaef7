package employees

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/store"
)

// The area's actions, by kind: each is also the audit row's action.
const (
	kindInvite     = "employee.invite"
	kindReinvite   = "employee.reinvite"
	kindBulkRow    = "employee.bulk_invite.row"
	kindBulkStart  = "employee.bulk_invite.start" // local: starts the background send
	kindDelete     = "employee.delete"
	kindReactivate = "employee.reactivate"
	kindOccupation = "employee.kyc.occupation"
	kindRetryUSD   = "employee.onboarding.retry_usd"
	kindResolve    = "employee.kyc_action_cleared" // local: "mark as resolved"
)

// invited is what an invite action keeps in the ledger: who was invited and
// where, never an identification number (only which kinds were sent).
type invited struct {
	Email          string   `json:"email"`
	Name           string   `json:"name"`
	FirstName      string   `json:"firstName,omitempty"`
	LastName       string   `json:"lastName,omitempty"`
	Country        string   `json:"country,omitempty"`
	OccupationCode string   `json:"occupationCode,omitempty"`
	IDTypes        []string `json:"idTypes,omitempty"`
	EmployeeID     int64    `json:"employeeId,omitempty"` // a re-invite
	BulkRunID      int64    `json:"bulkRunId,omitempty"`  // a bulk row
	Line           int      `json:"line,omitempty"`
}

func (i invited) reinvite() bool { return i.EmployeeID != 0 }

// inviteAnswer is what an invite action keeps of the API's answer.
type inviteAnswer struct {
	Sent      bool   `json:"sent"`
	InviteURL string `json:"inviteUrl,omitempty"`
	Error     string `json:"error,omitempty"`
	// Note says how the outcome was learned when the API did not answer
	// the call itself (a 409, a read-back).
	Note string `json:"note,omitempty"`
}

// onUser is the request of an action on a linked employee's account.
type onUser struct {
	EmployeeID    int64  `json:"employeeId"`
	ServiceUserID string `json:"serviceUserId"`
	// OccupationCode and EmploymentStatus: the occupation fix.
	OccupationCode   string `json:"occupationCode,omitempty"`
	EmploymentStatus string `json:"employmentStatus,omitempty"`
	// WalletID: the USD account retry.
	WalletID string `json:"walletId,omitempty"`
}

func employeeTarget(id int64) string { return fmt.Sprintf("employee:%d", id) }

func inviteTarget(req invited) string {
	switch {
	case req.BulkRunID != 0:
		return fmt.Sprintf("bulk_invite:%d/%d", req.BulkRunID, req.Line)
	case req.reinvite():
		return employeeTarget(req.EmployeeID)
	}
	return "invite:" + strings.ToLower(req.Email)
}

// inviteEffect is what a done invite changes here: the employee and the
// invite row, and for a bulk row the row's outcome.
func inviteEffect(req invited, ans inviteAnswer, by store.Actor) handlers.Effect {
	detail := "invite sent to " + req.Email
	if !ans.Sent {
		detail = "the API did not send the invite to " + req.Email + ": " + ans.Error
	}
	if ans.Note != "" {
		detail += " (" + ans.Note + ")"
	}
	return handlers.Effect{Target: inviteTarget(req), Result: ans, Detail: detail,
		Apply: func(ctx context.Context, tx *store.Store) error {
			_, _, err := tx.RecordInvite(ctx, store.AnsweredInvite{Email: req.Email, FirstName: req.FirstName, LastName: req.LastName,
				Country: req.Country, OccupationCode: req.OccupationCode, Reinvite: req.reinvite(), BulkRunID: req.BulkRunID,
				Sent: ans.Sent, InviteURL: ans.InviteURL, Error: ans.Error, By: by})
			if err != nil || req.BulkRunID == 0 {
				return err
			}
			state, errText := store.BulkRowSent, ""
			if !ans.Sent {
				state, errText = store.BulkRowError, "not sent: "+ans.Error
			}
			return tx.FinishBulkRow(ctx, req.BulkRunID, req.Line, state, ans.InviteURL, errText)
		}}
}

// callInvite makes the invite call. spec: a 409 on creating a user is to be
// treated "as success of a prior attempt": the invite stands.
func callInvite(api *apiclient.Client, send apiclient.InviteEmployeeRequest, req invited, by store.Actor) func(ctx context.Context) (handlers.Effect, error) {
	return func(ctx context.Context) (handlers.Effect, error) {
		res, err := api.InviteEmployee(ctx, send)
		if apiclient.IsConflict(err) {
			return inviteEffect(req, inviteAnswer{Sent: true, Note: "the API answered 409: an earlier attempt already invited this employee"}, by), nil
		}
		if err != nil {
			return handlers.Effect{}, err
		}
		return inviteEffect(req, inviteAnswer{Sent: res.Sent, InviteURL: res.InviteURL, Error: res.Error}, by), nil
	}
}

// registerReadBacks tells the runner how each kind is read back. Invites
// cannot be read until the employee links (the API has no invite to GET):
// a user with the email means the invite was recorded; none means not
// recorded so far, and sending it again is safe (spec: "Re-inviting the
// same email reissues the same link"). Deletion and reactivation read the
// user: spec, a deleted user's user-scoped endpoints "return 404". The
// local kinds change nothing until their finish, which commits with them:
// a begun one did nothing.
func registerReadBacks(x *handlers.Actions, api *apiclient.Client) {
	invite := func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req invited
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		_, err := api.LookupUserByEmail(ctx, req.Email)
		if apiclient.IsNotFound(err) {
			return handlers.Effect{}, false, nil
		}
		if err != nil {
			return handlers.Effect{}, false, err
		}
		return inviteEffect(req, inviteAnswer{Sent: true, Note: "the employee has linked: the invite was recorded"}, a.Actor), true, nil
	}
	x.ReadBackFor(kindInvite, invite)
	x.ReadBackFor(kindReinvite, invite)
	x.ReadBackFor(kindBulkRow, invite)

	// userActive reads whether the user is active (true) or deleted (false).
	userActive := func(ctx context.Context, a store.Action) (onUser, bool, error) {
		var req onUser
		if err := a.DecodeRequest(&req); err != nil {
			return req, false, err
		}
		if api == nil {
			return req, false, errNoAPI
		}
		_, err := api.GetOnboardingStatus(ctx, req.ServiceUserID)
		if apiclient.IsNotFound(err) {
			return req, false, nil
		}
		return req, err == nil, err
	}
	x.ReadBackFor(kindDelete, func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		req, active, err := userActive(ctx, a)
		if err != nil || active {
			return handlers.Effect{}, false, err
		}
		return deleteEffect(req, "the user's endpoints answer 404: deleted", a.BegunAt), true, nil
	})
	x.ReadBackFor(kindReactivate, func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		req, active, err := userActive(ctx, a)
		if err != nil || !active {
			return handlers.Effect{}, false, err
		}
		return reactivateEffect(req, "the user's endpoints answer again: active"), true, nil
	})
	x.ReadBackFor(kindOccupation, readBackOccupation(api))
	x.ReadBackFor(kindRetryUSD, readBackRetryUSD(api))
	x.ReadBackFor(kindStartRail, readBackStart(api, runRowApply))
	x.ReadBackFor(kindMexicoKYC, readBackMexicoKYC(api))
	nothingDone := func(context.Context, store.Action) (handlers.Effect, bool, error) {
		return handlers.Effect{}, false, nil
	}
	x.ReadBackFor(kindBulkStart, nothingDone)
	x.ReadBackFor(kindResolve, nothingDone)
}

var errNoAPI = errors.New("employees: no Partner API configured")

// readBackOccupation reads whether the occupation landed (GET /kyc).
func readBackOccupation(api *apiclient.Client) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req onUser
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
		if p.Employment == nil || p.Employment.OccupationCode != req.OccupationCode {
			return handlers.Effect{}, false, nil
		}
		return occupationEffect(req, true, "GET /kyc shows it"), true, nil
	}
}

// readBackRetryUSD reads whether the USD account left "failed".
func readBackRetryUSD(api *apiclient.Client) handlers.ReadBack {
	return func(ctx context.Context, a store.Action) (handlers.Effect, bool, error) {
		var req onUser
		if err := a.DecodeRequest(&req); err != nil {
			return handlers.Effect{}, false, err
		}
		if api == nil {
			return handlers.Effect{}, false, errNoAPI
		}
		vba, err := api.GetUSDVirtualAccount(ctx, req.ServiceUserID)
		if err != nil {
			return handlers.Effect{}, false, err
		}
		if vba.Status == "failed" {
			return handlers.Effect{}, false, nil
		}
		return handlers.Effect{Target: employeeTarget(req.EmployeeID), Detail: "start-usa sent again; the USD account is " + string(vba.Status)}, true, nil
	}
}

func deleteEffect(req onUser, said string, at time.Time) handlers.Effect {
	return handlers.Effect{Target: employeeTarget(req.EmployeeID), Detail: "deleted (" + said + ")",
		Apply: func(ctx context.Context, tx *store.Store) error { return tx.SetDeleted(ctx, req.EmployeeID, at) }}
}

func reactivateEffect(req onUser, said string) handlers.Effect {
	return handlers.Effect{Target: employeeTarget(req.EmployeeID), Detail: "reactivated (" + said + ")",
		Apply: func(ctx context.Context, tx *store.Store) error { return tx.SetReactivated(ctx, req.EmployeeID) }}
}

// occupationAnswer is what the occupation fix learned.
type occupationAnswer struct {
	// Landed: GET /kyc shows the code (spec: employment is silently
	// dropped when the occupation does not resolve).
	Landed bool `json:"landed"`
}

func occupationEffect(req onUser, landed bool, how string) handlers.Effect {
	detail := "occupationCode " + req.OccupationCode + " sent and confirmed (" + how + ")"
	if !landed {
		detail = "occupationCode " + req.OccupationCode + " accepted, but " + how
	}
	return handlers.Effect{Target: employeeTarget(req.EmployeeID), Result: occupationAnswer{Landed: landed}, Detail: detail}
}

// problemStatus is the HTTP status a refused or unknown upstream call is
// answered with.
func problemStatus(d handlers.Done) int {
	switch {
	case d.State() == store.ActionUnknown || d.State() == store.ActionBegun:
		return http.StatusBadGateway
	case d.Problem.Status == http.StatusServiceUnavailable:
		return http.StatusServiceUnavailable
	case len(d.Problem.Fields) > 0:
		return http.StatusUnprocessableEntity
	}
	return http.StatusConflict
}

// seen answers a form whose one-time key was used before, ahead of any
// other check: the page says what the first post did, and nothing is
// checked, stored or sent again. It reports whether it answered.
func (h *Handler) seen(w http.ResponseWriter, r *http.Request, key, kind, to string) bool {
	a, seen, err := h.Actions.Seen(r.Context(), key, kind, handlers.ActorFrom(r.Context()))
	if h.Answered(w, r, err) {
		return true
	}
	if seen {
		h.Repeated(w, r, a, to)
	}
	return seen
}

// refuse records a request refused here (the state does not allow it) as
// a refused action under the form's key, with its audit row, so a second
// post of the same form learns it was refused and nothing is refused
// twice. It reports whether it answered (a repeat or a local failure);
// otherwise the caller shows the refusal.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, key, kind, target, why, to string) bool {
	d, err := h.Actions.RunLocal(r.Context(), handlers.Local{Key: key, Kind: kind, Target: target, Actor: handlers.ActorFrom(r.Context()),
		Change: func(context.Context, *store.Store) error { return handlers.Refusal(why) }})
	if h.Answered(w, r, err) {
		return true
	}
	if d.Repeat {
		h.Repeated(w, r, d.Action, to)
		return true
	}
	return false
}
