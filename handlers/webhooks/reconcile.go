package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"partneradmin/apiclient"
	"partneradmin/handlers/inbound"
	"partneradmin/handlers/userstate"
	"partneradmin/store"
)

// ReconcileInterval is how often the reconciliation job runs.
const ReconcileInterval = 15 * time.Minute

// Reconciler compares one part of the store with the API and corrects it.
// spec: a permanent delivery failure is never redelivered, so every effect
// of an event must also be reachable by reading the current state.
type Reconciler interface {
	Name() string
	Reconcile(ctx context.Context) (ReconcileResult, error)
}

// ReconcileResult is what one reconciler checked and corrected.
type ReconcileResult = inbound.ReconcileResult

// ReconcileArgs is the periodic reconciliation job.
type ReconcileArgs struct{}

// Kind names the job.
func (ReconcileArgs) Kind() string { return "webhooks_reconcile" }

// InsertOpts: a failed run is retried a few times; the next period runs anyway.
func (ReconcileArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ReconcileWorker runs ReconcileArgs jobs.
type ReconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	H *Handler
}

// Work runs every reconciler and records the run.
func (w *ReconcileWorker) Work(ctx context.Context, _ *river.Job[ReconcileArgs]) error {
	_, err := w.H.Reconcile(ctx)
	return err
}

// Reconcile runs every reconciler once and records what was corrected. A
// failing reconciler is noted and does not stop the others.
func (h *Handler) Reconcile(ctx context.Context) (store.ReconciliationRun, error) {
	run := store.ReconciliationRun{StartedAt: h.now()}
	for _, r := range h.Reconcilers {
		res, err := r.Reconcile(ctx)
		if err != nil {
			h.Logger.WarnContext(ctx, "reconciliation step failed", "step", r.Name(), "err", err)
			run.Notes = append(run.Notes, r.Name()+": failed, retried next run: "+err.Error())
		}
		run.Checked += res.Checked
		run.Corrected += res.Corrected
		for _, n := range res.Notes {
			run.Notes = append(run.Notes, r.Name()+": "+n)
		}
	}
	if len(run.Notes) > 200 {
		run.Notes = append(run.Notes[:200], fmt.Sprintf("... and %d more", len(run.Notes)-200))
	}
	if err := h.Store.RecordReconciliation(ctx, run); err != nil {
		return run, err
	}
	return run, nil
}

// BalanceReconciler re-reads the balances of every user the store knows and
// corrects the stored ones (a lost deposit event heals here).
type BalanceReconciler struct {
	Store Store
	API   API
	Now   func() time.Time
}

// Name implements Reconciler.
func (*BalanceReconciler) Name() string { return "balances" }

// Reconcile implements Reconciler.
func (b *BalanceReconciler) Reconcile(ctx context.Context) (ReconcileResult, error) {
	var res ReconcileResult
	if b.API == nil {
		res.Notes = append(res.Notes, "skipped: no Partner API connected")
		return res, nil
	}
	users, err := b.Store.KnownServiceUserIDs(ctx, 1000)
	if err != nil {
		return res, err
	}
	for _, u := range users {
		changes, _, err := userstate.RefreshBalances(ctx, b.Store, b.API, u, b.Now())
		if err != nil {
			if apiclient.IsNotFound(err) || apiclient.IsForbidden(err) {
				res.Notes = append(res.Notes, "user "+u+": "+apiStatus(err))
				continue
			}
			return res, err
		}
		res.Checked++
		for _, c := range changes {
			switch {
			case c.Unknown:
				res.Notes = append(res.Notes, fmt.Sprintf("user %s wallet %s (%s) is not in the mirror", u, c.SmartWalletID, c.Currency))
				continue
			case c.WasUnread:
				res.Notes = append(res.Notes, fmt.Sprintf("user %s wallet %s: balance %s %s read for the first time", u, c.SmartWalletID, c.Now, c.Currency))
			default:
				res.Notes = append(res.Notes, fmt.Sprintf("user %s wallet %s: balance %s %s corrected to %s", u, c.SmartWalletID, c.Was, c.Currency, c.Now))
			}
			res.Corrected++
		}
	}
	return res, nil
}

// DeferredEventReconciler runs deferred and failed events again: once the
// employee they are about is known (or the API answers again) they apply.
type DeferredEventReconciler struct{ H *Handler }

// Name implements Reconciler.
func (*DeferredEventReconciler) Name() string { return "deferred events" }

// Reconcile implements Reconciler.
func (d *DeferredEventReconciler) Reconcile(ctx context.Context) (ReconcileResult, error) {
	var res ReconcileResult
	ids, err := d.H.Store.DeferredEventIDs(ctx, 500)
	if err != nil {
		return res, err
	}
	for _, id := range ids {
		res.Checked++
		if err := d.H.ProcessEvent(ctx, id, true); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("event %d still fails: %v", id, err))
			continue
		}
		ev, err := d.H.Store.WebhookEventByID(ctx, id)
		if err != nil {
			return res, err
		}
		if ev.State == store.EventProcessed {
			res.Corrected++
			res.Notes = append(res.Notes, fmt.Sprintf("event %d (%s) applied: %s", id, ev.EventType, ev.Outcome))
		}
	}
	return res, nil
}

// DeliveryHistoryReconciler reads the API's delivery history and reports
// deliveries that failed for good upstream and never reached this app. Their
// bodies are gone; the other reconcilers heal their effects.
type DeliveryHistoryReconciler struct {
	Store Store
	API   API
}

// Name implements Reconciler.
func (*DeliveryHistoryReconciler) Name() string { return "delivery history" }

// Reconcile implements Reconciler.
func (d *DeliveryHistoryReconciler) Reconcile(ctx context.Context) (ReconcileResult, error) {
	var res ReconcileResult
	if d.API == nil {
		return res, nil
	}
	deliveries, err := d.API.ListWebhookDeliveries(ctx)
	if err != nil {
		if apiclient.IsNotFound(err) {
			return res, nil
		}
		return res, err
	}
	var failed []apiclient.WebhookDelivery
	var ids []string
	for _, x := range deliveries {
		if x.Status == apiclient.DeliveryFailed {
			failed = append(failed, x)
			ids = append(ids, x.ID)
		}
	}
	res.Checked = len(deliveries)
	if len(ids) == 0 {
		return res, nil
	}
	stored, err := d.Store.StoredWebhookIDs(ctx, ids)
	if err != nil {
		return res, err
	}
	for _, x := range failed {
		if !stored[x.ID] {
			res.Notes = append(res.Notes, fmt.Sprintf("delivery %s (%s) failed upstream and never arrived: %s", x.ID, x.EventType, x.ErrorMessage))
		}
	}
	return res, nil
}
