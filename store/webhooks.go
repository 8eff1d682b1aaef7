package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WebhookSubscription is the partner's webhook subscription as the app knows
// it. The secret is only ever held sealed (encrypted by the caller); the
// store never sees it in plain text.
type WebhookSubscription struct {
	UpstreamID           string
	PartnerID            string
	CallbackURL          string
	Events               []string
	Active               bool
	SecretSealed         []byte // nil when this app does not know the secret
	SecretVersion        int
	PreviousSecretSealed []byte
	RotatedAt            time.Time
	RotatingSince        time.Time // zero unless a rotation is under way
	SignatureFailures    int64
	LastSignatureFailure time.Time
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// HasSecret reports whether the app can verify deliveries.
func (w WebhookSubscription) HasSecret() bool { return len(w.SecretSealed) > 0 }

const subscriptionColumns = `upstream_id, partner_id, callback_url, events, active, secret_sealed, secret_version,
	previous_secret_sealed, rotated_at, rotating_since, signature_failures, last_signature_failure, created_at, updated_at`

func scanSubscription(row pgx.Row) (WebhookSubscription, error) {
	var w WebhookSubscription
	var rotated, rotating, lastFail *time.Time
	err := row.Scan(&w.UpstreamID, &w.PartnerID, &w.CallbackURL, &w.Events, &w.Active, &w.SecretSealed, &w.SecretVersion,
		&w.PreviousSecretSealed, &rotated, &rotating, &w.SignatureFailures, &lastFail, &w.CreatedAt, &w.UpdatedAt)
	if rotated != nil {
		w.RotatedAt = *rotated
	}
	if rotating != nil {
		w.RotatingSince = *rotating
	}
	if lastFail != nil {
		w.LastSignatureFailure = *lastFail
	}
	return w, err
}

// WebhookSubscription loads the subscription; ErrNotFound when none is kept.
func (s *Store) WebhookSubscription(ctx context.Context) (WebhookSubscription, error) {
	w, err := scanSubscription(s.db.QueryRow(ctx, `SELECT `+subscriptionColumns+` FROM webhook_subscription WHERE id = 1`))
	if err != nil {
		return WebhookSubscription{}, fmt.Errorf("store: load webhook subscription: %w", notFound(err))
	}
	return w, nil
}

// SubscriptionChange is what the settings page saves after an upstream call
// succeeded.
type SubscriptionChange struct {
	UpstreamID  string
	PartnerID   string
	CallbackURL string
	Events      []string
	Active      bool
	// SecretSealed replaces the secret when set (creation, rotation); the
	// current one becomes the previous one.
	SecretSealed []byte
}

// SaveWebhookSubscription records the subscription as upstream now has it.
// Callers write its audit row in the same transaction (Tx, or an action's
// finish).
func (s *Store) SaveWebhookSubscription(ctx context.Context, c SubscriptionChange) (WebhookSubscription, error) {
	var out WebhookSubscription
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO webhook_subscription (id) VALUES (1) ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("store: save webhook subscription: %w", err)
		}
		if c.Events == nil {
			c.Events = []string{}
		}
		row := tx.QueryRow(ctx, `
			UPDATE webhook_subscription SET
				upstream_id = $1, partner_id = $2, callback_url = $3, events = $4, active = $5,
				previous_secret_sealed = CASE WHEN $6::bytea IS NULL THEN previous_secret_sealed ELSE secret_sealed END,
				rotated_at = CASE WHEN $6::bytea IS NULL THEN rotated_at ELSE now() END,
				secret_version = CASE WHEN $6::bytea IS NULL THEN secret_version ELSE secret_version + 1 END,
				secret_sealed = COALESCE($6::bytea, secret_sealed),
				rotating_since = CASE WHEN $6::bytea IS NULL THEN rotating_since ELSE NULL END,
				signature_failures = CASE WHEN $6::bytea IS NULL THEN signature_failures ELSE 0 END,
				updated_at = now()
			WHERE id = 1
			RETURNING `+subscriptionColumns,
			c.UpstreamID, c.PartnerID, c.CallbackURL, c.Events, c.Active, c.SecretSealed)
		out, err = scanSubscription(row)
		if err != nil {
			return fmt.Errorf("store: save webhook subscription: %w", err)
		}
		return nil
	})
	return out, err
}

// MarkSecretRotating records that a rotation is under way: until the new
// secret is saved, a delivery that does not verify may be signed with it,
// so the receiver answers 503 (retry) instead of 401.
func (s *Store) MarkSecretRotating(ctx context.Context, rotating bool) error {
	_, err := s.db.Exec(ctx, `
		UPDATE webhook_subscription SET rotating_since = CASE WHEN $1 THEN now() ELSE NULL END WHERE id = 1`, rotating)
	if err != nil {
		return fmt.Errorf("store: mark rotation: %w", err)
	}
	return nil
}

// SignatureFailure is a delivery refused for its signature (headers only).
type SignatureFailure struct {
	At        time.Time
	WebhookID string
	Reason    string
}

// keptSignatureFailures bounds the refused deliveries kept for the pages.
const keptSignatureFailures = 1000

// RecordSignatureFailure counts a refused delivery, so the settings page
// can warn that real events may be lost.
func (s *Store) RecordSignatureFailure(ctx context.Context, f SignatureFailure) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_signature_failures (webhook_id, reason) VALUES ($1, $2)`,
			truncate(f.WebhookID, 200), truncate(f.Reason, 200)); err != nil {
			return fmt.Errorf("store: record signature failure: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_subscription SET signature_failures = signature_failures + 1, last_signature_failure = now()
			WHERE id = 1`); err != nil {
			return fmt.Errorf("store: record signature failure: %w", err)
		}
		// Anyone can send bad signatures: keep only the most recent ones.
		if _, err := tx.Exec(ctx, `
			DELETE FROM webhook_signature_failures
			WHERE id < (SELECT id FROM webhook_signature_failures ORDER BY id DESC OFFSET $1 LIMIT 1)`, keptSignatureFailures); err != nil {
			return fmt.Errorf("store: prune signature failures: %w", err)
		}
		return nil
	})
}

// ListSignatureFailures returns the most recent refused deliveries.
func (s *Store) ListSignatureFailures(ctx context.Context, limit int) ([]SignatureFailure, error) {
	rows, err := s.db.Query(ctx, `
		SELECT at, webhook_id, reason FROM webhook_signature_failures ORDER BY at DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list signature failures: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SignatureFailure, error) {
		var f SignatureFailure
		err := r.Scan(&f.At, &f.WebhookID, &f.Reason)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: list signature failures: %w", err)
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
