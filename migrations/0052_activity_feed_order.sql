-- +goose Up
-- The activity feed (/activity, its CSV) lists money events and completed
-- proposals newest first, by time and then by the line's key ('a' or 'p'
-- and the row's id, compared as text, which its page links carry). Without
-- these, each view read every event of the year and every completed
-- proposal, joined them all to employees and sorted them to show 100. With
-- them, each source is read in the feed's order from the page's cursor and
-- stops after a page.
CREATE INDEX activity_feed_idx ON activity (occurred_at DESC, ('a' || id::text) DESC);
-- A completed proposal's time is upstream_updated_at (never null); synced_at,
-- which the approvals sync stamps on every row it reads, is kept out of the
-- index so that stamping stays a heap-only update.
CREATE INDEX proposals_feed_idx ON proposals (upstream_updated_at DESC, ('p' || id) DESC)
    WHERE status = 'COMPLETED';

-- +goose Down
DROP INDEX proposals_feed_idx;
DROP INDEX activity_feed_idx;
