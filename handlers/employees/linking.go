package employees

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
)

// The system actors of what arrives without a person: webhook deliveries and
// the periodic reconciliation.
var (
	webhookActor        = store.Actor{Email: "webhook"}
	reconciliationActor = store.Actor{Email: "reconciliation"}
)

// LinkResult says what linking did, for the caller's records.
type LinkResult struct {
	Known      bool // a local invite matched
	Changed    bool // something new was recorded
	EmployeeID int64
}

// LinkEmployee applies an employee.linked event: the invite becomes a linked
// employee with its serviceUserId, linkedAt and kycSubmitted, and the
// employee's onboarding is read. Idempotent; an unknown invite is
// LinkResult{Known: false} with no error, so the webhooks area can keep the
// event for reconciliation.

func (h *Handler) LinkEmployee(ctx context.Context, p apiclient.EmployeeLinkedPayload) (LinkResult, error) {
	e, changed, err := h.Store.LinkInvite(ctx, store.LinkInput{InvitationID: p.InvitationID, Email: p.CompanyEmail,
		ServiceUserID: p.ServiceUserID, LinkedAt: p.LinkedAt, KYCSubmitted: p.KYCSubmitted, Source: "webhook"}, webhookActor)
	if errors.Is(err, store.ErrNotFound) {
		return LinkResult{}, nil
	}
	if err != nil {
		return LinkResult{}, err
	}
	if changed {
		if err := h.Refresh(ctx, e, webhookActor); err != nil {
			h.Logger.WarnContext(ctx, "read onboarding after linking", "employee", e.ID, "err", err)
		}
	}
	return LinkResult{Known: true, Changed: changed, EmployeeID: e.ID}, nil
}

// FlagKYCAction applies a kyc.action_required event (payload fields are not
// shown in the spec; what is the words to show, "" for a generic message).
// Known is false when no employee has the serviceUserId.

func (h *Handler) FlagKYCAction(ctx context.Context, serviceUserID, what string) (LinkResult, error) {
	e, err := h.Store.FlagActionRequired(ctx, serviceUserID, what, webhookActor)
	if errors.Is(err, store.ErrNotFound) {
		return LinkResult{}, nil
	}
	if err != nil {
		return LinkResult{}, err
	}
	return LinkResult{Known: true, Changed: true, EmployeeID: e.ID}, nil
}

// ClearKYCActionOnCompletion applies onboarding.completed (spec: "onboarding
// finished and the rail is active") to the action-required flag: it is
// cleared, unless it was raised after the delivery arrived (receivedAt, on
// the database's clock), so a late run or a replay of an older completion
// never clears a newer flag. Idempotent; false when nothing changed or no
// employee has the serviceUserId.

func (h *Handler) ClearKYCActionOnCompletion(ctx context.Context, serviceUserID string, eventID int64, receivedAt time.Time) (bool, error) {
	if serviceUserID == "" {
		return false, nil
	}
	e, err := h.Store.EmployeeByServiceUserID(ctx, serviceUserID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if e.InviteState != store.InviteActionRequired && e.ActionRequired == "" {
		return false, nil
	}
	if receivedAt.IsZero() {
		// Without the arrival time the event cannot be ordered against the
		// flag: keep the flag.
		h.Logger.WarnContext(ctx, "onboarding.completed without an arrival time; action-required flag kept", "employee", e.ID, "event", eventID)
		return false, nil
	}
	return h.Store.ClearActionRequiredAsOf(ctx, e.ID, receivedAt, webhookActor,
		fmt.Sprintf("onboarding.completed (event %d): onboarding finished and the rail is active", eventID))
}

// RefreshOnboardingOf re-reads an employee's onboarding by serviceUserId
// (for onboarding.* and employee.vba.registered events). Known is false when
// no employee has that serviceUserId.
func (h *Handler) RefreshOnboardingOf(ctx context.Context, serviceUserID string) (LinkResult, error) {
	e, err := h.Store.EmployeeByServiceUserID(ctx, serviceUserID)
	if errors.Is(err, store.ErrNotFound) {
		return LinkResult{}, nil
	}
	if err != nil {
		return LinkResult{}, err
	}
	if err := h.Refresh(ctx, e, webhookActor); err != nil {
		return LinkResult{Known: true, EmployeeID: e.ID}, err
	}
	return LinkResult{Known: true, Changed: true, EmployeeID: e.ID}, nil
}

// reconcileBatch bounds one refresh click: the oldest invites first.
const reconcileBatch = 200

// Reconcile is the "refresh links" action: for each invite not linked yet it
// asks the API whether a user with that email exists (the webhook may be
// late or lost) and links it, with kycSubmitted from GET /kyc.
func (h *Handler) Reconcile(w http.ResponseWriter, r *http.Request) {
	by := handlers.ActorFrom(r.Context())
	res, err := h.ReconcileInvites(r.Context(), by, "refresh by "+by.Email)
	if err != nil {
		h.ServerError(w, r, err)
		return
	}
	msg := fmt.Sprintf("Checked %d invites with the Partner API: %d newly linked.", res.Checked, res.Linked)
	if res.Failed > 0 {
		msg += fmt.Sprintf(" %d could not be checked; try again later.", res.Failed)
	}
	h.Flash(r, "info", msg)
	h.Redirect(w, r, "/employees")
}

// InviteReconciliation is what one pass over the unlinked invites did.
type InviteReconciliation struct {
	Checked, Linked, Failed int
	Notes                   []string // one line per employee linked
}

// ReconcileInvites links every invite (oldest first, at most
// reconcileBatch) whose employee the API already knows: the pass the
// "refresh links" action and the periodic reconciliation job share.
func (h *Handler) ReconcileInvites(ctx context.Context, by store.Actor, source string) (InviteReconciliation, error) {
	var res InviteReconciliation
	pending, err := h.Store.InvitedEmployees(ctx, reconcileBatch)
	if err != nil {
		return res, err
	}
	res.Checked = len(pending)
	for _, e := range pending {
		u, err := h.API.LookupUserByEmail(ctx, e.Email)
		if apiclient.IsNotFound(err) {
			continue
		}
		if err != nil {
			res.Failed++
			h.Logger.WarnContext(ctx, "reconcile invite: lookup", "employee", e.ID, "status", apiclient.StatusCode(err), "err", err)
			continue
		}
		kycSubmitted := false
		if p, err := h.API.GetKYC(ctx, u.ServiceUserID); err == nil {
			kycSubmitted = !userstate.Summarise(p).Empty
		}
		le, changed, err := h.Store.LinkInvite(ctx, store.LinkInput{Email: e.Email, ServiceUserID: u.ServiceUserID,
			LinkedAt: time.Time{}, KYCSubmitted: kycSubmitted, Source: source}, by)
		if err != nil {
			res.Failed++
			h.Logger.WarnContext(ctx, "reconcile invite: link", "employee", e.ID, "err", err)
			continue
		}
		if changed {
			res.Linked++
			res.Notes = append(res.Notes, fmt.Sprintf("linked %s (%s) to their Partner API account", le.Name(), le.Email))
			if err := h.Refresh(ctx, le, by); err != nil {
				h.Logger.WarnContext(ctx, "reconcile invite: read onboarding", "employee", le.ID, "err", err)
			}
		}
	}
	return res, nil
}
