-- +goose Up
-- EUR SEPA payouts and Mexican offramps started from Money out. A row is
-- written in the transaction that finishes the action which opened the
-- order upstream (the prepare, or the MXN quote), under an id reserved
-- before the call, so the action names its order from the start. The IBAN
-- is never stored: only its country and last four characters, to tell
-- orders apart on screen.
CREATE TABLE sepa_mxn_orders (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    rail                 TEXT        NOT NULL CHECK (rail IN ('sepa', 'mxn')),
    action_key           TEXT        NOT NULL UNIQUE,
    upstream_id          TEXT        NOT NULL,             -- the API's orderId
    user_id              TEXT        NOT NULL,             -- the treasury user's serviceUserId
    wallet_id            TEXT        NOT NULL,
    currency             TEXT        NOT NULL,             -- the wallet's stablecoin (EURe, MEXe)
    amount               NUMERIC     NOT NULL,             -- decimal, in the token
    beneficiary          TEXT        NOT NULL DEFAULT '',  -- SEPA
    iban_masked          TEXT        NOT NULL DEFAULT '',  -- SEPA: country and last four only
    reference            TEXT        NOT NULL DEFAULT '',  -- SEPA remittance information, or the MXN note
    destination_amount   NUMERIC,                          -- MXN quote
    fee_bps              NUMERIC,
    fee_amount           NUMERIC,
    exchange_rate        NUMERIC,
    quote_expires_at     TIMESTAMPTZ,
    status               TEXT        NOT NULL,             -- the order's status as last read
    status_read_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    workflow_id          TEXT        NOT NULL DEFAULT '',  -- the first (or only) signatureRequest
    hash_to_sign         TEXT        NOT NULL DEFAULT '',
    deadline             TIMESTAMPTZ,
    sign_request_id      BIGINT      REFERENCES sign_requests (id),
    burn_workflow_id     TEXT        NOT NULL DEFAULT '',  -- MXN: the burnSignatureRequest, once the order shows it
    burn_hash_to_sign    TEXT        NOT NULL DEFAULT '',
    burn_deadline        TIMESTAMPTZ,
    burn_sign_request_id BIGINT      REFERENCES sign_requests (id),
    created_by_staff_id  BIGINT      REFERENCES staff (id),
    created_by           TEXT        NOT NULL DEFAULT '',
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE sepa_mxn_orders;
