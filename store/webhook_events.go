package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Webhook event processing states.
const (
	EventQueued      = "queued"      // stored, processing enqueued
	EventProcessed   = "processed"   // processing applied it
	EventDeferred    = "deferred"    // nothing local to apply it to yet; kept for reconciliation
	EventKept        = "kept"        // unknown event type: kept and shown, not dropped
	EventFailed      = "failed"      // processing gave up; replay it once the cause is fixed
	EventUnparseable = "unparseable" // valid signature but not an event envelope
)

// EventStates lists the states in the order the event log offers them.
func EventStates() []string {
	return []string{EventQueued, EventProcessed, EventDeferred, EventKept, EventFailed, EventUnparseable}
}

// WebhookEvent is one delivery as stored.
type WebhookEvent struct {
	ID              int64
	WebhookID       string
	SourceEventID   string
	EventType       string
	EventTimestamp  time.Time
	ReceivedAt      time.Time
	Body            []byte
	Signature       string
	Duplicates      int
	LastDuplicateAt time.Time
	State           string
	Outcome         string
	Error           string
	Attempts        int
	ProcessedCount  int
	ProcessedAt     time.Time
	ServiceUserID   string
	// BodyRemovedAt is when retention blanked the body (zero: kept).
	BodyRemovedAt time.Time
}

// NewDelivery is a verified delivery about to be stored.
type NewDelivery struct {
	// WebhookID is the key deliveries are deduplicated on: the signed
	// body's id, never a header the signature does not cover.
	WebhookID      string
	SourceEventID  string
	EventType      string
	EventTimestamp time.Time
	Body           []byte
	Unparseable    bool
	Reason         string // why it is unparseable
	// SecretVersion is the version of the secret that verified the
	// delivery: the insert happens only while it is still the current one,
	// so a rotation switches the receiver atomically.
	SecretVersion int
}

// ErrStaleSecret is returned by ReceiveDelivery when the secret that
// verified the delivery was replaced meanwhile: verify again.
var ErrStaleSecret = errors.New("store: webhook secret changed since verification")

const eventColumns = `id, webhook_id, source_event_id, event_type, event_timestamp, received_at, body, signature,
	duplicates, last_duplicate_at, state, outcome, error, attempts, processed_count, processed_at, service_user_id, body_removed_at`

func scanEvent(row pgx.Row) (WebhookEvent, error) {
	var e WebhookEvent
	var ts, dup, proc, removed *time.Time
	err := row.Scan(&e.ID, &e.WebhookID, &e.SourceEventID, &e.EventType, &ts, &e.ReceivedAt, &e.Body, &e.Signature,
		&e.Duplicates, &dup, &e.State, &e.Outcome, &e.Error, &e.Attempts, &e.ProcessedCount, &proc, &e.ServiceUserID, &removed)
	if removed != nil {
		e.BodyRemovedAt = *removed
	}
	if ts != nil {
		e.EventTimestamp = *ts
	}
	if dup != nil {
		e.LastDuplicateAt = *dup
	}
	if proc != nil {
		e.ProcessedAt = *proc
	}
	return e, err
}

// Received is what ReceiveDeliveries did with one delivery: stored under
// ID, new (Inserted) or a duplicate; Err is ErrStaleSecret when the secret
// that verified it was replaced meanwhile (nothing stored).
type Received struct {
	ID       int64
	Inserted bool
	Err      error
}

// ReceiveDelivery stores one delivery as ReceiveDeliveries does.
func (s *Store) ReceiveDelivery(ctx context.Context, d NewDelivery, wake func(ctx context.Context, tx pgx.Tx) error) (int64, bool, error) {
	res, err := s.ReceiveDeliveries(ctx, []NewDelivery{d}, wake)
	if err != nil {
		return 0, false, err
	}
	return res[0].ID, res[0].Inserted, res[0].Err
}

