-- +goose Up
-- Every change to a staff row is announced on the staff_changed channel
-- (payload: the staff id), so each app process can drop the row from the
-- in-memory copy it authenticates requests with (store.StaffCache).
-- +goose StatementBegin
CREATE FUNCTION staff_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('staff_changed', OLD.id::text);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER staff_changed AFTER UPDATE OR DELETE ON staff
    FOR EACH ROW EXECUTE FUNCTION staff_changed_notify();

-- +goose Down
DROP TRIGGER staff_changed ON staff;
DROP FUNCTION staff_changed_notify();
