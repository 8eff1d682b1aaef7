-- +goose Up
-- Retention: a processed event's body is blanked after WEBHOOK_BODY_RETENTION
-- (the row stays, so a late duplicate is still recognised by webhook_id).
-- body_removed_at says when, so the event page can tell why it is empty.
ALTER TABLE webhook_events ADD COLUMN body_removed_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE webhook_events DROP COLUMN body_removed_at;
