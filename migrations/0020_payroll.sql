-- +goose Up
-- Payroll runs: many transfers from the treasury, checked and previewed as
-- a whole before anything is sent, then sent as one transfer proposal per
-- row through the action ledger (key payroll:<run>:<line>). A row's
-- outcome is read from its action and, once created, its proposal in the
-- mirror: the row keeps only what was asked and the proposal's id.
CREATE TABLE payroll_runs (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          TEXT        NOT NULL,
    source        TEXT        NOT NULL CHECK (source IN ('csv', 'employees')),
    state         TEXT        NOT NULL DEFAULT 'preview' CHECK (state IN ('preview', 'sending', 'sent', 'canceled')),
    created_by_id BIGINT      REFERENCES staff (id),
    created_by    TEXT        NOT NULL DEFAULT '',
    cancel_reason TEXT        NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at    TIMESTAMPTZ,
    finished_at   TIMESTAMPTZ,
    canceled_at   TIMESTAMPTZ
);
CREATE INDEX payroll_runs_created_key ON payroll_runs (created_at DESC, id DESC);

CREATE TABLE payroll_rows (
    run_id          BIGINT  NOT NULL REFERENCES payroll_runs (id) ON DELETE CASCADE,
    line            INT     NOT NULL,
    recipient       TEXT    NOT NULL,            -- as given: an email or a serviceUserId
    name            TEXT    NOT NULL DEFAULT '', -- the employee's, when found
    service_user_id TEXT    NOT NULL DEFAULT '',
    amount_text     TEXT    NOT NULL DEFAULT '', -- as given
    amount          NUMERIC,                     -- NULL when it could not be read
    currency_text   TEXT    NOT NULL DEFAULT '', -- as given
    currency        TEXT    NOT NULL DEFAULT '', -- token code; '' when unknown
    description     TEXT    NOT NULL DEFAULT '',
    problems        TEXT[]  NOT NULL DEFAULT '{}',
    wallet_id       TEXT    NOT NULL DEFAULT '', -- the treasury wallet it is sent from
    proposal_id     TEXT,
    PRIMARY KEY (run_id, line)
);
CREATE INDEX payroll_rows_proposal_key ON payroll_rows (proposal_id) WHERE proposal_id IS NOT NULL;

-- A run's approval by one staff member, in one action: a background job
-- approves every row they may approve and records each row's outcome here
-- (the approvals themselves are actions of the ledger, keyed as the
-- approval queue keys them). One per form: a double click starts one.
CREATE TABLE payroll_approvals (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      BIGINT      NOT NULL REFERENCES payroll_runs (id) ON DELETE CASCADE,
    form_key    TEXT        NOT NULL UNIQUE,
    staff_id    BIGINT      NOT NULL REFERENCES staff (id),
    staff_email TEXT        NOT NULL DEFAULT '',
    state       TEXT        NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done')),
    lines       INT[]       NOT NULL,             -- the rows waiting for approvals when it was asked
    outcomes    JSONB       NOT NULL DEFAULT '{}', -- line → {ok, text}
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ
);
CREATE INDEX payroll_approvals_run_key ON payroll_approvals (run_id, staff_id, id DESC);

-- +goose Down
DROP TABLE payroll_approvals;
DROP TABLE payroll_rows;
DROP TABLE payroll_runs;
