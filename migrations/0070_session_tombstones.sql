-- +goose Up
-- A session ended before its expiry (a sign-out, "end this session", a
-- password change, a disabled account) must stay ended. A request that
-- loaded the session before it was ended and changes it afterwards (an
-- htmx poll that records the last use, a page that reads a flash message)
-- commits it with scs's INSERT ... ON CONFLICT DO UPDATE, which would write
-- the ended session back, signed in. So every deletion of a live session
-- leaves a tombstone (the token's SHA-256 and the expiry it had), and an
-- insert of a tombstoned token is skipped; tombstones are pruned with the
-- expired sessions (PruneSessions). An update of a live session (the
-- conflict branch) finds no tombstone and goes ahead.
CREATE TABLE session_tombstones (
    token_sha256 BYTEA       PRIMARY KEY,
    expiry       TIMESTAMPTZ NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION session_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.expiry > current_timestamp THEN
        INSERT INTO session_tombstones (token_sha256, expiry)
        VALUES (sha256(convert_to(OLD.token, 'UTF8')), OLD.expiry)
        ON CONFLICT (token_sha256) DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;

CREATE FUNCTION session_refuse_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM session_tombstones WHERE token_sha256 = sha256(convert_to(NEW.token, 'UTF8'))) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER session_tombstone AFTER DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION session_tombstone();
CREATE TRIGGER session_refuse_ended BEFORE INSERT ON sessions
    FOR EACH ROW EXECUTE FUNCTION session_refuse_ended();

-- +goose Down
DROP TRIGGER session_refuse_ended ON sessions;
DROP TRIGGER session_tombstone ON sessions;
DROP FUNCTION session_refuse_ended();
DROP FUNCTION session_tombstone();
DROP TABLE session_tombstones;