// ReceiveDeliveries stores deliveries keyed by their WebhookIDs (distinct
// within one call) in one statement and one transaction: when a delivery
// that can be processed is new, wake (the processing job's insert) runs in
// the same transaction, so a stored event always has a worker coming. A
// delivery already stored only has its duplicate count raised (Inserted
// false). A delivery is stored only while the secret that verified it is
// the current one (Err ErrStaleSecret otherwise). Rows are inserted in key
// order, so two calls with keys in common wait for each other rather than
// deadlock.
func (s *Store) ReceiveDeliveries(ctx context.Context, ds []NewDelivery, wake func(ctx context.Context, tx pgx.Tx) error) ([]Received, error) {
	n := len(ds)
	var (
		keys, sources, types, states, errs = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		stamps                             = make([]*time.Time, n)
		bodies                             = make([][]byte, n)
		versions                           = make([]int32, n)
	)
	seen := make(map[string]bool, n)
	for i, d := range ds {
		if seen[d.WebhookID] {
			return nil, fmt.Errorf("store: receive deliveries: %q twice in one statement", d.WebhookID)
		}
		seen[d.WebhookID] = true
		keys[i], sources[i], types[i], bodies[i], versions[i] = d.WebhookID, d.SourceEventID, d.EventType, d.Body, int32(d.SecretVersion)
		states[i] = EventQueued
		if d.Unparseable {
			states[i], errs[i] = EventUnparseable, d.Reason
		}
		if !d.EventTimestamp.IsZero() {
			stamps[i] = &d.EventTimestamp
		}
	}
	out := make([]Received, n)
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// xmax = 0 only for a row this statement inserted.
		rows, err := tx.Query(ctx, `
			WITH input AS (
				SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bytea[], $6::text[], $7::text[], $8::int[])
					WITH ORDINALITY AS t(webhook_id, source_event_id, event_type, event_timestamp, body, state, error, secret_version, ord)
			), ev AS (
				INSERT INTO webhook_events (webhook_id, source_event_id, event_type, event_timestamp, body, state, error)
				SELECT i.webhook_id, i.source_event_id, i.event_type, i.event_timestamp, i.body, i.state, i.error FROM input i
				WHERE EXISTS (SELECT 1 FROM webhook_subscription WHERE id = 1 AND secret_version = i.secret_version)
				ORDER BY i.webhook_id
				ON CONFLICT (webhook_id) DO UPDATE
					SET duplicates = webhook_events.duplicates + 1, last_duplicate_at = now()
				RETURNING id, webhook_id, (xmax = 0) AS inserted
			)
			SELECT i.ord, coalesce(ev.id, 0), coalesce(ev.inserted, false), ev.id IS NOT NULL
			FROM input i LEFT JOIN ev ON ev.webhook_id = i.webhook_id
			ORDER BY i.ord`,
			keys, sources, types, stamps, bodies, states, errs, versions)
		if err != nil {
			return err
		}
		var got int
		var ord, id int64
		var inserted, stored, queued bool
		_, err = pgx.ForEachRow(rows, []any{&ord, &id, &inserted, &stored}, func() error {
			i := int(ord) - 1
			if i < 0 || i >= n {
				return fmt.Errorf("row %d of %d", ord, n)
			}
			got++
			if !stored {
				out[i] = Received{Err: ErrStaleSecret}
				return nil
			}
			out[i] = Received{ID: id, Inserted: inserted}
			queued = queued || (inserted && !ds[i].Unparseable)
			return nil
		})
		if err == nil && got != n {
			err = fmt.Errorf("%d rows for %d deliveries", got, n)
		}
		if err != nil {
			return err
		}
		if queued && wake != nil {
			return wake(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: receive deliveries: %w", err)
	}
	return out, nil
}

// WebhookEventByID loads one event.
func (s *Store) WebhookEventByID(ctx context.Context, id int64) (WebhookEvent, error) {
	e, err := scanEvent(s.db.QueryRow(ctx, `SELECT `+eventColumns+` FROM webhook_events WHERE id = $1`, id))
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("store: load webhook event %d: %w", id, notFound(err))
	}
	return e, nil
}

// EventOutcome is what one processing run decided.
type EventOutcome struct {
	State         string
	Outcome       string
	Error         string
	ServiceUserID string
}

