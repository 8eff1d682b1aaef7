-- +goose Up
-- The local mirror of the people the partner has: the API has no list of
-- users, so the partner remembers each employee (and its own treasury user)
-- with the serviceUserId the API gave it (DESIGN.md decision 7). Areas add
-- their own columns and tables in later migrations.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE employees (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind             TEXT        NOT NULL DEFAULT 'employee' CHECK (kind IN ('employee', 'treasury')),
    service_user_id  TEXT UNIQUE,                       -- null while only invited
    email            TEXT        NOT NULL,
    first_name       TEXT        NOT NULL DEFAULT '',
    last_name        TEXT        NOT NULL DEFAULT '',
    country          TEXT        NOT NULL DEFAULT '',   -- ISO 3166-1 alpha-3
    invite_state     TEXT        NOT NULL DEFAULT 'invited'
        CHECK (invite_state IN ('invited', 'linked', 'kyc_submitted', 'action_required', 'deleted')),
    linked_at        TIMESTAMPTZ,
    kyc_submitted    BOOLEAN     NOT NULL DEFAULT false,
    action_required  TEXT        NOT NULL DEFAULT '',   -- what the API said is needed, in words
    deleted_at       TIMESTAMPTZ,
    last_activity_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX employees_email_key ON employees (lower(email));
CREATE INDEX employees_name_key ON employees (lower(first_name || ' ' || last_name), id);
CREATE INDEX employees_activity_key ON employees (last_activity_at DESC, id DESC);
-- Search as you type on name, email and serviceUserId.
CREATE INDEX employees_search_trgm ON employees
    USING gin ((lower(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(service_user_id, ''))) gin_trgm_ops);

-- Smart wallets of those users, as last read from the API.
CREATE TABLE wallets (
    id               TEXT        PRIMARY KEY,           -- smartWalletId
    employee_id      BIGINT      NOT NULL REFERENCES employees (id),
    currency         TEXT        NOT NULL,              -- stablecoin code (USDB, CNGN, ...)
    display_currency TEXT        NOT NULL DEFAULT '',   -- fiat code
    address          TEXT        NOT NULL DEFAULT '',
    chain            TEXT        NOT NULL DEFAULT '',
    status           TEXT        NOT NULL DEFAULT '',
    owner_address    TEXT        NOT NULL DEFAULT '',   -- userOwnerAddress registered at creation
    legacy           BOOLEAN     NOT NULL DEFAULT false,
    balance          NUMERIC,                           -- null until read
    balance_read_at  TIMESTAMPTZ,
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX wallets_employee_key ON wallets (employee_id);

-- +goose Down
DROP TABLE wallets;
DROP TABLE employees;
