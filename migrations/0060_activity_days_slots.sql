-- +goose Up
-- activity_days (0037) kept one row per day, kind, currency and status,
-- raised by a trigger on every activity insert: every card transaction of a
-- day in one currency updated the same row, so concurrent webhook
-- processing queued on that row's lock, each transaction holding it until
-- its commit was flushed, and each waiting worker held a pooled connection
-- the receiver needed to acknowledge deliveries. The totals are now kept in
-- eight slots per key, picked by the activity row's id: concurrent inserts
-- mostly take different rows. Readers already sum over the rows of a day.
ALTER TABLE activity_days ADD COLUMN slot SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE activity_days DROP CONSTRAINT activity_days_pkey;
ALTER TABLE activity_days ADD PRIMARY KEY (kind, day, currency, status, slot);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION activity_days_on_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO activity_days (day, kind, currency, status, slot, n, amount_n, amount_sum)
    VALUES ((NEW.occurred_at AT TIME ZONE 'UTC')::date, NEW.kind, NEW.currency, NEW.status, (NEW.id % 8)::smallint, 1,
        CASE WHEN NEW.amount IS NULL THEN 0 ELSE 1 END, coalesce(NEW.amount, 0))
    ON CONFLICT (kind, day, currency, status, slot) DO UPDATE SET n = activity_days.n + 1,
        amount_n = activity_days.amount_n + EXCLUDED.amount_n, amount_sum = activity_days.amount_sum + EXCLUDED.amount_sum;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
CREATE TEMPORARY TABLE activity_days_merged ON COMMIT DROP AS
SELECT day, kind, currency, status, sum(n)::bigint AS n, sum(amount_n)::bigint AS amount_n, sum(amount_sum) AS amount_sum
FROM activity_days GROUP BY day, kind, currency, status;
DELETE FROM activity_days;
ALTER TABLE activity_days DROP CONSTRAINT activity_days_pkey;
ALTER TABLE activity_days DROP COLUMN slot;
ALTER TABLE activity_days ADD PRIMARY KEY (kind, day, currency, status);
INSERT INTO activity_days (day, kind, currency, status, n, amount_n, amount_sum)
SELECT day, kind, currency, status, n, amount_n, amount_sum FROM activity_days_merged;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION activity_days_on_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO activity_days (day, kind, currency, status, n, amount_n, amount_sum)
    VALUES ((NEW.occurred_at AT TIME ZONE 'UTC')::date, NEW.kind, NEW.currency, NEW.status, 1,
        CASE WHEN NEW.amount IS NULL THEN 0 ELSE 1 END, coalesce(NEW.amount, 0))
    ON CONFLICT (kind, day, currency, status) DO UPDATE SET n = activity_days.n + 1,
        amount_n = activity_days.amount_n + EXCLUDED.amount_n, amount_sum = activity_days.amount_sum + EXCLUDED.amount_sum;
    RETURN NULL;
END $$;
-- +goose StatementEnd
