-- +goose Up
-- Every change to a session row is announced on the session_changed
-- channel so each app process can drop it from the in-memory copy it
-- reads sessions from (web's session store). The payload is the SHA-256
-- of the token, never the token itself.
-- +goose StatementBegin
CREATE FUNCTION session_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('session_changed', encode(sha256(convert_to(OLD.token, 'UTF8')), 'hex'));
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER session_changed AFTER UPDATE OR DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION session_changed_notify();

-- +goose Down
DROP TRIGGER session_changed ON sessions;
DROP FUNCTION session_changed_notify();
