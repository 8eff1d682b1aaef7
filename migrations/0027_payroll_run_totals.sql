-- +goose Up
-- A run's rows never change once it is created (only their proposal ids
-- are filled in), so its row counts and per-currency totals are written
-- once, at creation, instead of being recounted on every read of the run
-- (every poll of its page).
ALTER TABLE payroll_runs
    ADD COLUMN rows_total INT    NOT NULL DEFAULT 0,
    ADD COLUMN rows_valid INT    NOT NULL DEFAULT 0,
    ADD COLUMN totals     TEXT[] NOT NULL DEFAULT '{}'; -- the currencies, then their sums

UPDATE payroll_runs r SET
    rows_total = (SELECT count(*) FROM payroll_rows w WHERE w.run_id = r.id),
    rows_valid = (SELECT count(*) FROM payroll_rows w WHERE w.run_id = r.id AND cardinality(w.problems) = 0),
    totals = (SELECT coalesce(array_agg(t.currency ORDER BY t.currency), '{}') || coalesce(array_agg(t.sum ORDER BY t.currency), '{}')
              FROM (SELECT w.currency, coalesce(sum(w.amount), 0)::text AS sum FROM payroll_rows w
                    WHERE w.run_id = r.id AND cardinality(w.problems) = 0 GROUP BY w.currency) t);

-- +goose Down
ALTER TABLE payroll_runs DROP COLUMN totals, DROP COLUMN rows_valid, DROP COLUMN rows_total;
