-- +goose Up
-- Stored deliveries are processed in batches: a worker claims the oldest
-- queued events for a lease (claimed_until) so that concurrent workers take
-- different ones, and a worker that died leaves its claim to expire.
ALTER TABLE webhook_events ADD COLUMN claimed_until TIMESTAMPTZ;
CREATE INDEX webhook_events_queued_key ON webhook_events (id) WHERE state = 'queued';

-- +goose Down
DROP INDEX webhook_events_queued_key;
ALTER TABLE webhook_events DROP COLUMN claimed_until;
