-- +goose Up
-- A password someone else chose (an owner creating the account saw it) is
-- the staff member's only until they choose their own: the app asks for a
-- new one at the first sign-in and lets nothing else through until then.
ALTER TABLE staff ADD COLUMN password_must_change BOOLEAN NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE staff DROP COLUMN password_must_change;
