-- +goose Up
-- When the action-required flag was raised, so evidence that nothing is asked
-- any more (an onboarding.completed delivery, a read of the API's readiness)
-- clears only a flag older than itself: a delivery processed late or
-- replayed never clears a newer flag. Null when unknown (a flag written
-- without a time is taken as older than any evidence).
ALTER TABLE employees ADD COLUMN action_required_at TIMESTAMPTZ;
UPDATE employees SET action_required_at = updated_at WHERE action_required <> '' OR invite_state = 'action_required';

-- +goose Down
ALTER TABLE employees DROP COLUMN action_required_at;
