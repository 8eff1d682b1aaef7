-- +goose Up
-- Bank payouts (spec: "Bank payout rail (funded from USDB)") started from
-- Money out. A row is written by the transaction that finishes the payout's
-- action (the ledger keeps the request before the call), so a double click
-- or a second tab sends one payout. The amount is kept both ways the spec
-- warns about: minor units as sent (amount_minor) and the decimal the person
-- typed (amount). Only the last four digits of the destination account are
-- kept. The outcome on the rail comes from the withdrawal webhooks (the
-- activity feed, matched by the payout's id as `reference`); the API has no
-- read of a payout.
CREATE TABLE payouts (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    action_key           TEXT        NOT NULL UNIQUE,
    user_id              TEXT        NOT NULL,             -- the treasury user's serviceUserId
    wallet_id            TEXT        NOT NULL,             -- the USDB wallet
    amount               NUMERIC     NOT NULL,             -- USD as typed
    amount_minor         BIGINT      NOT NULL,             -- USDB minor units as sent
    country              TEXT        NOT NULL,
    currency             TEXT        NOT NULL,             -- destination ISO 4217
    bank_id              TEXT        NOT NULL,
    bank_name            TEXT        NOT NULL DEFAULT '',
    branch_id            TEXT        NOT NULL DEFAULT '',
    branch_name          TEXT        NOT NULL DEFAULT '',
    account_last4        TEXT        NOT NULL DEFAULT '',
    holder_name          TEXT        NOT NULL DEFAULT '',
    note                 TEXT        NOT NULL DEFAULT '',
    upstream_id          TEXT        NOT NULL DEFAULT '',
    workflow_id          TEXT        NOT NULL DEFAULT '',
    hash_to_sign         TEXT        NOT NULL DEFAULT '',
    deadline             TIMESTAMPTZ,
    quote_source_amount  NUMERIC,
    quote_destination    NUMERIC,
    quote_rate           NUMERIC,
    quote_fee            NUMERIC,
    quote_expires_at     TIMESTAMPTZ,
    state                TEXT        NOT NULL DEFAULT 'awaiting_signature'
        CHECK (state IN ('awaiting_signature', 'created', 'processing', 'completed', 'failed')),
    failure_reason       TEXT        NOT NULL DEFAULT '',
    settled_at           TIMESTAMPTZ,
    sign_request_id      BIGINT      REFERENCES sign_requests (id),
    created_by_staff_id  BIGINT      REFERENCES staff (id),
    created_by           TEXT        NOT NULL DEFAULT '',
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX payouts_upstream_idx ON payouts (upstream_id) WHERE upstream_id <> '';

-- +goose Down
DROP TABLE payouts;
