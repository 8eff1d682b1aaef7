-- +goose NO TRANSACTION
-- +goose Up
-- The retention job walks the events that still have a body, oldest first.
-- The predicate names only body_removed_at, which processing never writes,
-- so processing's updates stay heap-only (HOT); built concurrently, as the
-- table may be large when this runs.
CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_events_body_kept_idx
    ON webhook_events (received_at) WHERE body_removed_at IS NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS webhook_events_body_kept_idx;
