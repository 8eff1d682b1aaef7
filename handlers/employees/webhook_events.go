package employees

// This file is the only one of the area that names the webhooks area, and
// only to convert types: web/app.go builds WebhookEmployees, InviteReconciler
// and OnboardingReconciler. Once handlers/webhooks declares its event,
// outcome and reconcile-result types as aliases of handlers/mirror's
// (EmployeeEvent, EventOutcome, ReconcileResult), Events, InviteChecker and
// OnboardingChecker satisfy its interfaces as they are, and this file goes.

import (
	"context"
	"time"

	"partneradmin/apiclient"
	"partneradmin/handlers/mirror"
	"partneradmin/handlers/webhooks"
)

// WebhookEmployees adapts Events to webhooks.Employees.
type WebhookEmployees struct{ H *Handler }

var _ webhooks.Employees = WebhookEmployees{}

func eventOf(e webhooks.EmployeeEvent) mirror.EmployeeEvent {
	return mirror.EmployeeEvent{EventID: e.EventID, EventType: e.EventType, ServiceUserID: e.ServiceUserID, Payload: e.Payload,
		At: e.At, ReceivedAt: e.ReceivedAt}
}

func outcomeOf(o mirror.EventOutcome, err error) (webhooks.Outcome, error) {
	return webhooks.Outcome{State: o.State, Note: o.Note, ServiceUserID: o.ServiceUserID}, err
}

// LinkInvite implements webhooks.Employees.
func (a WebhookEmployees) LinkInvite(ctx context.Context, p apiclient.EmployeeLinkedPayload, e webhooks.EmployeeEvent) (webhooks.Outcome, error) {
	return outcomeOf(Events(a).LinkInvite(ctx, p, eventOf(e)))
}

// Unlink implements webhooks.Employees.
func (a WebhookEmployees) Unlink(ctx context.Context, e webhooks.EmployeeEvent) (webhooks.Outcome, error) {
	return outcomeOf(Events(a).Unlink(ctx, eventOf(e)))
}

// RecordVBA implements webhooks.Employees.
func (a WebhookEmployees) RecordVBA(ctx context.Context, e webhooks.EmployeeEvent) (webhooks.Outcome, error) {
	return outcomeOf(Events(a).RecordVBA(ctx, eventOf(e)))
}

// RefreshOnboarding implements webhooks.Employees.
func (a WebhookEmployees) RefreshOnboarding(ctx context.Context, e webhooks.EmployeeEvent) (webhooks.Outcome, error) {
	return outcomeOf(Events(a).RefreshOnboarding(ctx, eventOf(e)))
}

// FlagKYCAction implements webhooks.Employees.
func (a WebhookEmployees) FlagKYCAction(ctx context.Context, e webhooks.EmployeeEvent) (webhooks.Outcome, error) {
	return outcomeOf(Events(a).FlagKYCAction(ctx, eventOf(e)))
}

func resultOf(r mirror.ReconcileResult, err error) (webhooks.ReconcileResult, error) {
	return webhooks.ReconcileResult{Checked: r.Checked, Corrected: r.Corrected, Notes: r.Notes}, err
}

// InviteReconciler adapts InviteChecker to webhooks.Reconciler.
type InviteReconciler struct{ H *Handler }

// Name implements webhooks.Reconciler.
func (r InviteReconciler) Name() string { return InviteChecker(r).Name() }

// Reconcile implements webhooks.Reconciler.
func (r InviteReconciler) Reconcile(ctx context.Context) (webhooks.ReconcileResult, error) {
	return resultOf(InviteChecker(r).Reconcile(ctx))
}

// OnboardingReconciler adapts OnboardingChecker to webhooks.Reconciler.
type OnboardingReconciler struct {
	H      *Handler
	MaxAge time.Duration
	Batch  int
}

// Name implements webhooks.Reconciler.
func (r OnboardingReconciler) Name() string { return OnboardingChecker(r).Name() }

// Reconcile implements webhooks.Reconciler.
func (r OnboardingReconciler) Reconcile(ctx context.Context) (webhooks.ReconcileResult, error) {
	return resultOf(OnboardingChecker(r).Reconcile(ctx))
}
