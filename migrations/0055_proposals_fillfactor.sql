-- +goose Up
-- The approvals sync stamps every proposal it reads unchanged (synced_at,
-- no index) every 20 seconds. With full pages, every stamp wrote a new row
-- version on another page and a new entry in each of the table's five
-- indexes: the queue's index grew dead entries between vacuums and a
-- 50-row queue page read 185 of its buffers instead of 12 (EXPLAIN
-- (ANALYZE, BUFFERS) after six stamp rounds of 2,000 proposals). Room on
-- every page lets a stamp stay a heap-only update: the same page, no index
-- entry. Pages written from now on keep it; existing pages gain it as
-- their rows move.
ALTER TABLE proposals SET (fillfactor = 80);

-- +goose Down
ALTER TABLE proposals RESET (fillfactor);
