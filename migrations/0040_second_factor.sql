-- +goose Up
-- Second factors of staff members: passkeys (WebAuthn credentials), a TOTP
-- secret (sealed with the app's encryption key, never stored in clear) and
-- one-time recovery codes (only their SHA-256). staff.second_factor says
-- whether the staff member has any: it is on the staff row so the staff
-- cache (and its staff_changed notices) carry it to every request.
ALTER TABLE staff ADD COLUMN second_factor BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE staff_passkeys (
    id            BIGSERIAL PRIMARY KEY,
    staff_id      BIGINT NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
    credential_id BYTEA NOT NULL UNIQUE,
    -- The go-webauthn Credential as JSON: public key, sign count, flags.
    credential    JSONB NOT NULL,
    name          TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at  TIMESTAMPTZ
);
CREATE INDEX staff_passkeys_staff_idx ON staff_passkeys (staff_id);

CREATE TABLE staff_totp (
    staff_id      BIGINT PRIMARY KEY REFERENCES staff (id) ON DELETE CASCADE,
    secret_sealed BYTEA NOT NULL,
    -- The last 30-second step a code was accepted for: a code is good once.
    last_step     BIGINT NOT NULL DEFAULT 0,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE staff_recovery_codes (
    staff_id  BIGINT NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
    code_hash BYTEA NOT NULL,
    used_at   TIMESTAMPTZ,
    PRIMARY KEY (staff_id, code_hash)
);

-- Whether a role must have a second factor; a role without a row follows
-- the default (required against the real Partner API for owner, finance
-- approver and support; not required with the sandbox).
CREATE TABLE second_factor_policy (
    role       TEXT PRIMARY KEY CHECK (role IN ('owner', 'hr_admin', 'finance_approver', 'support')),
    required   BOOLEAN NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_by BIGINT REFERENCES staff (id) ON DELETE SET NULL
);

-- +goose Down
DROP TABLE second_factor_policy;
DROP TABLE staff_recovery_codes;
DROP TABLE staff_totp;
DROP TABLE staff_passkeys;
ALTER TABLE staff DROP COLUMN second_factor;
