-- +goose Up
-- The readiness chart counts the whole workforce by currency and state.
-- Counting ten thousand employees times five currencies on every view was
-- the slowest page of the app; these counts are kept as rows change
-- instead. Counted: employees (not the treasury) whose account is not
-- deleted. currency '*' with state 'employees' is how many there are; a
-- currency's employees with no readiness row are the rest.
CREATE TABLE readiness_counts (
    currency TEXT   NOT NULL,
    state    TEXT   NOT NULL,
    n        BIGINT NOT NULL,
    PRIMARY KEY (currency, state)
);

INSERT INTO readiness_counts (currency, state, n)
SELECT '*', 'employees', count(*) FROM employees WHERE kind = 'employee' AND invite_state <> 'deleted';
INSERT INTO readiness_counts (currency, state, n)
SELECT r.currency, r.state, count(*)
FROM employee_readiness r JOIN employees e ON e.id = r.employee_id
WHERE e.kind = 'employee' AND e.invite_state <> 'deleted'
GROUP BY 1, 2;

-- +goose StatementBegin
CREATE FUNCTION readiness_count_add(cur TEXT, st TEXT, delta BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO readiness_counts (currency, state, n) VALUES (cur, st, delta)
    ON CONFLICT (currency, state) DO UPDATE SET n = readiness_counts.n + EXCLUDED.n;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION readiness_counts_on_readiness() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND EXISTS (
        SELECT 1 FROM employees WHERE id = OLD.employee_id AND kind = 'employee' AND invite_state <> 'deleted') THEN
        PERFORM readiness_count_add(OLD.currency, OLD.state, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND EXISTS (
        SELECT 1 FROM employees WHERE id = NEW.employee_id AND kind = 'employee' AND invite_state <> 'deleted') THEN
        PERFORM readiness_count_add(NEW.currency, NEW.state, 1);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER readiness_counts_on_readiness
AFTER INSERT OR DELETE OR UPDATE OF currency, state, employee_id ON employee_readiness
FOR EACH ROW EXECUTE FUNCTION readiness_counts_on_readiness();

-- +goose StatementBegin
CREATE FUNCTION readiness_counts_on_employee() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP IN ('UPDATE', 'DELETE') AND OLD.kind = 'employee' AND OLD.invite_state <> 'deleted';
    now_counted BOOLEAN := TG_OP IN ('INSERT', 'UPDATE') AND NEW.kind = 'employee' AND NEW.invite_state <> 'deleted';
    delta BIGINT;
    row RECORD;
BEGIN
    IF was = now_counted THEN
        RETURN NULL;
    END IF;
    delta := CASE WHEN now_counted THEN 1 ELSE -1 END;
    PERFORM readiness_count_add('*', 'employees', delta);
    FOR row IN SELECT currency, state FROM employee_readiness
               WHERE employee_id = CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END LOOP
        PERFORM readiness_count_add(row.currency, row.state, delta);
    END LOOP;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER readiness_counts_on_employee
AFTER INSERT OR DELETE OR UPDATE OF kind, invite_state ON employees
FOR EACH ROW EXECUTE FUNCTION readiness_counts_on_employee();

-- +goose Down
DROP TRIGGER readiness_counts_on_employee ON employees;
DROP TRIGGER readiness_counts_on_readiness ON employee_readiness;
DROP FUNCTION readiness_counts_on_employee();
DROP FUNCTION readiness_counts_on_readiness();
DROP FUNCTION readiness_count_add(TEXT, TEXT, BIGINT);
DROP TABLE readiness_counts;
