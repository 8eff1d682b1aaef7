-- +goose Up
-- A treasury wallet's balance leaves over the crypto rail by the
-- withdrawal or by the API's alternative crypto offramp; both are kept
-- here, the same way, and said apart by their rail.
ALTER TABLE crypto_withdrawals
    ADD COLUMN rail TEXT NOT NULL DEFAULT 'withdrawal' CHECK (rail IN ('withdrawal', 'offramp'));

-- +goose Down
ALTER TABLE crypto_withdrawals DROP COLUMN rail;
