-- +goose Up
-- The local index of the partner's cards (DESIGN.md decision 7): what the
-- card lists of each wallet last said, so support can search across every
-- employee's cards from the store. The status here is only the last one
-- seen, with the time it was read; a card's live status is always read from
-- GET /cards/{cardId}. No PAN, CVV or NIN is ever stored: only the last four
-- digits the API reports.
CREATE TABLE cards (
    id              TEXT        PRIMARY KEY,           -- card id; for a reserved entry the issuance proposal id
    wallet_id       TEXT        NOT NULL REFERENCES wallets (id),
    employee_id     BIGINT      NOT NULL REFERENCES employees (id),
    card_name       TEXT        NOT NULL DEFAULT '',
    card_color      TEXT        NOT NULL DEFAULT '',
    currency        TEXT        NOT NULL DEFAULT '',   -- NGN or USD
    type            TEXT        NOT NULL DEFAULT '',   -- virtual or physical
    last4           TEXT        NOT NULL DEFAULT '',
    status          TEXT        NOT NULL DEFAULT '',   -- last status seen, as the API spelled it
    status_read_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    funded_at       TIMESTAMPTZ,
    reserved        BOOLEAN     NOT NULL DEFAULT false,
    proposal_id     TEXT        NOT NULL DEFAULT '',
    proposal_status TEXT        NOT NULL DEFAULT '',
    gone            BOOLEAN     NOT NULL DEFAULT false, -- no longer listed (an expired reservation)
    -- Lower-cased employee name and email, card name, last four and id, for
    -- search as you type (denormalised so one trigram index answers).
    search_text     TEXT        NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX cards_employee_key ON cards (employee_id);
CREATE INDEX cards_wallet_key ON cards (wallet_id);
CREATE INDEX cards_last4_key ON cards (last4) WHERE last4 <> '';
CREATE INDEX cards_search_trgm ON cards USING gin (search_text gin_trgm_ops);
CREATE INDEX cards_order_key ON cards (search_text, id);

-- A freeze, unfreeze, cancel or activation in flight: a second click (or a
-- second replica) finds the row and sends nothing.
CREATE TABLE card_actions_in_flight (
    card_id    TEXT        PRIMARY KEY,
    action     TEXT        NOT NULL,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The card activity feed: spends and fulfilment changes pushed by the
-- card.transaction.created and card.fulfillment.updated webhooks. event_key
-- (the webhook id) makes recording idempotent. Amounts are decimals in major
-- units, as the events carry them.
CREATE TABLE card_activity (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_key   TEXT        NOT NULL,
    card_id     TEXT        NOT NULL,
    kind        TEXT        NOT NULL CHECK (kind IN ('transaction', 'fulfillment')),
    status      TEXT        NOT NULL DEFAULT '',
    amount      NUMERIC,
    fee         NUMERIC,
    currency    TEXT        NOT NULL DEFAULT '',
    merchant    TEXT        NOT NULL DEFAULT '',
    detail      TEXT        NOT NULL DEFAULT '',
    occurred_at TIMESTAMPTZ NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX card_activity_event_key ON card_activity (event_key);
CREATE INDEX card_activity_card_idx ON card_activity (card_id, occurred_at DESC, id DESC);

-- +goose Down
DROP TABLE card_activity;
DROP TABLE card_actions_in_flight;
DROP TABLE cards;
