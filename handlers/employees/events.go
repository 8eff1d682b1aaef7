package employees

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers/inbound"
	"partneradmin/store"
	"partneradmin/views"
)

// Events applies webhook events about employees, handed over by the webhooks
// area with the types both share (handlers/inbound). Every method is
// idempotent: events may repeat, arrive out of order and be replayed.
type Events struct {
	H *Handler
}

func known(userID string, r LinkResult, format string, args ...any) inbound.Outcome {
	if !r.Known {
		return inbound.NoLocalEmployee(userID)
	}
	return inbound.Outcome{State: store.EventProcessed, ServiceUserID: userID, Note: fmt.Sprintf(format, args...)}
}

// LinkInvite applies employee.linked.
func (a Events) LinkInvite(ctx context.Context, p apiclient.EmployeeLinkedPayload, _ inbound.EmployeeEvent) (inbound.Outcome, error) {
	r, err := a.H.LinkEmployee(ctx, p)
	if err != nil {
		return inbound.Outcome{}, err
	}
	if !r.Known {
		o := inbound.NoLocalEmployee(p.ServiceUserID)
		o.Note = "no local invite for " + p.CompanyEmail + " (invitationId " + p.InvitationID + "); kept for reconciliation"
		return o, nil
	}
	if !r.Changed {
		return known(p.ServiceUserID, r, "the employee was already linked"), nil
	}
	return known(p.ServiceUserID, r, "the employee is linked to their invite"), nil
}

// Unlink applies employee.unlinked: the spec says nothing of what follows,
// so the employee's onboarding is read again and the event recorded.
func (a Events) Unlink(ctx context.Context, e inbound.EmployeeEvent) (inbound.Outcome, error) {
	r, err := a.H.RefreshOnboardingOf(ctx, e.ServiceUserID)
	if err != nil {
		return inbound.Outcome{}, err
	}
	return known(e.ServiceUserID, r, "the employee was unlinked at the Partner API; their onboarding status is refreshed"), nil
}

// RecordVBA applies employee.vba.registered by reading the accounts again.
func (a Events) RecordVBA(ctx context.Context, e inbound.EmployeeEvent) (inbound.Outcome, error) {
	r, err := a.H.RefreshOnboardingOf(ctx, e.ServiceUserID)
	if err != nil {
		return inbound.Outcome{}, err
	}
	return known(e.ServiceUserID, r, "the employee's virtual account details are refreshed"), nil
}

// RefreshOnboarding applies onboarding.completed and onboarding.failed;
// onboarding.completed first clears the action-required flag.
func (a Events) RefreshOnboarding(ctx context.Context, e inbound.EmployeeEvent) (inbound.Outcome, error) {
	cleared := false
	if e.EventType == apiclient.EventOnboardingCompleted {
		var err error
		if cleared, err = a.H.ClearKYCActionOnCompletion(ctx, e.ServiceUserID, e.EventID, e.ReceivedAt); err != nil {
			return inbound.Outcome{}, err
		}
	}
	r, err := a.H.RefreshOnboardingOf(ctx, e.ServiceUserID)
	if err != nil {
		return inbound.Outcome{}, err
	}
	if cleared {
		return known(e.ServiceUserID, r, "the request for the employee to act is cleared; their onboarding status is refreshed"), nil
	}
	return known(e.ServiceUserID, r, "the employee's onboarding status is refreshed"), nil
}

// FlagKYCAction applies kyc.action_required. Its payload fields are not
// shown in the spec: a message-like field is used when present.
func (a Events) FlagKYCAction(ctx context.Context, e inbound.EmployeeEvent) (inbound.Outcome, error) {
	r, err := a.H.FlagKYCAction(ctx, e.ServiceUserID, actionWords(e.Payload))
	if err != nil {
		return inbound.Outcome{}, err
	}
	return known(e.ServiceUserID, r, "the employee is flagged: they need to act"), nil
}

// actionWords picks what the API says is needed from a payload whose shape
// the spec does not show.
func actionWords(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range []string{"message", "reason", "requiredAction", "action", "required"} {
		switch v := m[k].(type) {
		case string:
			if s := strings.TrimSpace(v); s != "" && len(s) <= 300 {
				return s
			}
		case []any:
			var parts []string
			for _, x := range v {
				if s, ok := x.(string); ok {
					parts = append(parts, FieldInWords(s))
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, ", ")
			}
		}
	}
	return ""
}

// InviteChecker is the reconciliation job's check of invites against
// the API's users: an employee.linked event that was lost for good (a
// permanent delivery failure is never redelivered) heals here.
type InviteChecker struct{ H *Handler }

// Name names the check in the reconciliation log.
func (InviteChecker) Name() string { return "invites" }

// Reconcile links every invite whose employee the API already knows.
func (r InviteChecker) Reconcile(ctx context.Context) (inbound.ReconcileResult, error) {
	res, err := r.H.ReconcileInvites(ctx, reconciliationActor, "reconciliation job")
	if err != nil {
		return inbound.ReconcileResult{}, err
	}
	notes := res.Notes
	if res.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d invites could not be checked; retried next run", res.Failed))
	}
	return inbound.ReconcileResult{Checked: res.Checked, Corrected: res.Linked, Notes: notes}, nil
}

// OnboardingChecker re-reads the onboarding of the linked employees read
// longest ago (never, or more than MaxAge before), at most Batch a run, and
// records every readiness cell that changed: a lost onboarding.* or
// employee.vba.registered event heals here.
type OnboardingChecker struct {
	H      *Handler
	MaxAge time.Duration
	Batch  int
}

// Name names the check in the reconciliation log.
func (OnboardingChecker) Name() string { return "onboarding" }

// Reconcile refreshes the stalest snapshots.
func (r OnboardingChecker) Reconcile(ctx context.Context) (inbound.ReconcileResult, error) {
	var res inbound.ReconcileResult
	stale, err := r.H.Store.StaleOnboarding(ctx, r.H.Clock().Add(-r.MaxAge), r.Batch)
	if err != nil {
		return res, err
	}
	for _, e := range stale {
		before, err := r.H.Store.ReadinessOf(ctx, []int64{e.ID})
		if err != nil {
			return res, err
		}
		if err := r.H.Refresh(ctx, e, reconciliationActor); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s (%s): could not be read from the Partner API; tried again at the next run", e.Name(), e.Email))
			continue
		}
		res.Checked++
		after, err := r.H.Store.ReadinessOf(ctx, []int64{e.ID})
		if err != nil {
			return res, err
		}
		var changes []string
		for cur, was := range before[e.ID] {
			if now, ok := after[e.ID][cur]; ok && now.State != was.State {
				changes = append(changes, fmt.Sprintf("%s %s → %s", cur, views.StatusLabel(views.StatusReadiness, was.State), views.StatusLabel(views.StatusReadiness, now.State)))
			}
		}
		if len(changes) > 0 {
			sort.Strings(changes)
			res.Corrected++
			res.Notes = append(res.Notes, fmt.Sprintf("%s (%s): %s", e.Name(), e.Email, strings.Join(changes, ", ")))
		}
	}
	return res, nil
}
