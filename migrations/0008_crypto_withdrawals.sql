-- +goose Up
-- Crypto withdrawals started from the treasury page. A row is written before
-- the upstream call, keyed by the form's one-time token, so a double click,
-- a reload that posts again, or a second replica sends nothing twice; it is
-- completed with the API's answer (and its audit row) in one transaction.
-- The spec's body has no amount: the API withdraws the wallet's whole
-- balance, so balance_seen is only the mirrored balance shown to the user.
CREATE TABLE crypto_withdrawals (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    form_token           TEXT        NOT NULL UNIQUE,
    user_id              TEXT        NOT NULL,             -- the treasury user's serviceUserId
    wallet_id            TEXT        NOT NULL,
    currency             TEXT        NOT NULL,             -- the wallet's stablecoin
    balance_seen         NUMERIC,
    destination_chain    TEXT        NOT NULL,
    destination_currency TEXT        NOT NULL,
    destination_address  TEXT        NOT NULL,
    state                TEXT        NOT NULL DEFAULT 'sending'
        CHECK (state IN ('sending', 'awaiting_signature', 'created', 'refused', 'failed', 'unknown')),
    upstream_id          TEXT        NOT NULL DEFAULT '',
    workflow_id          TEXT        NOT NULL DEFAULT '',
    hash_to_sign         TEXT        NOT NULL DEFAULT '',  -- the rail returns it once
    deadline             TIMESTAMPTZ,
    sign_request_id      BIGINT      REFERENCES sign_requests (id),
    error                TEXT        NOT NULL DEFAULT '',
    created_by_staff_id  BIGINT      REFERENCES staff (id),
    created_by           TEXT        NOT NULL DEFAULT '',
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at          TIMESTAMPTZ
);

-- +goose Down
DROP TABLE crypto_withdrawals;
