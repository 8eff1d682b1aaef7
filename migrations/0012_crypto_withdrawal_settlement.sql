-- +goose Up
-- A crypto withdrawal's outcome on the rail, from the withdrawal webhooks
-- (employee.withdrawal.completed / .failed and their wallet.* names): the
-- event names the withdrawal by its upstream id (the payload's reference).
-- 'completed' settled at the destination; 'rail_failed' was signed and sent
-- but did not complete, with the rail's reason ('failed' stays the API's
-- 5xx on the create call: nothing was opened). settled_event_id is the
-- delivery that recorded it, so a repeated or replayed one changes nothing.
ALTER TABLE crypto_withdrawals DROP CONSTRAINT crypto_withdrawals_state_check;
ALTER TABLE crypto_withdrawals ADD CONSTRAINT crypto_withdrawals_state_check
    CHECK (state IN ('sending', 'awaiting_signature', 'created', 'refused', 'failed', 'unknown', 'completed', 'rail_failed'));
ALTER TABLE crypto_withdrawals
    ADD COLUMN failure_reason   TEXT        NOT NULL DEFAULT '',
    ADD COLUMN settled_at       TIMESTAMPTZ,
    ADD COLUMN settled_event_id BIGINT      REFERENCES webhook_events (id);
CREATE INDEX crypto_withdrawals_upstream_idx ON crypto_withdrawals (upstream_id) WHERE upstream_id <> '';
CREATE INDEX crypto_withdrawals_sign_request_idx ON crypto_withdrawals (sign_request_id) WHERE sign_request_id IS NOT NULL;

-- +goose Down
DROP INDEX crypto_withdrawals_sign_request_idx;
DROP INDEX crypto_withdrawals_upstream_idx;
ALTER TABLE crypto_withdrawals DROP COLUMN settled_event_id, DROP COLUMN settled_at, DROP COLUMN failure_reason;
UPDATE crypto_withdrawals SET state = 'awaiting_signature' WHERE state IN ('completed', 'rail_failed');
ALTER TABLE crypto_withdrawals DROP CONSTRAINT crypto_withdrawals_state_check;
ALTER TABLE crypto_withdrawals ADD CONSTRAINT crypto_withdrawals_state_check
    CHECK (state IN ('sending', 'awaiting_signature', 'created', 'refused', 'failed', 'unknown'));
