-- +goose Up
-- The start page joined every employee with their readiness and deposits
-- on every view, three times (the invite funnel, who needs HR's action and
-- the list of them), and summed 30 days of money and 7 days of card spends
-- row by row. Each employee's stage and reasons, and the totals per day,
-- are now kept as rows change, by triggers in the writing transaction:
-- every replica reads the same committed numbers.

-- One row per counted employee (kind 'employee', not deleted): how far
-- they got in the invite funnel, and what of theirs needs HR, as far as it
-- does not depend on the time. "Invited a week ago and not linked" does:
-- unlinked_since keeps when they were invited.
CREATE TABLE dashboard_employees (
    employee_id    BIGINT      PRIMARY KEY,
    -- 1 invited, 2 linked, 3 KYC submitted, 4 a currency active, 5 a
    -- completed deposit received: each stage implies the ones before.
    stage          SMALLINT    NOT NULL,
    need_action    BOOLEAN     NOT NULL, -- the API asks for something
    need_stop      BOOLEAN     NOT NULL, -- a currency failed or was rejected
    -- The most urgent time-independent reason (1 action required, 2
    -- onboarding stopped; null: none), what it says and since when, as the
    -- needing-action list shows it.
    need_rank      SMALLINT,
    need_detail    TEXT        NOT NULL DEFAULT '',
    need_since     TIMESTAMPTZ,
    -- When they were invited while invited and not linked; null otherwise.
    unlinked_since TIMESTAMPTZ
);
CREATE INDEX dashboard_employees_needs_idx ON dashboard_employees (need_rank, need_since DESC, employee_id)
    WHERE need_rank IS NOT NULL;
CREATE INDEX dashboard_employees_unlinked_idx ON dashboard_employees (unlinked_since DESC, employee_id) INCLUDE (need_rank)
    WHERE unlinked_since IS NOT NULL;

-- Counts over dashboard_employees: 'stage:<n>' (employees whose furthest
-- stage is n), 'need:action', 'need:stop', 'need:any' (action or stop),
-- 'need:unlinked' and 'need:unlinked_only' (unlinked with no other
-- reason). Invites a week old depend on the time: the reader takes the
-- week's invites (an index range) out of the kept unlinked counts.
CREATE TABLE dashboard_counts (
    name TEXT   PRIMARY KEY,
    n    BIGINT NOT NULL
);

-- A transaction's moves of the counts, applied when it commits. Updating
-- the counts as each row changes would lock them in the order the rows
-- change (a readiness read of five currencies moves several), which
-- another transaction may reverse: a deadlock. At commit one statement
-- applies the sum of each count's moves, in name order, so every
-- transaction takes the count rows' locks in the same order, and holds
-- them only while it commits.
CREATE TABLE dashboard_count_moves (
    xact  BIGINT NOT NULL DEFAULT txid_current(),
    name  TEXT   NOT NULL,
    delta BIGINT NOT NULL
);
CREATE INDEX dashboard_count_moves_xact_idx ON dashboard_count_moves (xact);

-- +goose StatementBegin
CREATE FUNCTION dashboard_count_names(stage SMALLINT, action BOOLEAN, stop BOOLEAN, unlinked BOOLEAN) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT array_remove(ARRAY[
        'stage:' || stage,
        CASE WHEN action THEN 'need:action' END,
        CASE WHEN stop THEN 'need:stop' END,
        CASE WHEN action OR stop THEN 'need:any' END,
        CASE WHEN unlinked THEN 'need:unlinked' END,
        CASE WHEN unlinked AND NOT action AND NOT stop THEN 'need:unlinked_only' END], NULL);
$$;
-- +goose StatementEnd

