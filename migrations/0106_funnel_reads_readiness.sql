-- +goose Up
-- The start page's invite funnel and its readiness table read one source:
-- an employee with a currency active (employee_readiness, what the table
-- counts) is past "KYC submitted" in the funnel too, whether or not the
-- app saw the KYC event (an imported or mirrored employee often did not).
-- Before, such an employee stopped at "linked", and the funnel said "KYC
-- submitted 0" beside a table of active currencies.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION dashboard_employee_refresh(emp BIGINT) RETURNS void LANGUAGE plpgsql AS $$
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
        -- A currency active is KYC that was submitted (and passed), even
        -- when the KYC event itself never reached the app.
        nw.stage := CASE WHEN e.service_user_id IS NULL THEN 1 WHEN NOT (e.kyc_submitted OR active) THEN 2
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

-- Every employee's row again, under the new rule (the counts follow
-- through the moves, when this transaction commits).
SELECT dashboard_employee_refresh(id) FROM employees;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION dashboard_employee_refresh(emp BIGINT) RETURNS void LANGUAGE plpgsql AS $$
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

SELECT dashboard_employee_refresh(id) FROM employees;
