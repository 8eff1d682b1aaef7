-- +goose Up
-- Notifications: a message to a staff member (or the team's chat channel)
-- when someone's action is needed. A periodic scan finds what is due and
-- inserts one row per (kind, subject, recipient, channel): the unique key
-- makes an event notified once, however often the scan sees it. Sending is a
-- river job that claims the row ('pending' -> 'sending'), sends once and
-- records the outcome; a row found still 'sending' (a process died while
-- sending) is marked 'uncertain' and reported, never sent again blindly.
CREATE TABLE notifications (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind       TEXT        NOT NULL,
    subject    TEXT        NOT NULL,             -- what it is about: 'proposal:<id>:<round>', 'employee:<id>:<flag time>', ...
    recipient  TEXT        NOT NULL,             -- 'staff:<id>' or 'chat:shared'
    channel    TEXT        NOT NULL CHECK (channel IN ('email', 'chat')),
    staff_id   BIGINT      REFERENCES staff (id) ON DELETE CASCADE,
    title      TEXT        NOT NULL,
    body       TEXT        NOT NULL,
    link       TEXT        NOT NULL,             -- absolute URL of the page that needs the action
    state      TEXT        NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'uncertain')),
    attempts   INTEGER     NOT NULL DEFAULT 0,
    error      TEXT        NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    claimed_at TIMESTAMPTZ,
    sent_at    TIMESTAMPTZ,
    UNIQUE (kind, subject, recipient, channel)
);
-- The sweep of rows left 'sending', and the report of rows that need a look.
CREATE INDEX notifications_open_idx ON notifications (state, id) WHERE state IN ('pending', 'sending', 'failed', 'uncertain');

-- What each staff member chose to receive. A kind and channel with no row is
-- on: whoever may see a kind is told unless they turned it off.
CREATE TABLE notification_preferences (
    staff_id   BIGINT      NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
    kind       TEXT        NOT NULL,
    channel    TEXT        NOT NULL CHECK (channel IN ('email', 'chat')),
    enabled    BOOLEAN     NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (staff_id, kind, channel)
);

-- +goose Down
DROP TABLE notification_preferences;
DROP TABLE notifications;
