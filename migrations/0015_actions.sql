-- +goose Up
-- The action ledger: one row for every state-changing call to the Partner
-- API. The key (a form's one-time token, or a natural key such as a
-- proposal's approval round) is committed before the call, so a second
-- click, a second tab or a retry finds the first attempt instead of sending
-- again. An action whose outcome is not known stays 'begun' or 'unknown'
-- until it is read back.
CREATE TABLE actions (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key         TEXT        NOT NULL UNIQUE CHECK (length(key) BETWEEN 1 AND 200),
    kind        TEXT        NOT NULL,
    target      TEXT        NOT NULL DEFAULT '',
    actor_id    BIGINT      REFERENCES staff (id),
    actor_email TEXT        NOT NULL DEFAULT '',
    state       TEXT        NOT NULL DEFAULT 'begun' CHECK (state IN ('begun', 'done', 'refused', 'unknown')),
    request     JSONB       NOT NULL DEFAULT '{}',
    result      JSONB,
    message     TEXT        NOT NULL DEFAULT '',
    begun_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ,
    read_backs  INT         NOT NULL DEFAULT 0
);
-- The recovery job's work: actions still open, oldest first.
CREATE INDEX actions_open_idx ON actions (updated_at) WHERE state IN ('begun', 'unknown');
CREATE INDEX actions_target_idx ON actions (target, begun_at DESC);

-- +goose Down
DROP TABLE actions;
