-- +goose Up
-- The approval queue's history: proposals that are settled (completed,
-- rejected, expired) or failed, newest change first.
CREATE INDEX proposals_history_key ON proposals (upstream_updated_at DESC, id DESC)
    WHERE status IN ('COMPLETED', 'REJECTED', 'FAILED', 'EXPIRED');

-- +goose Down
DROP INDEX proposals_history_key;
