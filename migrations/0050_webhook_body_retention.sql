-- +goose NO TRANSACTION
-- +goose Up
-- Retention: a processed event's body is blanked after WEBHOOK_BODY_RETENTION
-- (the row stays, so a late duplicate is still recognised by webhook_id).
-- body_removed_at says when, so the event page can tell why it is empty.
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS body_removed_at TIMESTAMPTZ;
-- The retention job walks the events that still have a body, oldest first.
-- The predicate names only body_removed_at, which processing never writes,
-- so processing's updates stay heap-only (HOT); built concurrently, as the
-- table may be large when this runs (without a transaction: a failed run
-- leaves an invalid index that IF NOT EXISTS would keep, so drop it first).
DROP INDEX CONCURRENTLY IF EXISTS webhook_events_body_kept_idx;
CREATE INDEX CONCURRENTLY webhook_events_body_kept_idx
    ON webhook_events (received_at) WHERE body_removed_at IS NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS webhook_events_body_kept_idx;
ALTER TABLE webhook_events DROP COLUMN IF EXISTS body_removed_at;