// RecordEventAttempt records a failed attempt (the job will retry) or, when
// final, marks a still queued event failed (a failed replay leaves the
// event's state as it was, with the error shown).
func (s *Store) RecordEventAttempt(ctx context.Context, id int64, errText string, final bool) error {
	_, err := s.db.Exec(ctx, `
		UPDATE webhook_events SET attempts = attempts + 1, error = $2,
			state = CASE WHEN $3 AND state = 'queued' THEN 'failed' ELSE state END
		WHERE id = $1`, id, truncate(errText, 2000), final)
	if err != nil {
		return fmt.Errorf("store: record attempt of webhook event %d: %w", id, err)
	}
	return nil
}

// EventFilter selects events for the log, newest first, with keyset paging.
type EventFilter struct {
	EventType string
	State     string
	From, To  time.Time // received_at window; zero means open
	BeforeID  int64
	Limit     int
}

func (f EventFilter) where() (string, []any) {
	var from, to *time.Time
	if !f.From.IsZero() {
		from = &f.From
	}
	if !f.To.IsZero() {
		to = &f.To
	}
	return `($1 = '' OR event_type = $1) AND ($2 = '' OR state = $2)
		AND ($3::timestamptz IS NULL OR received_at >= $3) AND ($4::timestamptz IS NULL OR received_at < $4)
		AND ($5::bigint = 0 OR id < $5::bigint)`, []any{f.EventType, f.State, from, to, f.BeforeID}
}

// ListWebhookEvents returns events newest first.
func (s *Store) ListWebhookEvents(ctx context.Context, f EventFilter) ([]WebhookEvent, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	where, args := f.where()
	rows, err := s.db.Query(ctx, `SELECT `+eventColumns+` FROM webhook_events WHERE `+where+`
		ORDER BY id DESC LIMIT $6`, append(args, f.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: list webhook events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WebhookEvent, error) { return scanEvent(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list webhook events: %w", err)
	}
	return out, nil
}

// CountWebhookEventsByState counts the events a filter selects, per state.
func (s *Store) CountWebhookEventsByState(ctx context.Context, f EventFilter) (map[string]int, error) {
	f.BeforeID = 0
	where, args := f.where()
	rows, err := s.db.Query(ctx, `SELECT state, count(*) FROM webhook_events WHERE `+where+` GROUP BY state`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: count webhook events: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("store: count webhook events: %w", err)
		}
		out[st] = n
	}
	return out, rows.Err()
}

// WebhookEventTypes lists the event types seen, for the filter.
func (s *Store) WebhookEventTypes(ctx context.Context) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT DISTINCT event_type FROM webhook_events WHERE event_type <> '' ORDER BY 1 LIMIT 200`)
	if err != nil {
		return nil, fmt.Errorf("store: list event types: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: list event types: %w", err)
	}
	return out, nil
}

// ReplayEvents enqueues processing again for the events ids names (skipping
// unparseable ones and those whose body retention removed), with one audit row, in one transaction. It returns how
// many were enqueued.
func (s *Store) ReplayEvents(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx pgx.Tx, eventID int64, eventType string) error, audit AuditEntry) (int, error) {
	n := 0
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		type replayed struct {
			ID        int64
			EventType string
		}
		rows, err := tx.Query(ctx, `SELECT id, event_type FROM webhook_events WHERE id = ANY($1) AND state <> 'unparseable' AND body_removed_at IS NULL ORDER BY id`, ids)
		if err != nil {
			return fmt.Errorf("store: replay events: %w", err)
		}
		keep, err := pgx.CollectRows(rows, pgx.RowToStructByPos[replayed])
		if err != nil {
			return fmt.Errorf("store: replay events: %w", err)
		}
		for _, e := range keep {
			if err := enqueue(ctx, tx, e.ID, e.EventType); err != nil {
				return err
			}
		}
		n = len(keep)
		audit.Detail = fmt.Sprintf("%s (%d enqueued)", audit.Detail, n)
		return writeAudit(ctx, tx, audit)
	})
	return n, err
}

// DeferredEventIDs returns events kept for reconciliation, oldest first.
func (s *Store) DeferredEventIDs(ctx context.Context, limit int) ([]int64, error) {
	rows, err := s.db.Query(ctx, `SELECT id FROM webhook_events WHERE state IN ('deferred', 'failed') ORDER BY id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: deferred events: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: deferred events: %w", err)
	}
	return out, nil
}

