-- +goose Up
-- Taking a confirmed destination out of the book is asked by one person and
-- confirmed by another, like adding it; until then it stays as it is.
ALTER TABLE trusted_destinations
    ADD COLUMN removal_asked_by BIGINT REFERENCES staff (id),
    ADD COLUMN removal_asked_at TIMESTAMPTZ,
    ADD CONSTRAINT trusted_destinations_removal_by_another
        CHECK (removal_asked_by IS NULL OR removed_by IS NULL OR removed_by <> removal_asked_by);

-- +goose Down
ALTER TABLE trusted_destinations
    DROP CONSTRAINT trusted_destinations_removal_by_another,
    DROP COLUMN removal_asked_at,
    DROP COLUMN removal_asked_by;
