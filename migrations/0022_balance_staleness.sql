-- +goose Up
-- A wallet's balance is stale from the moment a proposal that moves value
-- out of it or into its owner's account completes, until it is read again.
-- The trigger marks it on every path that records a proposal's status, so
-- no area has to remember to; balance_stale_gen lets a reader clear only
-- what it read after (a read that began before a newer completion leaves
-- the mark, whatever the clocks say).
ALTER TABLE wallets
    ADD COLUMN balance_stale_since TIMESTAMPTZ,
    ADD COLUMN balance_stale_gen   BIGINT NOT NULL DEFAULT 0;
CREATE INDEX wallets_balance_stale ON wallets (employee_id) WHERE balance_stale_since IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION proposals_mark_balances_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'COMPLETED' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'COMPLETED') THEN
        UPDATE wallets
           SET balance_stale_since = coalesce(balance_stale_since, now()),
               balance_stale_gen = balance_stale_gen + 1
         WHERE id = NEW.wallet_id
            OR employee_id IN (SELECT id FROM employees
                                WHERE service_user_id IN (NEW.owner_user_id, NEW.to_user_id));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER proposals_balances_stale AFTER INSERT OR UPDATE OF status ON proposals
    FOR EACH ROW EXECUTE FUNCTION proposals_mark_balances_stale();

-- +goose Down
DROP TRIGGER proposals_balances_stale ON proposals;
DROP FUNCTION proposals_mark_balances_stale();
DROP INDEX wallets_balance_stale;
ALTER TABLE wallets DROP COLUMN balance_stale_gen, DROP COLUMN balance_stale_since;
