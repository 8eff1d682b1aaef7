-- +goose Up
-- One-time links an owner issues for a staff member to set their own
-- password. Only the token's SHA-256 is kept. One live link per staff
-- member: issuing a new one replaces the old; using one deletes it.
CREATE TABLE set_password_links (
    staff_id   BIGINT      PRIMARY KEY REFERENCES staff (id) ON DELETE CASCADE,
    token_hash BYTEA       NOT NULL UNIQUE,
    created_by BIGINT      REFERENCES staff (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE set_password_links;