// StoredWebhookIDs returns which of the given webhook ids are stored.
func (s *Store) StoredWebhookIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	rows, err := s.db.Query(ctx, `SELECT webhook_id FROM webhook_events WHERE webhook_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: stored webhook ids: %w", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: stored webhook ids: %w", err)
	}
	out := make(map[string]bool, len(got))
	for _, id := range got {
		out[id] = true
	}
	return out, nil
}

// EventApplication is everything one processing run writes: the rows the
// event adds (each keyed by the event, so writing them twice changes
// nothing) and its outcome.
type EventApplication struct {
	EventID  int64
	Replay   bool
	Activity []Activity
	Cards    []CardActivity
	Outcome  EventOutcome
}

// The outcome is recorded only while the event is still queued (or on a
// replay): of two runs of the same event, one records it.
const applyOutcome = `
	UPDATE webhook_events SET state = $2, outcome = $3, error = $4,
		service_user_id = CASE WHEN $5 = '' THEN service_user_id ELSE $5 END,
		attempts = attempts + 1, processed_count = processed_count + 1, processed_at = now()
	WHERE id = $1 AND state <> 'unparseable' AND (state = 'queued' OR $6::boolean)
	RETURNING id`

// queueApplication adds an application's statements to a batch.
func queueApplication(b *pgx.Batch, a EventApplication) error {
	for _, c := range a.Cards {
		if c.EventKey == "" || c.CardID == "" || (c.Kind != CardActivityTransaction && c.Kind != CardActivityFulfillment) {
			return fmt.Errorf("store: apply webhook event %d: card activity needs an event key, a card and a kind", a.EventID)
		}
		// The statement of RecordCardActivity (card_activity.go), batched.
		b.Queue(`
			INSERT INTO card_activity (event_key, card_id, kind, status, amount, fee, currency, merchant, detail, occurred_at)
			VALUES ($1, $2, $3, $4, $5::text::numeric, $6::text::numeric, $7, $8, $9, $10)
			ON CONFLICT (event_key) DO NOTHING`,
			c.EventKey, c.CardID, c.Kind, c.Status, decimalPtrText(c.Amount), decimalPtrText(c.Fee), c.Currency,
			cardCut(c.Merchant, 200), cardCut(c.Detail, 500), c.OccurredAt)
	}
	for _, x := range a.Activity {
		QueueActivity(b, x)
	}
	o := a.Outcome
	b.Queue(applyOutcome, a.EventID, o.State, truncate(o.Outcome, 2000), truncate(o.Error, 2000), o.ServiceUserID, a.Replay)
	return nil
}

// readApplication reads a batch's results: whether this run recorded the
// outcome.
func readApplication(br pgx.BatchResults, a EventApplication) (bool, error) {
	for range len(a.Cards) + len(a.Activity) {
		if _, err := br.Exec(); err != nil {
			return false, fmt.Errorf("store: apply webhook event %d: %w", a.EventID, err)
		}
	}
	var id int64
	err := br.QueryRow().Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: apply webhook event %d: %w", a.EventID, err)
	}
	return true, nil
}

// ApplyEvent writes an application in one round trip, as one implicit
// transaction (a batch runs all or nothing). It reports whether this run
// recorded the outcome (false: another run had settled the event).
func (s *Store) ApplyEvent(ctx context.Context, a EventApplication) (bool, error) {
	b := &pgx.Batch{}
	if err := queueApplication(b, a); err != nil {
		return false, err
	}
	br := s.db.SendBatch(ctx, b)
	applied, err := readApplication(br, a)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: apply webhook event %d: %w", a.EventID, cerr)
	}
	return applied, err
}

// ApplyEventTx is ApplyEvent inside a transaction the caller owns (when the
// run also enqueues jobs).
func ApplyEventTx(ctx context.Context, tx pgx.Tx, a EventApplication) (bool, error) {
	b := &pgx.Batch{}
	if err := queueApplication(b, a); err != nil {
		return false, err
	}
	br := tx.SendBatch(ctx, b)
	applied, err := readApplication(br, a)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: apply webhook event %d: %w", a.EventID, cerr)
	}
	return applied, err
}
