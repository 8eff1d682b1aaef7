-- +goose Up
-- auth_epoch counts the committed changes that can end or narrow a
-- signed-in session: any update or deletion of a staff row (role, disabled,
-- password) and any deletion of a session row (sign-out, password change,
-- expiry). Every request reads it (one row, one round trip) before using
-- the in-memory copies of sessions and staff; a new value empties them, so
-- a change made on one replica takes effect on every replica at the next
-- request, even before its LISTEN/NOTIFY notice arrives.
--
-- The bump is a deferred constraint trigger: it runs at commit, once per
-- transaction (later rows of the same transaction find xid equal and
-- update nothing), after the transaction holds every other lock it takes,
-- so two transactions cannot deadlock on this row.
CREATE TABLE auth_epoch (
    id  SMALLINT PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    n   BIGINT   NOT NULL DEFAULT 0,
    xid BIGINT   NOT NULL DEFAULT 0
);
INSERT INTO auth_epoch (id) VALUES (1);

-- +goose StatementBegin
CREATE FUNCTION auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET n = n + 1, xid = txid_current() WHERE id = 1 AND xid <> txid_current();
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER staff_auth_epoch AFTER UPDATE OR DELETE ON staff
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
CREATE CONSTRAINT TRIGGER sessions_auth_epoch AFTER DELETE ON sessions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();

-- +goose Down
DROP TRIGGER sessions_auth_epoch ON sessions;
DROP TRIGGER staff_auth_epoch ON staff;
DROP FUNCTION auth_epoch_bump();
DROP TABLE auth_epoch;
