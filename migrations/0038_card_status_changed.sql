-- +goose Up
-- "Frozen or cancelled this week" went by status_read_at, the time of the
-- last read: a card cancelled months ago and listed again today counted as
-- cancelled this week. status_changed_at is when the mirror saw the status
-- take its present value: the read (status_read_at) that brought it.
-- Spelling alone (BLOCKED, blocked) is no change.
ALTER TABLE cards ADD COLUMN status_changed_at TIMESTAMPTZ;

-- Cards indexed before now: the app's own freeze, unfreeze or cancel, when
-- the audit log has it and the status read since agrees; otherwise when
-- the card was first indexed (the status was seen then, the change is
-- older or unknown).
UPDATE cards c SET status_changed_at = least(c.status_read_at, coalesce((
    SELECT max(a.at) FROM audit_log a
    WHERE a.target = 'card:' || c.id AND a.outcome = 'ok' AND a.action IN ('card.freeze', 'card.unfreeze', 'card.cancel')
), c.created_at));
ALTER TABLE cards ALTER COLUMN status_changed_at SET NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION cards_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR lower(NEW.status) IS DISTINCT FROM lower(OLD.status) THEN
        NEW.status_changed_at := NEW.status_read_at;
    ELSE
        NEW.status_changed_at := OLD.status_changed_at;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER cards_status_changed
BEFORE INSERT OR UPDATE ON cards
FOR EACH ROW EXECUTE FUNCTION cards_status_changed();

DROP INDEX cards_stopped_idx;
CREATE INDEX cards_stopped_idx ON cards (status_changed_at DESC)
    WHERE lower(status) IN ('frozen', 'blocked', 'canceled', 'cancelled', 'deactivated') AND NOT gone;

-- +goose Down
DROP INDEX cards_stopped_idx;
CREATE INDEX cards_stopped_idx ON cards (status_read_at DESC)
    WHERE lower(status) IN ('frozen', 'blocked', 'canceled', 'cancelled', 'deactivated');
DROP TRIGGER cards_status_changed ON cards;
DROP FUNCTION cards_status_changed();
ALTER TABLE cards DROP COLUMN status_changed_at;