-- readiness_counts (migration 0019) moved its counts as each row changed,
-- with the same deadlock: its moves now wait for the commit too.
CREATE TABLE readiness_count_moves (
    xact     BIGINT NOT NULL DEFAULT txid_current(),
    currency TEXT   NOT NULL,
    state    TEXT   NOT NULL,
    delta    BIGINT NOT NULL
);
CREATE INDEX readiness_count_moves_xact_idx ON readiness_count_moves (xact);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION readiness_count_add(cur TEXT, st TEXT, delta BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO readiness_count_moves (currency, state, delta) VALUES (cur, st, delta);
$$;
-- +goose StatementEnd

-- The first firing at commit applies every move of the transaction, the
-- readiness counts then the dashboard's, each in key order; the others find
-- none left.
-- +goose StatementBegin
CREATE FUNCTION count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE CONSTRAINT TRIGGER count_moves_apply
AFTER INSERT ON dashboard_count_moves
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION count_moves_apply();
CREATE CONSTRAINT TRIGGER count_moves_apply
AFTER INSERT ON readiness_count_moves
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION count_moves_apply();

-- dashboard_employee_refresh recomputes one employee's row from the
-- employee, their readiness and first_deposits, and records the moves of
-- the counts. It first locks the employee's row, so two transactions
-- changing the same employee's sources recompute one after the other, the
-- second seeing the first's committed changes.
-- +goose StatementBegin
CREATE FUNCTION dashboard_employee_refresh(emp BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    e employees%ROWTYPE;
    old dashboard_employees%ROWTYPE;
    nw dashboard_employees%ROWTYPE;
    counted BOOLEAN;
    active BOOLEAN;
    deposited BOOLEAN;
    stop_detail TEXT;
    stop_since TIMESTAMPTZ;
    before TEXT[] := '{}';
    after TEXT[] := '{}';
BEGIN
    SELECT * INTO e FROM employees WHERE id = emp FOR NO KEY UPDATE;
    counted := FOUND AND e.kind = 'employee' AND e.invite_state <> 'deleted';
    SELECT * INTO old FROM dashboard_employees WHERE employee_id = emp;
    IF FOUND THEN
        before := dashboard_count_names(old.stage, old.need_action, old.need_stop, old.unlinked_since IS NOT NULL);
    END IF;
    IF counted THEN
        active := EXISTS (SELECT 1 FROM employee_readiness WHERE employee_id = emp AND state = 'active');
        deposited := e.service_user_id IS NOT NULL
            AND EXISTS (SELECT 1 FROM first_deposits WHERE service_user_id = e.service_user_id);
        SELECT r.currency || ' ' || r.state, r.read_at INTO stop_detail, stop_since
        FROM employee_readiness r WHERE r.employee_id = emp AND r.state IN ('failed', 'rejected')
        ORDER BY r.read_at DESC, r.currency LIMIT 1;
        nw.employee_id := emp;
        nw.stage := CASE WHEN e.service_user_id IS NULL THEN 1 WHEN NOT e.kyc_submitted THEN 2
            WHEN NOT active THEN 3 WHEN NOT deposited THEN 4 ELSE 5 END;
        nw.need_action := e.invite_state = 'action_required' OR e.action_required <> '';
        nw.need_stop := stop_since IS NOT NULL;
        nw.unlinked_since := CASE WHEN e.invite_state = 'invited' AND e.service_user_id IS NULL THEN e.created_at END;
        IF nw.need_action THEN
            nw.need_rank := 1;
            nw.need_detail := e.action_required;
            nw.need_since := coalesce(e.action_required_at, e.updated_at);
        ELSIF nw.need_stop THEN
            nw.need_rank := 2;
            nw.need_detail := stop_detail;
            nw.need_since := stop_since;
        ELSE
            nw.need_detail := '';
        END IF;
        after := dashboard_count_names(nw.stage, nw.need_action, nw.need_stop, nw.unlinked_since IS NOT NULL);
        IF old.employee_id IS NULL THEN
            INSERT INTO dashboard_employees VALUES (nw.*);
        ELSIF old IS DISTINCT FROM nw THEN
            UPDATE dashboard_employees SET stage = nw.stage, need_action = nw.need_action, need_stop = nw.need_stop,
                need_rank = nw.need_rank, need_detail = nw.need_detail, need_since = nw.need_since,
                unlinked_since = nw.unlinked_since
            WHERE employee_id = emp;
        END IF;
    ELSIF old.employee_id IS NOT NULL THEN
        DELETE FROM dashboard_employees WHERE employee_id = emp;
    END IF;
    INSERT INTO dashboard_count_moves (name, delta)
    SELECT x, -1 FROM (SELECT unnest(before) EXCEPT SELECT unnest(after)) gone(x)
    UNION ALL
    SELECT x, 1 FROM (SELECT unnest(after) EXCEPT SELECT unnest(before)) came(x);
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION dashboard_on_employee() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM dashboard_employee_refresh(CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Every column the row reads: updated_at is the time of a flag raised
-- with no time of its own.
CREATE TRIGGER dashboard_on_employee
AFTER INSERT OR DELETE OR UPDATE OF kind, invite_state, service_user_id, kyc_submitted, action_required, action_required_at,
    created_at, updated_at ON employees
FOR EACH ROW EXECUTE FUNCTION dashboard_on_employee();

-- +goose StatementBegin
CREATE FUNCTION dashboard_on_readiness() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM dashboard_employee_refresh(OLD.employee_id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.employee_id <> OLD.employee_id) THEN
        PERFORM dashboard_employee_refresh(NEW.employee_id);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- A re-read that changes nothing the row keeps (the read time of a state
-- other than failed or rejected) does not fire.
CREATE TRIGGER dashboard_on_readiness_change
AFTER INSERT OR DELETE ON employee_readiness
FOR EACH ROW EXECUTE FUNCTION dashboard_on_readiness();
CREATE TRIGGER dashboard_on_readiness_update
AFTER UPDATE ON employee_readiness
FOR EACH ROW WHEN (OLD.employee_id <> NEW.employee_id OR OLD.state <> NEW.state OR OLD.currency <> NEW.currency
    OR (NEW.state IN ('failed', 'rejected') AND OLD.read_at <> NEW.read_at))
EXECUTE FUNCTION dashboard_on_readiness();

-- +goose StatementBegin
CREATE FUNCTION dashboard_on_first_deposit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    emp BIGINT;
BEGIN
    FOR emp IN SELECT id FROM employees
               WHERE service_user_id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.service_user_id END,
                                         CASE WHEN TG_OP <> 'DELETE' THEN NEW.service_user_id END) LOOP
        PERFORM dashboard_employee_refresh(emp);
    END LOOP;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER dashboard_on_first_deposit
AFTER INSERT OR DELETE OR UPDATE OF service_user_id ON first_deposits
FOR EACH ROW EXECUTE FUNCTION dashboard_on_first_deposit();

-- The rows as they are now.
INSERT INTO dashboard_employees
SELECT e.id,
    CASE WHEN e.service_user_id IS NULL THEN 1 WHEN NOT e.kyc_submitted THEN 2 WHEN act.employee_id IS NULL THEN 3
        WHEN dep.service_user_id IS NULL THEN 4 ELSE 5 END,
    e.invite_state = 'action_required' OR e.action_required <> '',
    stop.employee_id IS NOT NULL,
    CASE WHEN e.invite_state = 'action_required' OR e.action_required <> '' THEN 1 WHEN stop.employee_id IS NOT NULL THEN 2 END,
    CASE WHEN e.invite_state = 'action_required' OR e.action_required <> '' THEN e.action_required
        WHEN stop.employee_id IS NOT NULL THEN stop.detail ELSE '' END,
    CASE WHEN e.invite_state = 'action_required' OR e.action_required <> '' THEN coalesce(e.action_required_at, e.updated_at)
        ELSE stop.read_at END,
    CASE WHEN e.invite_state = 'invited' AND e.service_user_id IS NULL THEN e.created_at END
FROM employees e
LEFT JOIN (SELECT DISTINCT employee_id FROM employee_readiness WHERE state = 'active') act ON act.employee_id = e.id
LEFT JOIN first_deposits dep ON dep.service_user_id = e.service_user_id
LEFT JOIN (SELECT DISTINCT ON (employee_id) employee_id, currency || ' ' || state AS detail, read_at
           FROM employee_readiness WHERE state IN ('failed', 'rejected')
           ORDER BY employee_id, read_at DESC, currency) stop ON stop.employee_id = e.id
WHERE e.kind = 'employee' AND e.invite_state <> 'deleted';

INSERT INTO dashboard_counts (name, n)
SELECT nm, count(*) FROM dashboard_employees d,
    unnest(dashboard_count_names(d.stage, d.need_action, d.need_stop, d.unlinked_since IS NOT NULL)) nm
GROUP BY nm;

-- Completed deposits and withdrawals, card spends and declines per UTC day,
-- kind, currency and status as recorded: the charts read 30 rows a
-- currency rather than every event of 30 days. amount_n counts the events
-- with an amount; amount_sum sums them. activity is written once, never
-- changed, so only inserts are counted.
CREATE TABLE activity_days (
    day        DATE    NOT NULL,
    kind       TEXT    NOT NULL,
    currency   TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    n          BIGINT  NOT NULL,
    amount_n   BIGINT  NOT NULL,
    amount_sum NUMERIC NOT NULL,
    PRIMARY KEY (kind, day, currency, status)
);

INSERT INTO activity_days
SELECT (occurred_at AT TIME ZONE 'UTC')::date, kind, currency, status, count(*), count(amount), coalesce(sum(amount), 0)
FROM activity GROUP BY 1, 2, 3, 4;

-- +goose StatementBegin
CREATE FUNCTION activity_days_on_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO activity_days (day, kind, currency, status, n, amount_n, amount_sum)
    VALUES ((NEW.occurred_at AT TIME ZONE 'UTC')::date, NEW.kind, NEW.currency, NEW.status, 1,
        CASE WHEN NEW.amount IS NULL THEN 0 ELSE 1 END, coalesce(NEW.amount, 0))
    ON CONFLICT (kind, day, currency, status) DO UPDATE SET n = activity_days.n + 1,
        amount_n = activity_days.amount_n + EXCLUDED.amount_n, amount_sum = activity_days.amount_sum + EXCLUDED.amount_sum;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Named to fire after first_deposits_on_activity (triggers fire in name
-- order): a first deposit locks its employee's row (dashboard_employees)
-- before the day's totals row, the order of a transaction that changes an
-- employee and then records activity.
CREATE TRIGGER tally_activity_days
AFTER INSERT ON activity
FOR EACH ROW EXECUTE FUNCTION activity_days_on_activity();

-- +goose Down
DROP TRIGGER tally_activity_days ON activity;
DROP FUNCTION activity_days_on_activity();
DROP TABLE activity_days;
DROP TRIGGER dashboard_on_first_deposit ON first_deposits;
DROP TRIGGER dashboard_on_readiness_update ON employee_readiness;
DROP TRIGGER dashboard_on_readiness_change ON employee_readiness;
DROP TRIGGER dashboard_on_employee ON employees;
DROP FUNCTION dashboard_on_first_deposit();
DROP FUNCTION dashboard_on_readiness();
DROP FUNCTION dashboard_on_employee();
DROP FUNCTION dashboard_employee_refresh(BIGINT);
DROP TRIGGER count_moves_apply ON dashboard_count_moves;
DROP TRIGGER count_moves_apply ON readiness_count_moves;
DROP FUNCTION count_moves_apply();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION readiness_count_add(cur TEXT, st TEXT, delta BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO readiness_counts (currency, state, n) VALUES (cur, st, delta)
    ON CONFLICT (currency, state) DO UPDATE SET n = readiness_counts.n + EXCLUDED.n;
$$;
-- +goose StatementEnd
DROP TABLE readiness_count_moves;
DROP FUNCTION dashboard_count_names(SMALLINT, BOOLEAN, BOOLEAN, BOOLEAN);
DROP TABLE dashboard_count_moves;
DROP TABLE dashboard_counts;
DROP TABLE dashboard_employees;
