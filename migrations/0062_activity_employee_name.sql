-- +goose Up
-- The company activity feed named each of its 100 lines' employee with a
-- lookup in employees by service_user_id: some 70 % of the statement's
-- time. Each money event now carries its employee's name as the lookup
-- gave it (nullif(trim(first_name || ' ' || last_name), ''); NULL when no
-- employee has the id), kept by triggers:
--   - an event takes the name when it is recorded;
--   - a change to an employee's name or service_user_id (or the employee's
--     arrival or removal) rewrites the name on that id's events.
-- An event recorded while its employee changes could read the name before
-- the change and be missed by the rewrite (which cannot see the event
-- before it commits). An advisory lock per service_user_id orders the two:
-- shared while an event reads the name, exclusive while an employee's
-- change rewrites it, each held to the end of its transaction. The rewrite
-- reads the name again under the lock. Recording an event locks no row the
-- rewrite waits for, so the two cannot deadlock.
ALTER TABLE activity ADD COLUMN employee_name TEXT;

-- activity_name_lock takes the lock of one service_user_id (class "nam").
-- +goose StatementBegin
CREATE FUNCTION activity_name_lock(sid TEXT, exclusive BOOLEAN) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF exclusive THEN
        PERFORM pg_advisory_xact_lock(7233901, hashtext(sid));
    ELSE
        PERFORM pg_advisory_xact_lock_shared(7233901, hashtext(sid));
    END IF;
END
$$;
-- +goose StatementEnd

-- activity_name_of is the name the feed shows for a service_user_id, as
-- last committed (volatile: its read takes a snapshot of its own).
-- +goose StatementBegin
CREATE FUNCTION activity_name_of(sid TEXT) RETURNS TEXT LANGUAGE sql VOLATILE AS $$
    SELECT nullif(trim(first_name || ' ' || last_name), '') FROM employees WHERE service_user_id = sid
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION activity_name_on_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.service_user_id = OLD.service_user_id THEN
        RETURN NEW;
    END IF;
    IF NEW.service_user_id = '' THEN
        NEW.employee_name := NULL;
        RETURN NEW;
    END IF;
    PERFORM activity_name_lock(NEW.service_user_id, false);
    -- A statement of its own, after the lock: it sees a change that
    -- committed while this waited.
    NEW.employee_name := activity_name_of(NEW.service_user_id);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER activity_name_on_activity BEFORE INSERT OR UPDATE OF service_user_id ON activity
    FOR EACH ROW EXECUTE FUNCTION activity_name_on_activity();

-- activity_name_rewrite sets the name of sid's events to the current one.
-- +goose StatementBegin
CREATE FUNCTION activity_name_rewrite(sid TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    name TEXT;
BEGIN
    IF sid IS NULL OR sid = '' THEN
        RETURN;
    END IF;
    PERFORM activity_name_lock(sid, true);
    name := activity_name_of(sid);
    UPDATE activity SET employee_name = name WHERE service_user_id = sid AND employee_name IS DISTINCT FROM name;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION activity_name_on_employee() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.service_user_id IS NOT DISTINCT FROM OLD.service_user_id AND NEW.first_name = OLD.first_name
            AND NEW.last_name = OLD.last_name THEN
            RETURN NULL;
        END IF;
        IF OLD.service_user_id IS DISTINCT FROM NEW.service_user_id THEN
            PERFORM activity_name_rewrite(OLD.service_user_id);
        END IF;
        PERFORM activity_name_rewrite(NEW.service_user_id);
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM activity_name_rewrite(NEW.service_user_id);
    ELSE
        PERFORM activity_name_rewrite(OLD.service_user_id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER activity_name_on_employee AFTER INSERT OR UPDATE OR DELETE ON employees
    FOR EACH ROW EXECUTE FUNCTION activity_name_on_employee();

UPDATE activity a SET employee_name = activity_name_of(a.service_user_id) WHERE a.service_user_id <> '';

-- +goose Down
DROP TRIGGER activity_name_on_employee ON employees;
DROP TRIGGER activity_name_on_activity ON activity;
DROP FUNCTION activity_name_on_employee();
DROP FUNCTION activity_name_rewrite(TEXT);
DROP FUNCTION activity_name_on_activity();
DROP FUNCTION activity_name_of(TEXT);
DROP FUNCTION activity_name_lock(TEXT, BOOLEAN);
ALTER TABLE activity DROP COLUMN employee_name;
