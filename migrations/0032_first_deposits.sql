-- +goose Up
-- The start page's invite funnel ends at "first deposit": the employees who
-- have received a completed deposit. Finding them among a year of activity
-- on every view would read every deposit ever recorded; this table keeps one
-- row per user, written by a trigger as deposits are recorded.
CREATE TABLE first_deposits (
    service_user_id TEXT        PRIMARY KEY,
    at              TIMESTAMPTZ NOT NULL
);

INSERT INTO first_deposits (service_user_id, at)
SELECT service_user_id, min(occurred_at) FROM activity
WHERE kind = 'deposit' AND status = 'completed' AND service_user_id <> ''
GROUP BY service_user_id;

-- +goose StatementBegin
CREATE FUNCTION first_deposits_on_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO first_deposits (service_user_id, at) VALUES (NEW.service_user_id, NEW.occurred_at)
    ON CONFLICT (service_user_id) DO UPDATE SET at = EXCLUDED.at WHERE first_deposits.at > EXCLUDED.at;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER first_deposits_on_activity
AFTER INSERT ON activity
FOR EACH ROW WHEN (NEW.kind = 'deposit' AND NEW.status = 'completed' AND NEW.service_user_id <> '')
EXECUTE FUNCTION first_deposits_on_activity();

-- +goose Down
DROP TRIGGER first_deposits_on_activity ON activity;
DROP FUNCTION first_deposits_on_activity();
DROP TABLE first_deposits;
