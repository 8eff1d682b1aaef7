-- +goose Up
-- A batch sign request: one link (one token, one QR code) that asks one
-- owner's device to sign many proposals. Only the token's SHA-256 is kept.
-- Each item's signature is relayed through the action ledger under its own
-- key ('signbatch:<batch>:<proposal>'), so an item's state while it is
-- relayed, or once refused, is its action's.
CREATE TABLE sign_batches (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash          BYTEA       NOT NULL UNIQUE,
    owner_user_id       TEXT        NOT NULL,
    owner_address       TEXT        NOT NULL,
    return_to           TEXT        NOT NULL DEFAULT '/approvals',
    expires_at          TIMESTAMPTZ NOT NULL,
    created_by_staff_id BIGINT      REFERENCES staff (id),
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    opened_at           TIMESTAMPTZ
);

CREATE TABLE sign_batch_items (
    batch_id    BIGINT      NOT NULL REFERENCES sign_batches (id) ON DELETE CASCADE,
    position    INT         NOT NULL,
    proposal_id TEXT        NOT NULL,
    user_id     TEXT        NOT NULL,  -- serviceUserId the upstream calls are made for
    wallet_id   TEXT        NOT NULL,
    deadline    TIMESTAMPTZ NOT NULL,  -- the sign payload's, as last read
    state       TEXT        NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'submitted', 'completed')),
    PRIMARY KEY (batch_id, proposal_id),
    UNIQUE (batch_id, position)
);
CREATE INDEX sign_batch_items_proposal_idx ON sign_batch_items (proposal_id);

-- +goose Down
DROP TABLE sign_batch_items;
DROP TABLE sign_batches;
