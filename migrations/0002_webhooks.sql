-- +goose Up
-- The partner's webhook subscription as this app knows it: one row (the app
-- has one API key, so one partner scope). The secretKey is kept only
-- encrypted (AES-GCM with the configured key); the previous one is kept for a
-- few minutes after a rotation so a delivery signed with it is answered 503
-- (retry, signed with the new one) instead of 401 (lost for good).
CREATE TABLE webhook_subscription (
    id                     SMALLINT    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    upstream_id            TEXT        NOT NULL DEFAULT '',
    partner_id             TEXT        NOT NULL DEFAULT '',
    callback_url           TEXT        NOT NULL DEFAULT '',
    events                 TEXT[]      NOT NULL DEFAULT '{}',
    active                 BOOLEAN     NOT NULL DEFAULT true,
    secret_sealed          BYTEA,
    secret_version         INTEGER     NOT NULL DEFAULT 0,
    previous_secret_sealed BYTEA,
    rotated_at             TIMESTAMPTZ,
    rotating_since         TIMESTAMPTZ,
    signature_failures     BIGINT      NOT NULL DEFAULT 0,
    last_signature_failure TIMESTAMPTZ,
    created_at             TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at             TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Every delivery received with a valid signature, keyed by X-Webhook-Id.
-- state: queued, processed, deferred (kept for reconciliation), kept
-- (unknown event type), failed, unparseable.
CREATE TABLE webhook_events (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id        TEXT        NOT NULL,
    source_event_id   TEXT        NOT NULL DEFAULT '',
    event_type        TEXT        NOT NULL DEFAULT '',
    event_timestamp   TIMESTAMPTZ,
    received_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    body              BYTEA       NOT NULL,
    signature         TEXT        NOT NULL DEFAULT 'valid',
    duplicates        INTEGER     NOT NULL DEFAULT 0,
    last_duplicate_at TIMESTAMPTZ,
    state             TEXT        NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'processed', 'deferred', 'kept', 'failed', 'unparseable')),
    outcome           TEXT        NOT NULL DEFAULT '',
    error             TEXT        NOT NULL DEFAULT '',
    attempts          INTEGER     NOT NULL DEFAULT 0,
    processed_count   INTEGER     NOT NULL DEFAULT 0,
    processed_at      TIMESTAMPTZ,
    service_user_id   TEXT        NOT NULL DEFAULT ''
) WITH (fillfactor = 90);
-- Processing rewrites state, outcome and counters once per event: no index
-- covers those columns, so the update stays a heap-only (HOT) update. The
-- log pages walk the primary key newest first; type has its own index.
CREATE UNIQUE INDEX webhook_events_webhook_id_key ON webhook_events (webhook_id);
CREATE INDEX webhook_events_type_idx ON webhook_events (event_type, id DESC);

-- Deliveries refused for a bad signature: headers only, never the body.
CREATE TABLE webhook_signature_failures (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    webhook_id  TEXT        NOT NULL DEFAULT '',
    reason      TEXT        NOT NULL DEFAULT ''
);
CREATE INDEX webhook_signature_failures_at_idx ON webhook_signature_failures (at DESC);

-- The activity feed of money and card events, one row per event (the
-- webhook event is the idempotency key). Amounts are decimals in major units.
CREATE TABLE activity (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_event_id BIGINT      NOT NULL REFERENCES webhook_events (id),
    service_user_id  TEXT        NOT NULL DEFAULT '',
    kind             TEXT        NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'card_transaction', 'card_fulfillment')),
    event_type       TEXT        NOT NULL,
    status           TEXT        NOT NULL DEFAULT '',
    amount           NUMERIC,
    fee              NUMERIC,
    currency         TEXT        NOT NULL DEFAULT '',
    reference        TEXT        NOT NULL DEFAULT '',
    description      TEXT        NOT NULL DEFAULT '',
    occurred_at      TIMESTAMPTZ NOT NULL,
    recorded_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX activity_event_key ON activity (webhook_event_id);
CREATE INDEX activity_user_idx ON activity (service_user_id, occurred_at DESC, id DESC);

-- Runs of the reconciliation job and what each corrected.
CREATE TABLE reconciliation_runs (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at  TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    checked     INTEGER     NOT NULL DEFAULT 0,
    corrected   INTEGER     NOT NULL DEFAULT 0,
    notes       TEXT[]      NOT NULL DEFAULT '{}'
);
CREATE INDEX reconciliation_runs_idx ON reconciliation_runs (started_at DESC);

-- +goose Down
DROP TABLE reconciliation_runs;
DROP TABLE activity;
DROP TABLE webhook_signature_failures;
DROP TABLE webhook_events;
DROP TABLE webhook_subscription;
