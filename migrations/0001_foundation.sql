-- +goose Up
-- Staff who sign in to the app. Passwords are argon2id hashes in PHC form.
CREATE TABLE staff (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         TEXT        NOT NULL,
    name          TEXT        NOT NULL DEFAULT '',
    password_hash TEXT        NOT NULL,
    role          TEXT        NOT NULL CHECK (role IN ('owner', 'hr_admin', 'finance_approver', 'support')),
    disabled      BOOLEAN     NOT NULL DEFAULT false,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX staff_email_key ON staff (lower(email));

-- scs pgxstore's table, as its documentation gives it.
CREATE TABLE sessions (
    token  TEXT        PRIMARY KEY,
    data   BYTEA       NOT NULL,
    expiry TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- Every state-changing action: who, what, target, outcome. Written in the
-- same transaction as the change it records.
CREATE TABLE audit_log (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor_id    BIGINT      REFERENCES staff (id),
    actor_email TEXT        NOT NULL DEFAULT '',
    action      TEXT        NOT NULL,
    target      TEXT        NOT NULL DEFAULT '',
    outcome     TEXT        NOT NULL,
    detail      TEXT        NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_action_idx ON audit_log (action, at DESC);

-- Failed sign-in attempts, keyed by account ('account:<email>') and by client
-- address ('addr:<ip>'), so the limit holds across replicas.
CREATE TABLE login_failures (
    key TEXT        NOT NULL,
    at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_key_at_idx ON login_failures (key, at);

-- +goose Down
DROP TABLE login_failures;
DROP TABLE audit_log;
DROP TABLE sessions;
DROP TABLE staff;
