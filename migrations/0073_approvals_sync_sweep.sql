-- +goose Up
-- The periodic approvals sync reads every period only the wallets where
-- something is happening (open proposals, recent changes, recent money,
-- the treasury) and sweeps the rest a few at a time, the least recently
-- read first: proposals_read_at is when the sync last listed a wallet's
-- proposals (NULL: never, so a new wallet comes first).
ALTER TABLE wallets ADD COLUMN proposals_read_at TIMESTAMPTZ;
CREATE INDEX wallets_sweep_key ON wallets (proposals_read_at NULLS FIRST, id);
CREATE INDEX proposals_unfinished_key ON proposals (wallet_id)
    WHERE status NOT IN ('COMPLETED', 'REJECTED', 'EXPIRED');

-- +goose Down
DROP INDEX proposals_unfinished_key;
DROP INDEX wallets_sweep_key;
ALTER TABLE wallets DROP COLUMN proposals_read_at;
