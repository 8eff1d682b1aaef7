-- +goose Up
-- The approval queue says how many proposals it holds. Counting them on
-- every view read every queued row's index entry (2,000 open proposals,
-- and every open queue page polls every 2 seconds); a per-process cache of
-- the count was not honest across replicas. The count per state and type
-- is now kept as proposals change, by triggers in the writing transaction:
-- every replica reads the same committed numbers. Counted: the states the
-- queue shows (store.QueueStatuses).
CREATE TABLE queue_counts (
    status TEXT   NOT NULL,
    type   TEXT   NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (status, type)
);

INSERT INTO queue_counts (status, type, n)
SELECT status, type, count(*) FROM proposals
WHERE status IN ('PENDING_APPROVALS', 'PENDING_SIGNATURES', 'SUBMITTED', 'READY_TO_EXECUTE', 'EXECUTING', 'FAILED')
GROUP BY 1, 2;

-- A transaction's moves, applied when it commits, in key order (as the
-- dashboard's counts, migration 0037): a proposal changing state moves two
-- counts, and two transactions moving them in opposite orders would
-- deadlock if each took its locks as its rows changed.
CREATE TABLE queue_count_moves (
    xact   BIGINT NOT NULL DEFAULT txid_current(),
    status TEXT   NOT NULL,
    type   TEXT   NOT NULL,
    delta  BIGINT NOT NULL
);
CREATE INDEX queue_count_moves_xact_idx ON queue_count_moves (xact);

-- +goose StatementBegin
CREATE FUNCTION queue_count_moves_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH moved AS (DELETE FROM queue_count_moves WHERE xact = txid_current() RETURNING status, type, delta)
    INSERT INTO queue_counts (status, type, n)
    SELECT status, type, sum(delta) FROM moved GROUP BY status, type HAVING sum(delta) <> 0 ORDER BY status, type
    ON CONFLICT (status, type) DO UPDATE SET n = queue_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- The first firing at commit applies every move of the transaction; the
-- others find none left.
CREATE CONSTRAINT TRIGGER queue_count_moves_apply
AFTER INSERT ON queue_count_moves
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION queue_count_moves_apply();

-- +goose StatementBegin
CREATE FUNCTION queue_counts_on_proposal() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    queued CONSTANT TEXT[] := ARRAY['PENDING_APPROVALS', 'PENDING_SIGNATURES', 'SUBMITTED', 'READY_TO_EXECUTE', 'EXECUTING', 'FAILED'];
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status = NEW.status AND OLD.type = NEW.type THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = ANY (queued) THEN
        INSERT INTO queue_count_moves (status, type, delta) VALUES (OLD.status, OLD.type, -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.status = ANY (queued) THEN
        INSERT INTO queue_count_moves (status, type, delta) VALUES (NEW.status, NEW.type, 1);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER queue_counts_on_proposal
AFTER INSERT OR DELETE OR UPDATE OF status, type ON proposals
FOR EACH ROW EXECUTE FUNCTION queue_counts_on_proposal();

-- +goose Down
DROP TRIGGER queue_counts_on_proposal ON proposals;
DROP FUNCTION queue_counts_on_proposal();
DROP TRIGGER queue_count_moves_apply ON queue_count_moves;
DROP FUNCTION queue_count_moves_apply();
DROP TABLE queue_count_moves;
DROP TABLE queue_counts;
