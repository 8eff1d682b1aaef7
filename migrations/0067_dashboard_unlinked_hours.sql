-- +goose Up
-- "Invited a week ago or more, not linked" depends on the time: the start
-- page took the week's invites out of the kept unlinked counts by counting
-- the index range of the week on every view (every invite of a week of
-- onboarding, on everyone's landing page, polled every 10 seconds). The
-- invites not linked are now also kept per hour of their invite, so a
-- reader sums the whole hours after the cutoff's (at most 168 rows) and
-- counts from the index only the invites of the cutoff's own hour.
-- n counts them; n_only those with no other reason (need_rank null).
CREATE TABLE dashboard_unlinked_hours (
    hour   TIMESTAMPTZ PRIMARY KEY,
    n      BIGINT      NOT NULL,
    n_only BIGINT      NOT NULL
);

-- Moves wait for the commit, as dashboard_count_moves' do (0037): applied
-- in hour order by the one function that applies every kept count, so
-- every transaction takes the counts' locks in the same order.
CREATE TABLE dashboard_unlinked_moves (
    xact       BIGINT      NOT NULL DEFAULT txid_current(),
    hour       TIMESTAMPTZ NOT NULL,
    delta      BIGINT      NOT NULL,
    delta_only BIGINT      NOT NULL
);
CREATE INDEX dashboard_unlinked_moves_xact_idx ON dashboard_unlinked_moves (xact);

-- +goose StatementBegin
CREATE FUNCTION dashboard_unlinked_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.unlinked_since IS NOT NULL THEN
        INSERT INTO dashboard_unlinked_moves (hour, delta, delta_only)
        VALUES (date_trunc('hour', OLD.unlinked_since, 'UTC'), -1, CASE WHEN OLD.need_rank IS NULL THEN -1 ELSE 0 END);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.unlinked_since IS NOT NULL THEN
        INSERT INTO dashboard_unlinked_moves (hour, delta, delta_only)
        VALUES (date_trunc('hour', NEW.unlinked_since, 'UTC'), 1, CASE WHEN NEW.need_rank IS NULL THEN 1 ELSE 0 END);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER dashboard_unlinked_on_insert_delete
AFTER INSERT OR DELETE ON dashboard_employees
FOR EACH ROW EXECUTE FUNCTION dashboard_unlinked_on_change();
CREATE TRIGGER dashboard_unlinked_on_update
AFTER UPDATE ON dashboard_employees
FOR EACH ROW WHEN (OLD.unlinked_since IS DISTINCT FROM NEW.unlinked_since
    OR (OLD.need_rank IS NULL) <> (NEW.need_rank IS NULL))
EXECUTE FUNCTION dashboard_unlinked_on_change();

-- The first firing at commit applies every move of the transaction: the
-- readiness counts, the dashboard's, then the invites per hour, each in
-- key order; the others find none left.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH moved AS (DELETE FROM readiness_count_moves WHERE xact = txid_current() RETURNING currency, state, delta)
    INSERT INTO readiness_counts (currency, state, n)
    SELECT currency, state, sum(delta) FROM moved GROUP BY currency, state HAVING sum(delta) <> 0 ORDER BY currency, state
    ON CONFLICT (currency, state) DO UPDATE SET n = readiness_counts.n + EXCLUDED.n;
    WITH moved AS (DELETE FROM dashboard_count_moves WHERE xact = txid_current() RETURNING name, delta)
    INSERT INTO dashboard_counts (name, n)
    SELECT name, sum(delta) FROM moved GROUP BY name HAVING sum(delta) <> 0 ORDER BY name
    ON CONFLICT (name) DO UPDATE SET n = dashboard_counts.n + EXCLUDED.n;
    WITH moved AS (DELETE FROM dashboard_unlinked_moves WHERE xact = txid_current() RETURNING hour, delta, delta_only)
    INSERT INTO dashboard_unlinked_hours (hour, n, n_only)
    SELECT hour, sum(delta), sum(delta_only) FROM moved GROUP BY hour HAVING sum(delta) <> 0 OR sum(delta_only) <> 0 ORDER BY hour
    ON CONFLICT (hour) DO UPDATE SET n = dashboard_unlinked_hours.n + EXCLUDED.n,
        n_only = dashboard_unlinked_hours.n_only + EXCLUDED.n_only;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER count_moves_apply
AFTER INSERT ON dashboard_unlinked_moves
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION count_moves_apply();

-- The invites as they are now.
INSERT INTO dashboard_unlinked_hours (hour, n, n_only)
SELECT date_trunc('hour', unlinked_since, 'UTC'), count(*), count(*) FILTER (WHERE need_rank IS NULL)
FROM dashboard_employees WHERE unlinked_since IS NOT NULL GROUP BY 1;

-- +goose Down
DROP TRIGGER count_moves_apply ON dashboard_unlinked_moves;
DROP TRIGGER dashboard_unlinked_on_update ON dashboard_employees;
DROP TRIGGER dashboard_unlinked_on_insert_delete ON dashboard_employees;
DROP FUNCTION dashboard_unlinked_on_change();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH moved AS (DELETE FROM readiness_count_moves WHERE xact = txid_current() RETURNING currency, state, delta)
    INSERT INTO readiness_counts (currency, state, n)
    SELECT currency, state, sum(delta) FROM moved GROUP BY currency, state HAVING sum(delta) <> 0 ORDER BY currency, state
    ON CONFLICT (currency, state) DO UPDATE SET n = readiness_counts.n + EXCLUDED.n;
    WITH moved AS (DELETE FROM dashboard_count_moves WHERE xact = txid_current() RETURNING name, delta)
    INSERT INTO dashboard_counts (name, n)
    SELECT name, sum(delta) FROM moved GROUP BY name HAVING sum(delta) <> 0 ORDER BY name
    ON CONFLICT (name) DO UPDATE SET n = dashboard_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TABLE dashboard_unlinked_moves;
DROP TABLE dashboard_unlinked_hours;
