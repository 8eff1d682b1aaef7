-- +goose Up
-- Money controls: the address book of trusted destinations, the policy
-- changes (limits, settings, the account's approval mode) that two owners
-- agree on, and the spends the velocity limits sum.

-- A destination money may leave the treasury to. One person adds it and
-- another confirms it (the CHECK holds even if the app had a bug); it is
-- usable from usable_from, the confirmation plus the cooling-off period then
-- in force.
CREATE TABLE trusted_destinations (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         TEXT        NOT NULL CHECK (kind IN ('ng_bank', 'bank', 'iban', 'clabe', 'crypto')),
    value        TEXT        NOT NULL,            -- account number, IBAN, CLABE or address, normalised
    bank_code    TEXT        NOT NULL DEFAULT '', -- Nigerian bank code or routing number
    name         TEXT        NOT NULL,
    added_by     BIGINT      NOT NULL REFERENCES staff (id),
    added_at     TIMESTAMPTZ NOT NULL,
    confirmed_by BIGINT      REFERENCES staff (id),
    confirmed_at TIMESTAMPTZ,
    usable_from  TIMESTAMPTZ,
    removed_by   BIGINT      REFERENCES staff (id),
    removed_at   TIMESTAMPTZ,
    CHECK (confirmed_by IS NULL OR confirmed_by <> added_by)
);
CREATE UNIQUE INDEX trusted_destinations_value_key ON trusted_destinations (kind, bank_code, value) WHERE removed_at IS NULL;

-- A change of policy: proposed by one owner, approved by another, in force
-- from effective_at. The policy in force is, per kind and target, the last
-- approved change whose effective_at has passed. body is the whole new
-- policy of its kind, as JSON with decimals as strings.
CREATE TABLE policy_changes (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         TEXT        NOT NULL CHECK (kind IN ('limits', 'settings', 'approval_mode')),
    target       TEXT        NOT NULL DEFAULT '', -- limits: wallet id; approval_mode: the treasury user
    body         JSONB       NOT NULL,
    summary      TEXT        NOT NULL,
    proposed_by  BIGINT      NOT NULL REFERENCES staff (id),
    proposed_at  TIMESTAMPTZ NOT NULL,
    state        TEXT        NOT NULL DEFAULT 'proposed' CHECK (state IN ('proposed', 'approved', 'rejected', 'failed')),
    decided_by   BIGINT      REFERENCES staff (id),
    decided_at   TIMESTAMPTZ,
    effective_at TIMESTAMPTZ,
    announced_at TIMESTAMPTZ, -- when its taking effect was announced
    CHECK (decided_by IS NULL OR state = 'failed' OR decided_by <> proposed_by)
);
CREATE INDEX policy_changes_in_force_idx ON policy_changes (kind, target, effective_at DESC, id DESC) WHERE state = 'approved';
CREATE INDEX policy_changes_recent_idx ON policy_changes (id DESC);

-- What each value-moving request takes from its wallet, written in the
-- transaction that begins its action, so that the velocity sums of a later
-- request see it. It counts unless its action was refused or its proposal
-- failed, was rejected or expired.
CREATE TABLE policy_spends (
    action_key  TEXT        PRIMARY KEY REFERENCES actions (key),
    wallet_id   TEXT        NOT NULL,
    currency    TEXT        NOT NULL,
    amount      NUMERIC     NOT NULL CHECK (amount > 0),
    destination TEXT        NOT NULL DEFAULT '',
    at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX policy_spends_wallet_at_idx ON policy_spends (wallet_id, at);

-- +goose Down
DROP TABLE policy_spends;
DROP TABLE policy_changes;
DROP TABLE trusted_destinations;
