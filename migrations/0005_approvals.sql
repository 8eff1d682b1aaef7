-- +goose Up
-- Finance approvals (issue 7): the mirror of open proposals, their timeline,
-- who approved in the app, and sign requests handed to a device.

-- Each finance approver (or owner) acts upstream as one wallet admin: the
-- serviceUserId sent as x-acting-user-id when they approve.
ALTER TABLE staff ADD COLUMN service_user_id TEXT NOT NULL DEFAULT '';

-- Proposals of every wallet the partner administers, as last read from the
-- API (DESIGN.md decision 7: the API has no proposal events).
CREATE TABLE proposals (
    id                   TEXT        PRIMARY KEY,
    wallet_id            TEXT        NOT NULL,
    owner_user_id        TEXT        NOT NULL,          -- serviceUserId of the wallet's user
    type                 TEXT        NOT NULL,
    status               TEXT        NOT NULL,
    currency             TEXT        NOT NULL DEFAULT '', -- token code
    amount               NUMERIC     NOT NULL DEFAULT 0,
    to_user_id           TEXT        NOT NULL DEFAULT '',
    to_address           TEXT        NOT NULL DEFAULT '',
    to_stablecoin        TEXT        NOT NULL DEFAULT '',
    slippage_bps         INTEGER     NOT NULL DEFAULT 0,
    description          TEXT        NOT NULL DEFAULT '',
    required_signatures  INTEGER     NOT NULL DEFAULT 0,
    collected_signatures INTEGER     NOT NULL DEFAULT 0,
    approvals            TEXT[]      NOT NULL DEFAULT '{}',
    required_approvals   INTEGER     NOT NULL DEFAULT 0,
    approval_mode        TEXT        NOT NULL DEFAULT '',
    rejection_reason     TEXT        NOT NULL DEFAULT '',
    failure_reason       TEXT        NOT NULL DEFAULT '',
    round                INTEGER     NOT NULL DEFAULT 1,  -- +1 each time a FAILED proposal is approved again
    created_by_staff_id  BIGINT      REFERENCES staff (id), -- set when created in the app
    upstream_created_at  TIMESTAMPTZ NOT NULL,
    upstream_updated_at  TIMESTAMPTZ NOT NULL,
    synced_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX proposals_queue_key ON proposals (upstream_created_at DESC, id DESC)
    WHERE status IN ('PENDING_APPROVALS', 'PENDING_SIGNATURES', 'SUBMITTED', 'READY_TO_EXECUTE', 'EXECUTING', 'FAILED');
CREATE INDEX proposals_wallet_key ON proposals (wallet_id);

-- The timeline of a proposal as the app saw it.
CREATE TABLE proposal_events (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    proposal_id TEXT        NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    kind        TEXT        NOT NULL,
    staff_id    BIGINT      REFERENCES staff (id),
    actor       TEXT        NOT NULL DEFAULT '',
    detail      TEXT        NOT NULL DEFAULT ''
);
CREATE INDEX proposal_events_key ON proposal_events (proposal_id, id);

-- One approval per wallet admin per round: the row is the lock that makes a
-- double click or two staff acting as the same admin one upstream call.
CREATE TABLE proposal_approvals (
    proposal_id     TEXT        NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    round           INTEGER     NOT NULL,
    service_user_id TEXT        NOT NULL,
    staff_id        BIGINT      NOT NULL REFERENCES staff (id),
    state           TEXT        NOT NULL DEFAULT 'sending' CHECK (state IN ('sending', 'approved')),
    at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (proposal_id, round, service_user_id)
);

-- Sign requests (DESIGN.md decision 5). The token is never stored, only its
-- SHA-256.
CREATE TABLE sign_requests (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash           BYTEA       NOT NULL UNIQUE,
    kind                 TEXT        NOT NULL CHECK (kind IN ('proposal', 'owner_proof', 'workflow')),
    proposal_id          TEXT        NOT NULL DEFAULT '',
    workflow_id          TEXT        NOT NULL DEFAULT '',
    hash_to_sign         TEXT        NOT NULL DEFAULT '',  -- workflow only: a rail returns it once
    message              TEXT        NOT NULL DEFAULT '',  -- owner proof challenge text
    challenge_id         TEXT        NOT NULL DEFAULT '',
    user_id              TEXT        NOT NULL,             -- serviceUserId the call is made for
    wallet_id            TEXT        NOT NULL DEFAULT '',
    owner_address        TEXT        NOT NULL,
    state                TEXT        NOT NULL DEFAULT 'waiting',
    error                TEXT        NOT NULL DEFAULT '',
    signature            TEXT        NOT NULL DEFAULT '',  -- kept only while a relay is unsure
    collected_before     INTEGER     NOT NULL DEFAULT 0,
    expires_at           TIMESTAMPTZ NOT NULL,
    created_by_staff_id  BIGINT      REFERENCES staff (id),
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    opened_at            TIMESTAMPTZ,
    used_at              TIMESTAMPTZ,
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX sign_requests_proposal_key ON sign_requests (proposal_id, id DESC);

-- +goose Down
DROP TABLE sign_requests;
DROP TABLE proposal_approvals;
DROP TABLE proposal_events;
DROP TABLE proposals;
ALTER TABLE staff DROP COLUMN service_user_id;
