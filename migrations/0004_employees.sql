-- +goose Up
-- The HR admin's area: invites (stored before the call, with the outcome
-- after), per-currency readiness of each employee, snapshots of what the API
-- said about onboarding (with the time it was read), and bulk invite runs.
-- Identification numbers, BVN and documents are never stored here
-- (DESIGN.md decision 8).

ALTER TABLE employees ADD COLUMN invitation_id TEXT NOT NULL DEFAULT '';
ALTER TABLE employees ADD COLUMN invite_url TEXT NOT NULL DEFAULT '';
ALTER TABLE employees ADD COLUMN occupation_code TEXT NOT NULL DEFAULT '';

-- Every invite and re-invite call: the row is written before the call
-- (state 'sending') and completed with its outcome after it.
CREATE TABLE invites (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    employee_id     BIGINT      NOT NULL REFERENCES employees (id),
    email           TEXT        NOT NULL,
    name            TEXT        NOT NULL,
    reinvite        BOOLEAN     NOT NULL DEFAULT false,
    bulk_run_id     BIGINT,
    state           TEXT        NOT NULL DEFAULT 'sending'
        CHECK (state IN ('sending', 'sent', 'not_sent', 'failed', 'unknown')),
    invite_url      TEXT        NOT NULL DEFAULT '',
    error           TEXT        NOT NULL DEFAULT '',
    created_by      TEXT        NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at     TIMESTAMPTZ
);
CREATE INDEX invites_employee_key ON invites (employee_id, id DESC);

-- One readiness cell per employee and currency, derived from the latest
-- onboarding snapshots. No row means not started.
CREATE TABLE employee_readiness (
    employee_id BIGINT      NOT NULL REFERENCES employees (id),
    currency    TEXT        NOT NULL CHECK (currency IN ('USD', 'EUR', 'NGN', 'MXN', 'CAD')),
    state       TEXT        NOT NULL
        CHECK (state IN ('not_started', 'missing', 'ready', 'onboarding', 'active', 'failed', 'rejected')),
    missing     TEXT[]      NOT NULL DEFAULT '{}',   -- field names as the API reports them
    detail      TEXT        NOT NULL DEFAULT '',
    read_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (employee_id, currency)
);
CREATE INDEX employee_readiness_state_key ON employee_readiness (currency, state, employee_id);

-- What the API answered for one employee, per kind of read, with when.
-- The KYC profile is kept only as a summary without identification numbers.
CREATE TABLE onboarding_snapshots (
    employee_id BIGINT      NOT NULL REFERENCES employees (id),
    kind        TEXT        NOT NULL,
    body        JSONB,
    error       TEXT        NOT NULL DEFAULT '',
    read_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (employee_id, kind)
);

-- Bulk invite runs: the whole file is checked, then the valid rows are sent
-- by a background job, one row at a time, each with its outcome.
CREATE TABLE bulk_invite_runs (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    filename    TEXT        NOT NULL DEFAULT '',
    state       TEXT        NOT NULL DEFAULT 'preview'
        CHECK (state IN ('preview', 'sending', 'done', 'cancelled')),
    total_rows  INT         NOT NULL DEFAULT 0,
    valid_rows  INT         NOT NULL DEFAULT 0,
    created_by  TEXT        NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at  TIMESTAMPTZ,
    finished_at TIMESTAMPTZ
);

CREATE TABLE bulk_invite_rows (
    run_id          BIGINT      NOT NULL REFERENCES bulk_invite_runs (id) ON DELETE CASCADE,
    line            INT         NOT NULL,
    name            TEXT        NOT NULL DEFAULT '',
    email           TEXT        NOT NULL DEFAULT '',
    profile         JSONB,                            -- employer-held KYC without identification numbers
    problems        TEXT[]      NOT NULL DEFAULT '{}',
    state           TEXT        NOT NULL DEFAULT 'invalid'
        CHECK (state IN ('invalid', 'queued', 'sending', 'sent', 'error', 'unknown')),
    invite_url      TEXT        NOT NULL DEFAULT '',
    error           TEXT        NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, line)
);
CREATE INDEX bulk_invite_rows_state_key ON bulk_invite_rows (run_id, state);

-- +goose Down
DROP TABLE bulk_invite_rows;
DROP TABLE bulk_invite_runs;
DROP TABLE onboarding_snapshots;
DROP TABLE employee_readiness;
DROP TABLE invites;
ALTER TABLE employees DROP COLUMN occupation_code;
ALTER TABLE employees DROP COLUMN invite_url;
ALTER TABLE employees DROP COLUMN invitation_id;
