-- +goose Up
-- The activity feed (100 lines) and the approval queue (a page of rows)
-- look their people up in employees by service_user_id, one index read a
-- line: a cost that grows with the page, not the company. The copies of
-- 0062 and 0063, and the triggers that rewrote every copy of a person on
-- each change to employees, go.
DROP TRIGGER activity_name_on_employee ON employees;
DROP TRIGGER activity_name_on_activity ON activity;
DROP FUNCTION activity_name_on_employee();
DROP FUNCTION activity_name_rewrite(TEXT);
DROP FUNCTION activity_name_on_activity();
DROP FUNCTION activity_name_of(TEXT);
DROP FUNCTION activity_name_lock(TEXT, BOOLEAN);
ALTER TABLE activity DROP COLUMN employee_name;

DROP TRIGGER proposal_names_on_employee ON employees;
DROP TRIGGER proposal_names_on_proposal ON proposals;
DROP FUNCTION proposal_names_on_employee();
DROP FUNCTION proposal_names_rewrite(TEXT[]);
DROP FUNCTION proposal_names_on_proposal();
DROP INDEX proposals_recipient_key;
DROP INDEX proposals_owner_key;
ALTER TABLE proposals DROP COLUMN owner_kept, DROP COLUMN owner_first_name, DROP COLUMN owner_last_name, DROP COLUMN owner_email,
    DROP COLUMN to_kept, DROP COLUMN to_first_name, DROP COLUMN to_last_name, DROP COLUMN to_email;

-- +goose Down
-- The copies are gone from the code: there is nothing to bring back.
SELECT 1;
