-- +goose Up
-- A bulk start of one currency's onboarding for every employee the
-- readiness matrix showed ready: the run, and one row per employee with its
-- outcome (started, refused with the reason, skipped because no longer
-- ready, or unknown while the API's answer is read back). A background job
-- sends the rows one at a time, each under a ledger key of its run and
-- employee, so a resumed run never sends a row twice. No BVN: Nigeria is
-- started one employee at a time.
CREATE TABLE onboarding_runs (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    currency    TEXT        NOT NULL CHECK (currency IN ('USD', 'EUR', 'MXN', 'CAD')),
    state       TEXT        NOT NULL DEFAULT 'sending' CHECK (state IN ('sending', 'done')),
    identity_level TEXT     NOT NULL DEFAULT '',
    -- The form that asked for the run: a second post of it finds this run.
    form_key    TEXT        NOT NULL UNIQUE,
    created_by  TEXT        NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ
);

CREATE TABLE onboarding_run_rows (
    run_id      BIGINT      NOT NULL REFERENCES onboarding_runs (id) ON DELETE CASCADE,
    employee_id BIGINT      NOT NULL REFERENCES employees (id),
    position    INT         NOT NULL,
    state       TEXT        NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'sending', 'started', 'refused', 'skipped', 'unknown')),
    detail      TEXT        NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, employee_id)
);
CREATE INDEX onboarding_run_rows_state_key ON onboarding_run_rows (run_id, state, position);

-- +goose Down
DROP TABLE onboarding_run_rows;
DROP TABLE onboarding_runs;
