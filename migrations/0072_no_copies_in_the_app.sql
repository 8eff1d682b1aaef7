-- +goose Up
-- The app keeps no copy of database data in its processes any more: every
-- request reads its session (scs with pgxstore) and its staff row, and
-- every page reads what it shows. What existed only to keep those copies
-- honest goes: the change counters behind the cached list reads
-- (data_versions, 0071), the epoch that emptied the session and staff
-- copies (auth_epoch, 0051), and the notices of changed staff rows and
-- sessions (0009, 0010).
DROP TRIGGER payroll_runs_data_version ON payroll_runs;
DROP TRIGGER wallets_all_data_version ON wallets;
DROP TRIGGER activity_data_version ON activity;
DROP TRIGGER wallets_data_version ON wallets;
DROP TRIGGER card_search_words_data_version ON card_search_words;
DROP TRIGGER cards_data_version ON cards;
DROP TRIGGER queue_counts_data_version ON queue_counts;
DROP TRIGGER actions_data_version ON actions;
DROP TRIGGER sign_requests_data_version ON sign_requests;
DROP TRIGGER proposals_data_version ON proposals;
DROP TRIGGER readiness_counts_data_version ON readiness_counts;
DROP TRIGGER employee_readiness_data_version ON employee_readiness;
DROP TRIGGER employee_search_words_data_version ON employee_search_words;
DROP TRIGGER employees_data_version ON employees;
DROP FUNCTION data_versions_bump();
DROP TABLE data_versions;

DROP TRIGGER sessions_auth_epoch ON sessions;
DROP TRIGGER staff_auth_epoch ON staff;
DROP FUNCTION auth_epoch_bump();
DROP TABLE auth_epoch;

DROP TRIGGER staff_changed ON staff;
DROP FUNCTION staff_changed_notify();
DROP TRIGGER session_changed ON sessions;
DROP FUNCTION session_changed_notify();

-- +goose Down
-- The copies are gone from the code: there is nothing to bring back.
SELECT 1;
