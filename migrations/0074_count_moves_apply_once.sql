-- +goose Up
-- A transaction's moves of the kept counts are applied when it commits, by
-- a deferred trigger that fires once for every move row (0037, 0054,
-- 0067). The first firing applies them all; each later one looked for its
-- transaction's moves again through the xact index, and walked the entry
-- of every move already applied (deleted by this same transaction, so
-- never pruned before it ends). A transaction writing n rows paid for n ×
-- n index entries: inserting employees in bulk cost the square of the
-- batch, and a bulk write grew faster than its rows. Each move now has an
-- id, and a firing whose own move is already applied returns at once; one
-- whose move is still there applies every move of the transaction, as
-- before (a move written after the first firing, as SET CONSTRAINTS ALL
-- IMMEDIATE may make happen, is still applied by its own firing).
ALTER TABLE readiness_count_moves ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE dashboard_count_moves ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE dashboard_unlinked_moves ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE queue_count_moves ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    CASE TG_TABLE_NAME
    WHEN 'readiness_count_moves' THEN
        PERFORM FROM readiness_count_moves WHERE id = NEW.id;
    WHEN 'dashboard_count_moves' THEN
        PERFORM FROM dashboard_count_moves WHERE id = NEW.id;
    WHEN 'dashboard_unlinked_moves' THEN
        PERFORM FROM dashboard_unlinked_moves WHERE id = NEW.id;
    END CASE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM FROM queue_count_moves WHERE id = NEW.id;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    WITH moved AS (DELETE FROM queue_count_moves WHERE xact = txid_current() RETURNING status, type, delta)
    INSERT INTO queue_counts (status, type, n)
    SELECT status, type, sum(delta) FROM moved GROUP BY status, type HAVING sum(delta) <> 0 ORDER BY status, type
    ON CONFLICT (status, type) DO UPDATE SET n = queue_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH moved AS (DELETE FROM queue_count_moves WHERE xact = txid_current() RETURNING status, type, delta)
    INSERT INTO queue_counts (status, type, n)
    SELECT status, type, sum(delta) FROM moved GROUP BY status, type HAVING sum(delta) <> 0 ORDER BY status, type
    ON CONFLICT (status, type) DO UPDATE SET n = queue_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;
-- +goose StatementEnd
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
ALTER TABLE queue_count_moves DROP COLUMN id;
ALTER TABLE dashboard_unlinked_moves DROP COLUMN id;
ALTER TABLE dashboard_count_moves DROP COLUMN id;
ALTER TABLE readiness_count_moves DROP COLUMN id;
