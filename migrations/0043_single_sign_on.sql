-- +goose Up
-- How staff sign in with the company's identity provider (OpenID Connect),
-- decided by an owner: one row. jit_role: the role an unknown but verified
-- address is given on its first sign-in (NULL: invitation only).
-- amr_second_factor: the provider's multi-factor sign-in (its amr claim)
-- counts as the second factor. password_off: password sign-in is off for
-- everyone but the break-glass owner.
CREATE TABLE sign_in_settings (
    id                   BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
    jit_role             TEXT CHECK (jit_role IN ('owner', 'hr_admin', 'finance_approver', 'support')),
    amr_second_factor    BOOLEAN NOT NULL DEFAULT false,
    password_off         BOOLEAN NOT NULL DEFAULT false,
    -- The break-glass owner's row cannot be deleted while chosen.
    break_glass_staff_id BIGINT REFERENCES staff (id),
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_by           BIGINT REFERENCES staff (id) ON DELETE SET NULL,
    CHECK (NOT password_off OR break_glass_staff_id IS NOT NULL)
);

-- +goose Down
DROP TABLE sign_in_settings;
