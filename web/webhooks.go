package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"partneradmin/handlers"
	"partneradmin/handlers/secretbox"
	"partneradmin/handlers/webhooks"
	"partneradmin/store"
)

// newWebhooks builds the webhooks area: the secret box from ENCRYPTION_KEY
// (an ephemeral key, with a warning, when none is configured: only tests
// and embedders that never restart should run like that; partner-admin
// always passes one, generated into the data directory if need be).
func newWebhooks(d Deps, hd handlers.Deps, emp webhooks.Employees, more ...webhooks.Reconciler) (*webhooks.Handler, error) {
	var key []byte
	if d.Config.EncryptionKey != "" {
		k, err := secretbox.ParseKey(d.Config.EncryptionKey.Reveal())
		if err != nil {
			return nil, err
		}
		key = k
	} else {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("web: ephemeral encryption key: %w", err)
		}
		d.Logger.Warn("no ENCRYPTION_KEY: webhook secrets are sealed with a key that lasts only as long as this process")
	}
	box, err := secretbox.New(key)
	if err != nil {
		return nil, err
	}
	return webhooks.New(hd, box, emp, more...), nil
}

// addWebhookWorkers registers the webhook processing and reconciliation
// workers.
func addWebhookWorkers(workers *river.Workers, h *webhooks.Handler) error {
	if err := river.AddWorkerSafely(workers, &webhooks.ProcessEventWorker{H: h}); err != nil {
		return fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &webhooks.DrainWorker{H: h}); err != nil {
		return fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &webhooks.RefreshBalancesWorker{H: h}); err != nil {
		return fmt.Errorf("web: add worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &webhooks.ReconcileWorker{H: h}); err != nil {
		return fmt.Errorf("web: add worker: %w", err)
	}
	return nil
}

// webhookPeriodicJobs are the reconciliation job and the drain that picks
// up events whose worker died, once across replicas.
func webhookPeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(webhooks.DrainInterval),
			func() (river.JobArgs, *river.InsertOpts) { return webhooks.DrainArgs{}, nil }, nil),
		river.NewPeriodicJob(river.PeriodicInterval(webhooks.ReconcileInterval),
			func() (river.JobArgs, *river.InsertOpts) { return webhooks.ReconcileArgs{}, nil }, nil),
	}
}

// Webhooks is the webhooks area (for tests and tools).
func (a *App) Webhooks() *webhooks.Handler { return a.webhooks }

// AdoptWebhookSecret records the secret of a subscription created outside
// the settings page (the in-process sandbox's demo subscription, whose
// secret SeedDemo returns), sealed, with an audit row. It reads the
// subscription from the API and does nothing when that secret is already
// the one kept.
func (a *App) AdoptWebhookSecret(ctx context.Context, secret string) error {
	h := a.webhooks
	if h.API == nil {
		return errors.New("web: adopt webhook secret: no Partner API")
	}
	if sub, err := a.store.WebhookSubscription(ctx); err == nil && sub.HasSecret() {
		if kept, err := h.Box.Open(sub.SecretSealed); err == nil && kept == secret {
			return nil
		}
	}
	cfg, err := h.API.GetWebhookConfig(ctx)
	if err != nil {
		return fmt.Errorf("web: adopt webhook secret: %w", err)
	}
	sealed, err := h.Box.Seal(secret)
	if err != nil {
		return err
	}
	err = a.store.Tx(ctx, func(tx *store.Store) error {
		if _, err := tx.SaveWebhookSubscription(ctx, store.SubscriptionChange{
			UpstreamID: cfg.ID, PartnerID: cfg.PartnerID, CallbackURL: cfg.CallbackURL, Events: cfg.Events, Active: cfg.Active,
			SecretSealed: sealed,
		}); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditEntry{Actor: store.Actor{Email: "bootstrap"}, Action: "webhooks.secret.adopt", Target: "webhook:" + cfg.ID,
			Outcome: store.OutcomeOK, Detail: "secret of a subscription created at start"})
	})
	if err != nil {
		return err
	}
	a.logger.InfoContext(ctx, "webhook secret adopted", "subscription", cfg.ID)
	return nil
}
