-- +goose Up
-- data_versions counts the committed changes to the tables behind the
-- cached list reads (store/read_cache.go), one counter per group of
-- tables. A request reads the sums in the same round trip as auth_epoch,
-- before it reads any data; a kept read is served only to a request that
-- read the very same sums, so a change committed on one replica is seen
-- on every replica at the next request.
--
-- Groups: employees (employees, employee_search_words), readiness
-- (employee_readiness, readiness_counts), proposals (proposals,
-- sign_requests, actions, queue_counts), cards (cards, card_search_words,
-- a wallet's currency), activity (money events), wallets (wallets, their
-- balances included) and payroll (payroll_runs).
--
-- The bump is a deferred constraint trigger, as auth_epoch's: it runs at
-- commit, once per transaction and group, after the transaction holds
-- every other lock it takes. The counters are spread over 16 rows, chosen
-- by the backend's pid, so that writers on different connections rarely
-- wait for each other at commit; a transaction only ever locks its own
-- row, so two transactions cannot deadlock on these rows. A group's
-- version is the sum of its column over the rows.
CREATE TABLE data_versions (
    stripe        SMALLINT PRIMARY KEY CHECK (stripe BETWEEN 0 AND 15),
    employees     BIGINT NOT NULL DEFAULT 0,
    employees_xid BIGINT NOT NULL DEFAULT 0,
    readiness     BIGINT NOT NULL DEFAULT 0,
    readiness_xid BIGINT NOT NULL DEFAULT 0,
    proposals     BIGINT NOT NULL DEFAULT 0,
    proposals_xid BIGINT NOT NULL DEFAULT 0,
    cards         BIGINT NOT NULL DEFAULT 0,
    cards_xid     BIGINT NOT NULL DEFAULT 0,
    activity      BIGINT NOT NULL DEFAULT 0,
    activity_xid  BIGINT NOT NULL DEFAULT 0,
    wallets       BIGINT NOT NULL DEFAULT 0,
    wallets_xid   BIGINT NOT NULL DEFAULT 0,
    payroll       BIGINT NOT NULL DEFAULT 0,
    payroll_xid   BIGINT NOT NULL DEFAULT 0
);
INSERT INTO data_versions (stripe) SELECT generate_series(0, 15);

-- One static statement per group (PL/pgSQL keeps each one's plan); later
-- rows of the same transaction find their xid equal and update nothing.
-- +goose StatementBegin
CREATE FUNCTION data_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    CASE TG_ARGV[0]
    WHEN 'employees' THEN
        UPDATE data_versions SET employees = employees + 1, employees_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND employees_xid <> txid_current();
    WHEN 'readiness' THEN
        UPDATE data_versions SET readiness = readiness + 1, readiness_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND readiness_xid <> txid_current();
    WHEN 'proposals' THEN
        UPDATE data_versions SET proposals = proposals + 1, proposals_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND proposals_xid <> txid_current();
    WHEN 'cards' THEN
        UPDATE data_versions SET cards = cards + 1, cards_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND cards_xid <> txid_current();
    WHEN 'activity' THEN
        UPDATE data_versions SET activity = activity + 1, activity_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND activity_xid <> txid_current();
    WHEN 'wallets' THEN
        UPDATE data_versions SET wallets = wallets + 1, wallets_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND wallets_xid <> txid_current();
    WHEN 'payroll' THEN
        UPDATE data_versions SET payroll = payroll + 1, payroll_xid = txid_current()
        WHERE stripe = pg_backend_pid() % 16 AND payroll_xid <> txid_current();
    END CASE;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER employees_data_version AFTER INSERT OR UPDATE OR DELETE ON employees
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('employees');
CREATE CONSTRAINT TRIGGER employee_search_words_data_version AFTER INSERT OR UPDATE OR DELETE ON employee_search_words
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('employees');
CREATE CONSTRAINT TRIGGER employee_readiness_data_version AFTER INSERT OR UPDATE OR DELETE ON employee_readiness
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('readiness');
CREATE CONSTRAINT TRIGGER readiness_counts_data_version AFTER INSERT OR UPDATE OR DELETE ON readiness_counts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('readiness');
CREATE CONSTRAINT TRIGGER proposals_data_version AFTER INSERT OR UPDATE OR DELETE ON proposals
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('proposals');
CREATE CONSTRAINT TRIGGER sign_requests_data_version AFTER INSERT OR UPDATE OR DELETE ON sign_requests
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('proposals');
CREATE CONSTRAINT TRIGGER actions_data_version AFTER INSERT OR UPDATE OR DELETE ON actions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('proposals');
CREATE CONSTRAINT TRIGGER queue_counts_data_version AFTER INSERT OR UPDATE OR DELETE ON queue_counts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('proposals');
CREATE CONSTRAINT TRIGGER cards_data_version AFTER INSERT OR UPDATE OR DELETE ON cards
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('cards');
CREATE CONSTRAINT TRIGGER card_search_words_data_version AFTER INSERT OR UPDATE OR DELETE ON card_search_words
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('cards');
-- Card search shows a wallet's currency only (balances move often).
CREATE CONSTRAINT TRIGGER wallets_data_version AFTER INSERT OR DELETE OR UPDATE OF currency ON wallets
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('cards');
CREATE CONSTRAINT TRIGGER activity_data_version AFTER INSERT OR UPDATE OR DELETE ON activity
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('activity');
CREATE CONSTRAINT TRIGGER wallets_all_data_version AFTER INSERT OR UPDATE OR DELETE ON wallets
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('wallets');
CREATE CONSTRAINT TRIGGER payroll_runs_data_version AFTER INSERT OR UPDATE OR DELETE ON payroll_runs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_versions_bump('payroll');

-- +goose Down
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
