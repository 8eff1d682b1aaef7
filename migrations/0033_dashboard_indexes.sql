-- +goose Up
-- The start page reads short windows of long histories: 30 days of money
-- and 7 days of card spends out of a year of activity, a day of webhook
-- deliveries, a week of stopped cards, and the few employees who need
-- action among thousands. Without these each read scanned its whole table
-- (the README's Dashboards section has the measurements).

-- Money in and out, card spends: a time range of one kind, read from the
-- index alone.
CREATE INDEX activity_kind_time_idx ON activity (kind, occurred_at) INCLUDE (status, amount, currency);

-- Deliveries per hour. received_at is written once, so processing's
-- updates of state and counters stay heap-only (HOT).
CREATE INDEX webhook_events_received_idx ON webhook_events (received_at);

-- Cards last seen frozen or cancelled, newest first.
CREATE INDEX cards_stopped_idx ON cards (status_read_at DESC)
    WHERE lower(status) IN ('frozen', 'blocked', 'canceled', 'cancelled', 'deactivated');

-- Readiness by state across currencies: who has a currency active, whose
-- onboarding failed or was rejected.
CREATE INDEX employee_readiness_by_state_idx ON employee_readiness (state, employee_id);

-- Employees the API asks something of, and invites not linked.
CREATE INDEX employees_needs_action_idx ON employees (id)
    WHERE invite_state = 'action_required' OR action_required <> '';
CREATE INDEX employees_not_linked_idx ON employees (created_at)
    WHERE invite_state = 'invited' AND service_user_id IS NULL;

-- +goose Down
DROP INDEX employees_not_linked_idx;
DROP INDEX employees_needs_action_idx;
DROP INDEX employee_readiness_by_state_idx;
DROP INDEX cards_stopped_idx;
DROP INDEX webhook_events_received_idx;
DROP INDEX activity_kind_time_idx;
