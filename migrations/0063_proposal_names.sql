-- +goose Up
-- The approval queue named each row's owner and recipient with two lookups
-- in employees by service_user_id: some 60 % of the page statement's time.
-- Each proposal now carries both people's first name, last name and email
-- as the lookup gave them (NULL when no employee has the id), with a flag
-- per person saying the copy is kept; a row whose flag is false is looked
-- up as before.
--   - A proposal takes the names when written with a new owner or
--     recipient (BEFORE trigger).
--   - A change of an employee's name, email or service_user_id, its
--     arrival or removal, rewrites the copies of that id (AFTER trigger on
--     employees, through proposals_owner_key and proposals_recipient_key).
-- An advisory lock per service_user_id (the class of 0062's) orders the
-- two, as for activity: a writer of a proposal takes it shared, a rewrite
-- exclusive, each to the end of its transaction, and the rewrite reads
-- the names again under it. A proposal's writer may already hold the
-- proposal's row lock, which a rewrite waits for: so the writer only tries
-- the lock, and when a rewrite holds it the writer keeps no copy (flag
-- false, names looked up on reading) instead of waiting. It never waits,
-- so the two cannot deadlock.
ALTER TABLE proposals
    ADD COLUMN owner_kept       BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN owner_first_name TEXT,
    ADD COLUMN owner_last_name  TEXT,
    ADD COLUMN owner_email      TEXT,
    ADD COLUMN to_kept          BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN to_first_name    TEXT,
    ADD COLUMN to_last_name     TEXT,
    ADD COLUMN to_email         TEXT;
CREATE INDEX proposals_owner_key ON proposals (owner_user_id);
CREATE INDEX proposals_recipient_key ON proposals (to_user_id);

-- +goose StatementBegin
CREATE FUNCTION proposal_names_on_proposal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.owner_user_id IS DISTINCT FROM OLD.owner_user_id THEN
        NEW.owner_first_name := NULL;
        NEW.owner_last_name := NULL;
        NEW.owner_email := NULL;
        NEW.owner_kept := pg_try_advisory_xact_lock_shared(7233901, hashtext(NEW.owner_user_id));
        IF NEW.owner_kept THEN
            -- A statement of its own, after the lock: it sees a change
            -- that committed before the lock was free.
            SELECT e.first_name, e.last_name, e.email INTO NEW.owner_first_name, NEW.owner_last_name, NEW.owner_email
            FROM employees e WHERE e.service_user_id = NEW.owner_user_id;
        END IF;
    END IF;
    IF TG_OP = 'INSERT' OR NEW.to_user_id IS DISTINCT FROM OLD.to_user_id THEN
        NEW.to_first_name := NULL;
        NEW.to_last_name := NULL;
        NEW.to_email := NULL;
        IF NEW.to_user_id = '' THEN
            NEW.to_kept := true;
        ELSE
            NEW.to_kept := pg_try_advisory_xact_lock_shared(7233901, hashtext(NEW.to_user_id));
            IF NEW.to_kept THEN
                SELECT e.first_name, e.last_name, e.email INTO NEW.to_first_name, NEW.to_last_name, NEW.to_email
                FROM employees e WHERE e.service_user_id = NEW.to_user_id;
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER proposal_names_on_proposal BEFORE INSERT OR UPDATE OF owner_user_id, to_user_id ON proposals
    FOR EACH ROW EXECUTE FUNCTION proposal_names_on_proposal();

-- proposal_names_rewrite sets the copies of each of sids' names to the
-- current ones, on the proposals they own and receive.
-- +goose StatementBegin
CREATE FUNCTION proposal_names_rewrite(sids TEXT[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    sid TEXT;
    locked TEXT[];
    f TEXT;
    l TEXT;
    m TEXT;
BEGIN
    sids := ARRAY(SELECT DISTINCT x FROM unnest(sids) x WHERE x IS NOT NULL AND x <> '' ORDER BY x);
    IF cardinality(sids) = 0 THEN
        RETURN;
    END IF;
    FOREACH sid IN ARRAY sids LOOP
        PERFORM pg_advisory_xact_lock(7233901, hashtext(sid));
    END LOOP;
    -- Every row to rewrite first, in one pass in the order of their ids,
    -- as every writer of several proposals locks them: a proposal can name
    -- two people, and rewrites locking as they went (or one id, then
    -- another) deadlocked on two such rows. Only the rows of that pass are
    -- rewritten: one committed since was written while these locks were
    -- held, so its writer kept no copy (it is looked up).
    SELECT array_agg(id) INTO locked FROM (SELECT id FROM proposals
        WHERE owner_user_id = ANY(sids) OR to_user_id = ANY(sids) ORDER BY id FOR UPDATE) r;
    IF locked IS NULL THEN
        RETURN;
    END IF;
    FOREACH sid IN ARRAY sids LOOP
        SELECT e.first_name, e.last_name, e.email INTO f, l, m FROM employees e WHERE e.service_user_id = sid;
        UPDATE proposals SET owner_first_name = f, owner_last_name = l, owner_email = m, owner_kept = true
        WHERE id = ANY(locked) AND owner_user_id = sid
          AND (NOT owner_kept OR (owner_first_name, owner_last_name, owner_email) IS DISTINCT FROM (f, l, m));
        UPDATE proposals SET to_first_name = f, to_last_name = l, to_email = m, to_kept = true
        WHERE id = ANY(locked) AND to_user_id = sid
          AND (NOT to_kept OR (to_first_name, to_last_name, to_email) IS DISTINCT FROM (f, l, m));
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION proposal_names_on_employee() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.service_user_id IS NOT DISTINCT FROM OLD.service_user_id AND NEW.first_name = OLD.first_name
            AND NEW.last_name = OLD.last_name AND NEW.email = OLD.email THEN
            RETURN NULL;
        END IF;
        PERFORM proposal_names_rewrite(ARRAY[OLD.service_user_id, NEW.service_user_id]);
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM proposal_names_rewrite(ARRAY[NEW.service_user_id]);
    ELSE
        PERFORM proposal_names_rewrite(ARRAY[OLD.service_user_id]);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER proposal_names_on_employee AFTER INSERT OR UPDATE OR DELETE ON employees
    FOR EACH ROW EXECUTE FUNCTION proposal_names_on_employee();

UPDATE proposals p SET owner_kept = true, owner_first_name = e.first_name, owner_last_name = e.last_name, owner_email = e.email
FROM employees e WHERE e.service_user_id = p.owner_user_id;
UPDATE proposals SET owner_kept = true WHERE NOT owner_kept;
UPDATE proposals p SET to_kept = true, to_first_name = e.first_name, to_last_name = e.last_name, to_email = e.email
FROM employees e WHERE e.service_user_id = p.to_user_id AND p.to_user_id <> '';
UPDATE proposals SET to_kept = true WHERE NOT to_kept;

-- +goose Down
DROP TRIGGER proposal_names_on_employee ON employees;
DROP TRIGGER proposal_names_on_proposal ON proposals;
DROP FUNCTION proposal_names_on_employee();
DROP FUNCTION proposal_names_rewrite(TEXT[]);
DROP FUNCTION proposal_names_on_proposal();
DROP INDEX proposals_recipient_key;
DROP INDEX proposals_owner_key;
ALTER TABLE proposals DROP COLUMN owner_kept, DROP COLUMN owner_first_name, DROP COLUMN owner_last_name, DROP COLUMN owner_email,
    DROP COLUMN to_kept, DROP COLUMN to_first_name, DROP COLUMN to_last_name, DROP COLUMN to_email;
