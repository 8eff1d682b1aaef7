-- +goose Up
-- A sign-in attempt is counted before its password is checked: one row per
-- limit key, sharing the attempt's number, so a successful attempt can take
-- back exactly its own rows. Rows from before this migration have none.
CREATE SEQUENCE login_attempt_seq;
ALTER TABLE login_failures ADD COLUMN attempt BIGINT;
CREATE INDEX login_failures_attempt_idx ON login_failures (attempt);

-- +goose Down
DROP INDEX login_failures_attempt_idx;
ALTER TABLE login_failures DROP COLUMN attempt;
DROP SEQUENCE login_attempt_seq;
